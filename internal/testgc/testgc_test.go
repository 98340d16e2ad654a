package testgc_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/rsconform/rsconform/internal/testgc"
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

// Importing the package sets the collector's percentage, unless GOGC does.
func TestImportSetsPercent(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: it decides")
	}
	now := debug.SetGCPercent(100)
	debug.SetGCPercent(now)
	if now != testgc.Percent {
		t.Fatalf("the GC percent is %d after importing testgc, want %d", now, testgc.Percent)
	}
}
