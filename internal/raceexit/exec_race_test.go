//go:build race && unix

package raceexit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rsconform/rsconform/internal/raceexit"
)

// The test binary, built with -race, imports the package: it runs with
// GORACE naming atexit_sleep_ms, either given or added by the exec.
func TestGORACENamesTheExitSleep(t *testing.T) {
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		t.Fatalf("GORACE=%q: the exec with %s did not happen", os.Getenv("GORACE"), raceexit.Option)
	}
}
