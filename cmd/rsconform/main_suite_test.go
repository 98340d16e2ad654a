package main

import (
	"os"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/rsconform/rsconform/internal/testgc"  // collects at 400 %: see its doc
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

// TestMain runs the command itself when the tests start their own binary
// as rsconform (RSCONFORM_TEST_MAIN=1): what happens to a process, signals,
// is tested on a process.
func TestMain(m *testing.M) {
	if os.Getenv("RSCONFORM_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestCLI(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "rsconform CLI", suiteConfig, reporterConfig)
}
