package source_test

import (
	"flag"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/rsconform/rsconform/internal/testgc"  // collects at 400 %: see its doc
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
	"github.com/rsconform/rsconform/suite/source"
)

var (
	sourceURL = flag.String("source", "", "URL of the Source to check (default: $RSCONFORM_SOURCE, else rsconform's mock Source)")
	mapFlag   = flag.String("map", "", "serve URL=DIR from a local folder, as rsconform crawl --map")
)

// The suite is defined at package load, with the Source read from the
// flags when the BeforeSuite runs.
var _ = func() bool {
	cfg := source.Config{FrontEnd: frontend.Must(), Setup: func(c *source.Config) error {
		c.Entry = *sourceURL
		if c.Entry == "" {
			c.Entry = os.Getenv("RSCONFORM_SOURCE")
		}
		if *mapFlag != "" {
			m, err := sourcehttp.ParseMap(*mapFlag)
			if err != nil {
				return err
			}
			c.Maps = append(c.Maps, m)
		}
		if c.Entry == "" {
			// Self-test: rsconform's own mock Source must conform.
			src, err := mocksource.New(mocksource.Options{})
			if err != nil {
				return err
			}
			srv := httptest.NewServer(src.Handler())
			DeferCleanup(srv.Close)
			c.Entry = srv.URL + "/.well-known/resourcesync"
		}
		return nil
	}}
	if err := source.DefineSpecs(cfg); err != nil {
		panic(err)
	}
	return true
}()

func TestSourceSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "ResourceSync Source conformance", suiteConfig, reporterConfig)
}
