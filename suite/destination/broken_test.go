package destination_test

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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

// TestBrokenDestination runs the suite (this test binary, re-executed)
// with a Destination that ignores deletions, on a scenario that deletes a
// resource: the deletion specs, and only they, must fail, and the JUnit
// report must name the requirement, its section, expected and actual.
func TestBrokenDestination(t *testing.T) {
	if os.Getenv("RSCONFORM_SUITE_CHILD") != "" {
		t.Skip("child run")
	}
	report := filepath.Join(t.TempDir(), "junit.xml")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDestinationSuite$", "-ginkgo.junit-report", report, "-ginkgo.no-color")
	cmd.Env = append(os.Environ(), "RSCONFORM_SUITE_CHILD=1", "RSCONFORM_SUITE_BROKEN_CHILD=ignore-deletions",
		"RSCONFORM_SUITE_SCENARIOS=create-update-delete")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with a Destination that ignores deletions:\n%s", out)
	}
	data, rerr := os.ReadFile(report)
	if rerr != nil {
		t.Fatalf("no JUnit report: %v\n%s", rerr, out)
	}
	var rep junit
	if err := xml.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, s := range rep.Suites {
		for _, c := range s.Cases {
			if c.Failure == nil {
				continue
			}
			failed++
			if !strings.Contains(c.Name, "DEST-DELETED") {
				t.Errorf("unexpected failing spec %q:\n%s", c.Name, c.Failure.Text)
			}
			text := c.Failure.Text + c.Failure.Message
			for _, want := range []string{"DEST-DELETED [5.2] MUST", "expected:", "actual:"} {
				if !strings.Contains(text, want) {
					t.Errorf("failure of %q does not say %q:\n%s", c.Name, want, text)
				}
			}
		}
	}
	if failed == 0 {
		t.Fatalf("no failing spec in the JUnit report:\n%s", out)
	}
}

// TestSetupError runs the suite (this test binary, re-executed) with a
// Setup that returns an error after choosing the reference Destination:
// the suite must fail, saying the error, not play the scenario.
func TestSetupError(t *testing.T) {
	if os.Getenv("RSCONFORM_SUITE_CHILD") != "" {
		t.Skip("child run")
	}
	const why = "the Destination's setup failed (TestSetupError)"
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDestinationSuite$", "-ginkgo.no-color")
	cmd.Env = append(os.Environ(), "RSCONFORM_SUITE_CHILD=1", "RSCONFORM_SUITE_SETUP_ERROR="+why,
		"RSCONFORM_SUITE_SCENARIOS=create-update-delete")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with a Setup that failed:\n%s", out)
	}
	if !strings.Contains(string(out), why) {
		t.Errorf("the suite's failure does not say the Setup's error %q:\n%s", why, out)
	}
}
