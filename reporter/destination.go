package reporter

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/rules/engine"
)

// Reports of `rsconform test-destination`: the verdicts of the Destination
// harness (package harness), in the same four formats as documents.
// Every format shows every status: pass, fail, not observed (an event the
// requirement waits for did not happen: neither pass nor fail, counted
// apart) and skip. A failed SHOULD or POLICY verdict fails the run only
// under Options.Strict, as a warning does for documents.

// DestinationReport is the json format of test-destination:
//
//	{"tool": "rsconform", "version": "…", "strict": false,
//	 "scenarios": [{"scenario": "…", "description": "…", "source": "…", "dir": "…",
//	    "command": ["…"], "duration_seconds": 1.2,
//	    "steps": [{"step": 0, "name": "initial state", "time": "…", "checkpoint": true, "ran": true,
//	       "run": {"exit_code": 0, "timed_out": false, "seconds": 0.4, "requests": 57, "output": "…", "stderr": "…"},
//	       "verdicts": [{"id": "DEST-DELETED", "section": "5.2", "level": "MUST", "title": "…",
//	          "status": "fail", "expected": "…", "actual": "…", "evidence": ["…"]}]}]}],
//	 "summary": {"scenarios": 1, "steps": 4, "verdicts": 40, "passed": 30, "failed": 2,
//	    "failing": 1, "not_observed": 1, "skipped": 7}}
//
// status is "pass", "fail", "not-observed" or "skip"; level "MUST",
// "SHOULD" or "POLICY"; summary.failing counts the failed verdicts that
// fail the run (MUST, or all when strict).
type DestinationReport struct {
	Tool      string            `json:"tool"`
	Version   string            `json:"version"`
	Strict    bool              `json:"strict"`
	Scenarios []*harness.Result `json:"scenarios"`
	Summary   harness.Summary   `json:"summary"`
}

// DestinationExitCode is the exit code of test-destination: 1 when a
// verdict fails the run, else 0.
func DestinationExitCode(results []*harness.Result, strict bool) int {
	for _, r := range results {
		if r.Failed(strict) {
			return ExitFailures
		}
	}
	return ExitOK
}

// WriteDestination writes the harness's results in the named format.
func WriteDestination(w io.Writer, format string, results []*harness.Result, o Options) error {
	if o.Tool == "" {
		o.Tool = "rsconform"
	}
	if results == nil {
		results = []*harness.Result{}
	}
	switch format {
	case FormatText:
		return writeDestinationText(w, results, o)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(DestinationReport{Tool: o.Tool, Version: o.Version, Strict: o.Strict,
			Scenarios: results, Summary: harness.Summarize(results, o.Strict)})
	case FormatJUnit:
		return writeDestinationJUnit(w, results, o)
	case FormatSARIF:
		return writeDestinationSARIF(w, results, o)
	case FormatHTML:
		return writeDestinationHTML(w, results, o)
	}
	return fmt.Errorf("unknown report format %q (valid: %s)", format, strings.Join(Formats(), ", "))
}

// statusWord is how the text format shows a verdict's status.
func statusWord(v harness.Verdict, strict bool) string {
	switch {
	case v.Status == harness.Fail && !v.Fails(strict):
		return "FAIL (" + string(v.Level) + ", fails only with --strict)"
	case v.Status == harness.NotObserved:
		return "NOT OBSERVED"
	}
	return strings.ToUpper(string(v.Status))
}

