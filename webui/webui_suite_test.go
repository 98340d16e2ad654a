package webui_test

import (
	"os"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
	if why, fail := noChromium(findChromium(), os.Getenv); fail {
		t.Fatal(why)
	} else if why != "" {
		t.Skip(why)
	}
}

func TestNoChromium(t *testing.T) {
	env := func(ci string) func(string) string {
		return func(k string) string {
			if k == "CI" {
				return ci
			}
			return ""
		}
	}
	for _, c := range []struct {
		path, ci   string
		skip, fail bool
	}{
		{"/usr/bin/chromium", "true", false, false},
		{"", "", true, false},
		{"", "false", true, false},
		{"", "true", true, true},
	} {
		why, fail := noChromium(c.path, env(c.ci))
		if (why != "") != c.skip || fail != c.fail {
			t.Errorf("path %q, CI=%q: why %q, fail %v; want a reason %v, fail %v", c.path, c.ci, why, fail, c.skip, c.fail)
		}
	}
}
