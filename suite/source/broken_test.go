package source_test

import (
	"encoding/xml"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsconform/rsconform/fixtures"
)

// junit is the part of a JUnit report the self-test reads.
type junit struct {
	Suites []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestBrokenSources runs the suite (this test binary, re-executed) against
// failing fixture sites and checks that exactly the expected specs fail,
// and that the JUnit report names the requirement and section of each
// failure.
func TestBrokenSources(t *testing.T) {
	if os.Getenv("RSCONFORM_SUITE_CHILD") != "" {
		t.Skip("child run")
	}
	sites, err := fixtures.Sites()
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{"RS-UP-TARGET", "RS-CLI-OPEN"}
	for _, rule := range cases {
		var site *fixtures.Site
		for _, s := range sites {
			if s.Dir == rule && s.Fail() && !s.Packages {
				site = s
				break
			}
		}
		if site == nil {
			t.Fatalf("no failing fixture site for %s", rule)
		}
		t.Run(rule, func(t *testing.T) {
			srv := httptest.NewServer(site.Handler())
			defer srv.Close()
			report := filepath.Join(t.TempDir(), "junit.xml")
			cmd := exec.Command(os.Args[0], "-test.run", "^TestSourceSuite$",
				"-source", srv.URL+site.Entry, "-ginkgo.junit-report", report, "-ginkgo.no-color")
			cmd.Env = append(os.Environ(), "RSCONFORM_SUITE_CHILD=1")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed against %s:\n%s", site.Path(), out)
			}
			data, rerr := os.ReadFile(report)
			if rerr != nil {
				t.Fatalf("no JUnit report: %v\n%s", rerr, out)
			}
			var rep junit
			if err := xml.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			wanted := map[string]bool{}
			for _, w := range site.Want {
				wanted[w.Rule] = true
			}
			failed := map[string]bool{}
			for _, s := range rep.Suites {
				for _, c := range s.Cases {
					if c.Failure == nil {
						continue
					}
					id := c.Name
					if i := strings.Index(id, "RS-"); i >= 0 {
						id = id[i:]
					}
					id, _, _ = strings.Cut(id, ":")
					failed[id] = true
					if !wanted[id] {
						t.Errorf("unexpected failing spec %q", c.Name)
					}
					if !strings.Contains(c.Failure.Text+c.Failure.Message, id+" [") {
						t.Errorf("failure of %q does not name its requirement and section:\n%s", c.Name, c.Failure.Text)
					}
				}
			}
			for w := range wanted {
				if !failed[w] {
					t.Errorf("spec of %s did not fail against %s", w, site.Path())
				}
			}
		})
	}
}
