package webui_test

import (
	"os"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/chromium"
	_ "github.com/rsconform/rsconform/internal/testgc"  // collects at 400 %: see its doc
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestWebUI(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "webui", suiteConfig, reporterConfig)
}

// TestBrowserRuns names, in go test's own output (-v, -json), why the
// browser specs of TestWebUI are skipped, and fails in CI (CI=true) where
// they must run.
func TestBrowserRuns(t *testing.T) {
	if why, fail := chromium.Missing(chromium.Find(), os.Getenv); fail {
		t.Fatal(why)
	} else if why != "" {
		t.Skip(why)
	}
}
