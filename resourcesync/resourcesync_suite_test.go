package resourcesync_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The tests' garbage (documents built, parsed, served and reported for
// each spec) is collected at 400 % growth rather than 100 %: under -race every
// collection also clears the race detector's shadow of what it frees, and
// this package's tests spent 10-20 % of their CPU there (GOGC=400 measured
// against the default on the package's test binary). No test here
// measures memory; GOGC, when set, still decides.
func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

func TestResourceSync(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "resourcesync", suiteConfig, reporterConfig)
}
