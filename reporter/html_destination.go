package reporter

import (
	"fmt"
	"io"
	"strings"

	"github.com/rsconform/rsconform/harness"
)

// The html format of test-destination: per scenario, a matrix of the
// requirements (rows) by the steps after which the Destination ran
// (columns); each cell is a verdict (pass, fail, not observed, skip) that
// opens, on click, to its expected and actual values and the evidence it
// rests on. Below the matrix, each run's exit, time, requests and output;
// at the end, the requirements quoted. Same page frame, escaping and
// policy as the documents' html format.

// htmlDestReport is what the "destination" template renders.
type htmlDestReport struct {
	HTMLPage
	Version      string
	Strict       bool
	Fails        bool
	Summary      harness.Summary
	Scenarios    []htmlScenario
	Requirements []*harness.Requirement
}

type htmlScenario struct {
	ID, Name, Description, Source, Dir, Command, Duration string
	Steps                                                 []htmlStep
	NotRun                                                []string
	Interrupted                                           string
	Rows                                                  []htmlRequirementRow
	// Counts are the scenario's verdicts by status, for the index.
	Counts harness.Summary
}

type htmlStep struct {
	Step                int
	Name, Time, Seconds string
	// Exit is how the run ended: "exit 0", "killed by SIGSEGV", "killed
	// at the timeout".
	Exit           string
	Requests       int
	TimedOut       bool
	Output, Stderr string
}

type htmlRequirementRow struct {
	ID, Level, Section, Title string
	Cells                     []htmlVerdict
}

type htmlVerdict struct {
	Present          bool
	Status, Class    string
	Mark             string
	Expected, Actual string
	Evidence         []string
	More             int
}

// evidenceShown bounds the evidence lines of one cell.
const evidenceShown = 20

func writeDestinationHTML(w io.Writer, results []*harness.Result, o Options) error {
	title := o.Title
	if title == "" {
		title = o.Tool + " test-destination report"
	}
	rep := htmlDestReport{HTMLPage: NewHTMLPage(title, o.Home, o.Tool, "'none'"), Version: o.Version,
		Strict: o.Strict, Summary: harness.Summarize(results, o.Strict),
		Fails: DestinationExitCode(results, o.Strict) != ExitOK}
	seen := map[string]bool{}
	for i, r := range results {
		sc := htmlScenario{ID: fmt.Sprintf("scenario-%d", i+1), Name: r.Scenario, Description: r.Description,
			Source: r.Source, Dir: r.Dir, Command: strings.Join(r.Command, " "), Duration: fmt.Sprintf("%.1fs", r.Duration),
			Interrupted: r.Interrupted, Counts: harness.Summarize([]*harness.Result{r}, o.Strict)}
		var ran []harness.StepResult
		for _, st := range r.Steps {
			if !st.Ran {
				sc.NotRun = append(sc.NotRun, fmt.Sprintf("%d (%s)", st.Step, st.Name))
				continue
			}
			ran = append(ran, st)
			hs := htmlStep{Step: st.Step, Name: st.Name, Time: st.Time.UTC().Format("2006-01-02T15:04:05Z")}
			if st.Run != nil {
				hs.Exit, hs.TimedOut, hs.Requests = st.Run.Exit(), st.Run.TimedOut, st.Run.Requests
				hs.Seconds = fmt.Sprintf("%.1fs", st.Run.Seconds)
				hs.Output, hs.Stderr = strings.TrimSpace(st.Run.Output), strings.TrimSpace(st.Run.Stderr)
			}
			sc.Steps = append(sc.Steps, hs)
		}
		// Rows in the order the requirements are declared, then any other
		// ID met (a requirement the catalogue does not know still shows).
		row := map[string]int{}
		addRow := func(v harness.Verdict) {
			if _, ok := row[v.ID]; ok {
				return
			}
			row[v.ID] = len(sc.Rows)
			sc.Rows = append(sc.Rows, htmlRequirementRow{ID: v.ID, Level: string(v.Level), Section: v.Section,
				Title: v.Title, Cells: make([]htmlVerdict, len(ran))})
		}
		for _, req := range harness.Requirements {
			for _, st := range ran {
				for _, v := range st.Verdicts {
					if v.ID == req.ID {
						addRow(v)
					}
				}
			}
		}
		for _, st := range ran {
			for _, v := range st.Verdicts {
				addRow(v)
			}
		}
		for c, st := range ran {
			for _, v := range st.Verdicts {
				sc.Rows[row[v.ID]].Cells[c] = verdictCell(v, o.Strict)
				seen[v.ID] = true
			}
		}
		rep.Scenarios = append(rep.Scenarios, sc)
	}
	for _, req := range harness.Requirements {
		if seen[req.ID] {
			rep.Requirements = append(rep.Requirements, req)
		}
	}
	return HTMLTemplates().ExecuteTemplate(w, "destination", rep)
}

// verdictCell is how one verdict shows in the matrix.
func verdictCell(v harness.Verdict, strict bool) htmlVerdict {
	c := htmlVerdict{Present: true, Status: string(v.Status), Expected: v.Expected, Actual: v.Actual}
	switch {
	case v.Fails(strict):
		c.Class, c.Mark = "fail", "✗"
	case v.Status == harness.Fail:
		c.Class, c.Mark, c.Status = "warnfail", "✗", "fail ("+string(v.Level)+", fails only with --strict)"
	case v.Status == harness.Pass:
		c.Class, c.Mark = "pass", "✓"
	case v.Status == harness.NotObserved:
		c.Class, c.Mark, c.Status = "notobserved", "?", "not observed"
	default:
		c.Class, c.Mark = "skip", "–"
	}
	c.Evidence = v.Evidence
	if len(c.Evidence) > evidenceShown {
		c.Evidence, c.More = c.Evidence[:evidenceShown], len(v.Evidence)-evidenceShown
	}
	return c
}
