package chromium_test

import (
	"testing"

	"github.com/rsconform/rsconform/internal/chromium"
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestMissing(t *testing.T) {
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
		why, fail := chromium.Missing(c.path, env(c.ci))
		if (why != "") != c.skip || fail != c.fail {
			t.Errorf("path %q, CI=%q: why %q, fail %v; want a reason %v, fail %v", c.path, c.ci, why, fail, c.skip, c.fail)
		}
	}
}
