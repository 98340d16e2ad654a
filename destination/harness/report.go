package harness

import (
	"encoding/json"
	"fmt"
	"github.com/rsconform/rsconform/reporter"
	"io"
	"strings"
)

// Formats are the report formats.
var Formats = []string{"text", "json", "junit"}

// Summary counts verdicts.
type Summary struct {
	Scenarios int `json:"scenarios"`
	Steps     int `json:"steps"`
	Verdicts  int `json:"verdicts"`
	Passed    int `json:"passed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
}

// Summarize counts the verdicts of results.
func Summarize(results []*Result) Summary {
	var s Summary
	for _, r := range results {
		s.Scenarios++
		for _, st := range r.Steps {
			if st.Ran {
				s.Steps++
			}
			for _, v := range st.Verdicts {
				s.Verdicts++
				switch v.Status {
				case Pass:
					s.Passed++
				case Fail:
					s.Failed++
				case Skip:
					s.Skipped++
				}
			}
		}
	}
	return s
}

// Line is a verdict as one line: "step 3 [12.1] deleted resources are
// removed: expected /res3 absent, actual present".
func (v Verdict) Line(step int) string {
	return fmt.Sprintf("step %d [%s] %s: expected %s, actual %s", step, v.Section, v.Title, v.Expected, v.Actual)
}

// WriteText writes the report for people: per scenario, per step, one
// line per verdict, then a summary line.
func WriteText(w io.Writer, results []*Result, verbose bool) error {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "scenario %s\n", r.Scenario)
		fmt.Fprintf(&b, "  source %s\n  dir    %s\n  command %s\n", r.Source, r.Dir, strings.Join(r.Command, " "))
		for _, st := range r.Steps {
			if !st.Ran {
				fmt.Fprintf(&b, "  step %d (%s): not a checkpoint, the Destination is not run\n", st.Step, st.Name)
				continue
			}
			fmt.Fprintf(&b, "  step %d (%s) at %s: exit %d in %.1fs, %d requests\n", st.Step, st.Name,
				st.Time.Format("2006-01-02T15:04:05Z"), st.Run.ExitCode, st.Run.Seconds, st.Run.Requests)
			for _, v := range st.Verdicts {
				if v.Status == Skip && !verbose {
					continue
				}
				fmt.Fprintf(&b, "    %s %s\n", strings.ToUpper(string(v.Status)), termSafe(v.Line(st.Step)))
				if v.Status == Fail && verbose {
					for _, d := range v.Details {
						fmt.Fprintf(&b, "         %s\n", termSafe(d))
					}
				}
			}
			if verbose || st.Run.TimedOut || failed(st) {
				if out := strings.TrimSpace(st.Run.Output); out != "" {
					fmt.Fprintf(&b, "    output:\n%s\n", indentLines(termSafe(lastLines(out, 20)), "      "))
				}
			}
		}
	}
	s := Summarize(results)
	fmt.Fprintf(&b, "%d scenarios, %d runs: %d verdicts, %d passed, %d failed, %d skipped\n",
		s.Scenarios, s.Steps, s.Verdicts, s.Passed, s.Failed, s.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

func failed(st StepResult) bool {
	for _, v := range st.Verdicts {
		if v.Status == Fail {
			return true
		}
	}
	return false
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// termSafe escapes control characters (but newlines), so that output from
// the Destination cannot drive the terminal.
func termSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// JSONReport is the JSON report:
//
//	{"tool": "rsconform", "version": "…",
//	 "scenarios": [{"scenario": "…", "description": "…", "source": "…", "dir": "…",
//	    "command": ["…"], "duration_seconds": 1.2,
//	    "steps": [{"step": 0, "name": "initial state", "time": "…", "checkpoint": true, "ran": true,
//	       "run": {"exit_code": 0, "timed_out": false, "seconds": 0.4, "requests": 57, "output": "…"},
//	       "verdicts": [{"id": "DEST-DELETED", "section": "12.1", "title": "…",
//	          "status": "fail", "expected": "…", "actual": "…", "details": ["…"]}]}]}],
//	 "summary": {"scenarios": 1, "steps": 4, "verdicts": 40, "passed": 30, "failed": 2, "skipped": 8}}
type JSONReport struct {
	Tool      string    `json:"tool"`
	Version   string    `json:"version"`
	Scenarios []*Result `json:"scenarios"`
	Summary   Summary   `json:"summary"`
}

// WriteJSON writes the JSON report.
func WriteJSON(w io.Writer, results []*Result, version string) error {
	if results == nil {
		results = []*Result{}
	}
	b, err := json.MarshalIndent(JSONReport{Tool: "rsconform", Version: version, Scenarios: results, Summary: Summarize(results)}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteJUnit writes one testsuite per scenario and one testcase per step
// and requirement, in the JUnit structure every report of rsconform shares
// (reporter.JUnitSuites); the run's output goes to the DEST-RUN testcase.
func WriteJUnit(w io.Writer, results []*Result) error {
	safe := reporter.XMLSafe
	out := reporter.JUnitSuites{Name: "rsconform test-destination"}
	for _, r := range results {
		suite := reporter.JUnitSuite{Name: safe(r.Scenario), Time: fmt.Sprintf("%.3f", r.Duration),
			Properties: []reporter.JUnitProperty{{Name: "description", Value: safe(r.Description)}, {Name: "source", Value: safe(r.Source)},
				{Name: "dir", Value: safe(r.Dir)}, {Name: "command", Value: safe(strings.Join(r.Command, " "))}}}
		for _, st := range r.Steps {
			for _, v := range st.Verdicts {
				c := reporter.JUnitCase{Name: safe(fmt.Sprintf("step %d [%s] %s", st.Step, v.Section, v.Title)),
					Classname: safe(r.Scenario + "." + v.ID), Time: "0"}
				msg := safe("expected " + v.Expected + ", actual " + v.Actual)
				switch v.Status {
				case Fail:
					c.Failures = []reporter.JUnitProblem{{Message: msg, Type: v.ID, Text: reporter.XMLText(strings.Join(v.Details, "\n")).Text}}
					suite.Failures++
				case Skip:
					t := reporter.XMLText(msg)
					c.Skipped = &t
					suite.Skipped++
				}
				if v.ID == ReqRun && st.Run != nil {
					c.Time = fmt.Sprintf("%.3f", st.Run.Seconds)
					t := reporter.XMLText(st.Run.Output)
					c.SystemOut = &t
				}
				suite.Tests++
				suite.Cases = append(suite.Cases, c)
			}
		}
		out.Suites = append(out.Suites, suite)
	}
	return reporter.WriteJUnitXML(w, out)
}