// writeDestinationText writes, per scenario and step, one line per verdict
// (skips only when verbose) with the evidence of failures and of verdicts
// not observed (and of passes when verbose), then a summary line.
func writeDestinationText(w io.Writer, results []*harness.Result, o Options) error {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "scenario %s\n", r.Scenario)
		if r.Description != "" {
			fmt.Fprintf(&b, "  %s\n", termSafe(r.Description, false))
		}
		fmt.Fprintf(&b, "  source %s\n  dir    %s\n  command %s\n", r.Source, termSafe(r.Dir, false), termSafe(strings.Join(r.Command, " "), false))
		for _, st := range r.Steps {
			if !st.Ran {
				fmt.Fprintf(&b, "  step %d (%s): not a checkpoint, the Destination is not run\n", st.Step, st.Name)
				continue
			}
			fmt.Fprintf(&b, "  step %d (%s) at %s: %s in %.1fs, %d requests\n", st.Step, st.Name,
				st.Time.Format("2006-01-02T15:04:05Z"), st.Run.Exit(), st.Run.Seconds, st.Run.Requests)
			showOutput := o.Verbose || st.Run.TimedOut
			for _, v := range st.Verdicts {
				if v.Status == harness.Skip && !o.Verbose {
					continue
				}
				fmt.Fprintf(&b, "    %s %s\n", statusWord(v, o.Strict), termSafe(v.Line(st.Step), false))
				showOutput = showOutput || v.Status == harness.Fail
				if v.Status == harness.Fail || v.Status == harness.NotObserved || o.Verbose {
					for i, e := range v.Evidence {
						if i == 5 && !o.Verbose {
							fmt.Fprintf(&b, "        … and %d more\n", len(v.Evidence)-5)
							break
						}
						fmt.Fprintf(&b, "        %s\n", termSafe(e, false))
					}
				}
			}
			if out := strings.TrimSpace(st.Run.Output); showOutput && out != "" {
				lines := strings.Split(termSafe(out, true), "\n")
				if len(lines) > 20 {
					lines = append([]string{"…"}, lines[len(lines)-20:]...)
				}
				fmt.Fprintf(&b, "    output:\n      %s\n", strings.Join(lines, "\n      "))
			}
		}
		if r.Interrupted != "" {
			fmt.Fprintf(&b, "  interrupted: %s: the later steps were not played\n", termSafe(r.Interrupted, false))
		}
	}
	s := harness.Summarize(results, o.Strict)
	fmt.Fprintf(&b, "%s, %s: %s, %d passed, %d failed (%d failing the run), %d not observed, %d skipped\n",
		words.Count(s.Scenarios, "scenario"), words.Count(s.Steps, "run"), words.Count(s.Verdicts, "verdict"), s.Passed, s.Failed, s.Failing, s.NotObserved, s.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDestinationJUnit writes one testsuite per scenario and one testcase
// per step and requirement: a failure for a verdict that fails the run;
// skipped for not observed and skipped verdicts (the message says which);
// a failed SHOULD or POLICY without strict passes with the failure in its
// system-out, as a warning does for documents. The run's output goes to
// the DEST-RUN testcase.
func writeDestinationJUnit(w io.Writer, results []*harness.Result, o Options) error {
	out := JUnitSuites{Name: o.Tool + " test-destination"}
	for _, r := range results {
		suite := JUnitSuite{Name: xmlSafe(r.Scenario), Time: fmt.Sprintf("%.3f", r.Duration),
			Properties: []JUnitProperty{{Name: "description", Value: xmlSafe(r.Description)}, {Name: "source", Value: xmlSafe(r.Source)},
				{Name: "dir", Value: xmlSafe(r.Dir)}, {Name: "command", Value: xmlSafe(strings.Join(r.Command, " "))},
				{Name: "strict", Value: fmt.Sprint(o.Strict)}}}
		for _, st := range r.Steps {
			for _, v := range st.Verdicts {
				c := JUnitCase{Name: xmlSafe(fmt.Sprintf("step %d [%s] %s %s", st.Step, v.Section, v.Level, v.Title)),
					Classname: xmlSafe(r.Scenario + "." + v.ID), Time: "0"}
				msg := "expected " + v.Expected + ", actual " + v.Actual
				evidence := strings.Join(v.Evidence, "\n")
				var sysout []string
				switch {
				case v.Fails(o.Strict):
					c.Failures = []JUnitProblem{{Message: xmlSafe(msg), Type: v.ID, Text: xmlText(evidence)}}
					suite.Failures++
				case v.Status == harness.Fail:
					sysout = append(sysout, fmt.Sprintf("fails (%s, fails the run only with --strict): %s", v.Level, msg), evidence)
				case v.Status == harness.NotObserved:
					t := XMLText("not observed: " + msg)
					c.Skipped = &t
					suite.Skipped++
				case v.Status == harness.Skip:
					t := XMLText(msg)
					c.Skipped = &t
					suite.Skipped++
				default:
					sysout = append(sysout, "passed: "+msg, evidence)
				}
				if v.ID == harness.RunCompletes.ID && st.Run != nil {
					c.Time = fmt.Sprintf("%.3f", st.Run.Seconds)
					sysout = append(sysout, st.Run.Output)
				}
				if len(sysout) > 0 {
					t := XMLText(strings.TrimSpace(strings.Join(sysout, "\n")))
					c.SystemOut = &t
				}
				suite.Tests++
				suite.Cases = append(suite.Cases, c)
			}
		}
		if r.Interrupted != "" {
			suite.Cases = append(suite.Cases, JUnitCase{Name: "interrupted", Classname: xmlSafe(r.Scenario + ".interrupted"), Time: "0",
				Errors: []JUnitProblem{{Message: xmlSafe(r.Interrupted + ": the later steps were not played"), Type: "interrupted"}}})
			suite.Tests++
			suite.Errors++
		}
		out.Suites = append(out.Suites, suite)
	}
	return WriteJUnitXML(w, out)
}

// writeDestinationSARIF writes one run whose rules are the Destination
// requirements (level MUST → error, SHOULD → warning, POLICY → note) and
// one result per failed verdict (kind "fail") and per verdict not observed
// (kind "open", level "none": the tool could not tell), located at the
// Source Description the scenario was served from; the message names the
// scenario and step and gives expected, actual and the evidence.
func writeDestinationSARIF(w io.Writer, results []*harness.Result, o Options) error {
	s := newSARIF(w, o)
	s.rules, s.index = nil, map[string]int{}
	for _, r := range harness.Requirements {
		d := sarifRule{ID: r.ID, Name: camelName(r.ID), ShortDescription: sarifMessage{Text: r.Title},
			FullDescription:      &sarifMessage{Text: requirementDescription(r)},
			HelpURI:              harness.DocURL(r.ID),
			DefaultConfiguration: sarifRuleConfig{Level: destinationSARIFLevel(r.Level)},
			Properties:           map[string]string{"section": r.Section, "level": string(r.Level)}}
		help := "Passes: " + r.Passes + "\nFails: " + r.Fails
		if why := r.Why(); why != "" {
			help = "Why " + string(r.Level) + ": " + why + "\n" + help
		}
		if r.Doc != "" {
			help += "\n" + r.Doc
		}
		d.Help = &sarifHelp{Text: help}
		s.addRule(d)
	}
	for _, r := range results {
		s.processed++
		if r.Interrupted != "" {
			s.notes = append(s.notes, sarifNotification{Level: "error",
				Message:   sarifMessage{Text: fmt.Sprintf("scenario %s interrupted: %s: the later steps were not played", r.Scenario, r.Interrupted)},
				Locations: []sarifLocation{{LogicalLocations: []sarifLogicalLocation{{Name: r.Scenario, FullyQualifiedName: r.Scenario, Kind: "namespace"}}}}})
		}
		for _, st := range r.Steps {
			for _, v := range st.Verdicts {
				if v.Status != harness.Fail && v.Status != harness.NotObserved {
					continue
				}
				text := fmt.Sprintf("scenario %s, step %d (%s): %s: expected %s, actual %s", r.Scenario, st.Step, st.Name, v.Title, v.Expected, v.Actual)
				if len(v.Evidence) > 0 {
					text += "\n" + strings.Join(v.Evidence, "\n")
				}
				res := sarifResult{RuleID: v.ID, RuleIndex: s.index[v.ID], Kind: "fail", Level: destinationSARIFLevel(v.Level),
					Message: sarifMessage{Text: text}, Locations: []sarifLocation{verdictLocation(r, st, v)}}
				if v.Status == harness.NotObserved {
					res.Kind, res.Level = "open", "none"
				}
				s.results = append(s.results, res)
			}
		}
	}
	return s.Flush()
}

// requirementDescription is a requirement's fullDescription: the sentence
// its level rests on, or for a POLICY without one what it asks.
func requirementDescription(r *harness.Requirement) string {
	if r.Quote != "" && r.Level != harness.Policy {
		return r.Quote
	}
	return "Not stated by a standard (POLICY): " + r.Passes
}

// verdictLocation locates a verdict logically, scenario / step N /
// requirement (the mock Source's address changes with every run); a
// scenario read from a file is located at the step's line there too.
func verdictLocation(r *harness.Result, st harness.StepResult, v harness.Verdict) sarifLocation {
	l := sarifLocation{LogicalLocations: []sarifLogicalLocation{{Name: v.ID,
		FullyQualifiedName: fmt.Sprintf("%s/step %d/%s", r.Scenario, st.Step, v.ID), Kind: "member"}}}
	if r.File != "" {
		l.PhysicalLocation = sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: artifactURI(r.File, "")}}
		if st.Line > 0 {
			l.PhysicalLocation.Region = &sarifRegion{StartLine: st.Line}
		}
	}
	return l
}

func destinationSARIFLevel(l harness.Level) string {
	return sarifLevel(map[harness.Level]engine.Severity{harness.Must: engine.SeverityError, harness.Should: engine.SeverityWarning}[l])
}
