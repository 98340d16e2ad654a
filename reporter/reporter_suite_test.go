package reporter_test

import (
	"flag"
	"os"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

// update rewrites the golden files of testdata: go test ./reporter -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestReporter(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "reporter", suiteConfig, reporterConfig)
}
