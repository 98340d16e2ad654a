package harness

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rsconform/rsconform/internal/digits"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// Step is what a requirement's Check sees of one run of the Destination:
// the run, the Source's state, DIR before and after, and the requests of
// the run from the mock's log.
type Step struct {
	Number int
	// Scenario is the scenario played.
	Scenario *scenario.Scenario
	// First is true for the first run of the command (DIR was empty).
	First bool
	Run   *RunInfo
	// Timeout and MaxRate are the harness's settings.
	Timeout time.Duration
	MaxRate float64
	// Expected is what a synchronised Destination holds now, by path.
	Expected map[string]mocksource.ExpectedResource
	// Before and After hash DIR's files by path, before and after the run;
	// AfterLength gives the length of each file after it.
	Before, After map[string]string
	AfterLength   map[string]int64
	// Requests are the requests of the run, oldest first; Lost counts
	// requests the log dropped (it overflowed).
	Requests []mocksource.Request
	Lost     int64
	// Faults are the faults armed during the run.
	Faults []*scenario.Fault
	// WrongHash holds the live resources the Source lists with a hash
	// that does not match what it serves.
	WrongHash map[string]bool
	// Deleted holds the resources that were live at an earlier step and
	// are not now; DeletedEver says whether the Source has deleted any
	// resource so far (some may have been created again).
	Deleted     map[string]bool
	DeletedEver bool
	// Ever holds every path that was a live resource at some step.
	Ever map[string]bool
	// Broken lists what the Source served broken in this run (faults that
	// fired, content under a wrong hash), as evidence lines; a non-zero
	// exit after any of them is the Destination reporting it.
	Broken []string
	// RunFailed says why the run cannot be judged further (timed out,
	// non-zero exit with nothing broken served); empty when it can.
	RunFailed string
	// byKey indexes Requests by DIR name, made on first use by wire.
	byKey map[string][]mocksource.Request
	// Stopped says that the run ended with a non-zero exit after the
	// Source served something broken: the requirements that DIR is up to
	// date are not judged. Empty otherwise.
	Stopped string
}

// noDeletion says truly why no resource is deleted at this step.
func (st *Step) noDeletion() string {
	if st.DeletedEver {
		return "no resource is deleted at the Source now (those deleted earlier were created again)"
	}
	return "the Source has deleted nothing so far"
}

// judge keeps what spans runs: every path ever live, deletions seen.
type judge struct {
	cfg         *Config
	sc          *scenario.Scenario
	ever        map[string]bool
	deletedEver bool
	runs        int
}

// brokenFaults are the names of the faults (as the log writes them) that
// serve something broken; latency and redirects are not broken.
var brokenFaults = []string{"drop", "status=", "truncate=", "malformed"}

// newStep gathers what the checks of one run see.
// faults are those the mock Source has armed at this step
// (mocksource.Source.ArmedFaults).
func (j *judge) newStep(step int, info *RunInfo, expected map[string]mocksource.ExpectedResource,
	before, after dirState, reqs []mocksource.Request, lost int64, faults []*scenario.Fault) *Step {
	st := &Step{Number: step, Scenario: j.sc, First: j.runs == 0, Run: info, Timeout: j.cfg.Timeout, MaxRate: j.cfg.MaxRate,
		Expected: expected, Before: before.Hashes, After: after.Hashes, AfterLength: after.Lengths,
		Requests: reqs, Lost: lost,
		Faults: faults, WrongHash: map[string]bool{}, Deleted: map[string]bool{}, Ever: j.ever}
	j.runs++
	for p, e := range expected {
		if e.ListedSHA256 != "" {
			st.WrongHash[p] = true
		}
	}
	for p := range j.ever {
		if _, live := expected[p]; !live {
			st.Deleted[p] = true
		}
	}
	j.deletedEver = j.deletedEver || len(st.Deleted) > 0
	st.DeletedEver = j.deletedEver
	for _, r := range reqs {
		for _, f := range brokenFaults {
			if strings.Contains(r.Fault, f) {
				st.Broken = append(st.Broken, requestLine(r))
				break
			}
		}
		if r.Method == "GET" && r.Status == 200 && st.WrongHash[requestKey(r)] {
			st.Broken = append(st.Broken, requestLine(r)+" served under a wrong hash")
		}
	}
	switch {
	case info.TimedOut:
		st.RunFailed = "killed at the timeout"
	case info.Crashed():
		// A death by signal is a crash, whatever was served before it.
		st.RunFailed = info.Exit()
	case info.ExitCode != 0 && len(st.Broken) == 0:
		st.RunFailed = fmt.Sprintf("exit %d with nothing broken served", info.ExitCode)
	case info.ExitCode != 0:
		st.Stopped = fmt.Sprintf("exit %d after the Source served %s", info.ExitCode, words.Count(len(st.Broken), "broken response"))
	}
	return st
}

// verdicts judges one run on the selected requirements.
func (j *judge) verdicts(st *Step) []Verdict {
	var vs []Verdict
	for _, r := range Requirements {
		if !j.cfg.Selects(r.ID) {
			continue
		}
		var o Outcome
		switch {
		case r.Basis == FromDir && st.RunFailed != "":
			o = Outcome{Status: Skip, Expected: "judged from DIR after the run",
				Actual: "not judged: the run failed (" + st.RunFailed + ")"}
		case r.UpToDate && st.Stopped != "":
			o = Outcome{Status: Skip, Expected: "judged from DIR after a run that completed",
				Actual:   "not judged: the Destination stopped on what the Source served broken (" + st.Stopped + "); the next run is judged",
				Evidence: st.Broken}
		case r.Basis == FromLog && st.Lost > 0:
			o = Outcome{Status: Skip, Expected: "judged from the request log",
				Actual: fmt.Sprintf("not judged: the mock's request log overflowed (%d requests lost; raise Source.LogSize)", st.Lost)}
		default:
			o = r.Check(st)
		}
		vs = append(vs, Verdict{ID: r.ID, Section: r.Section, Level: r.Level, Title: r.Title,
			Status: o.Status, Expected: o.Expected, Actual: o.Actual, Evidence: o.Evidence})
	}
	return vs
}

// requestLine is a request as evidence: "GET /res/1.txt 200 (malformed)";
// "GET {origin2}/res/1.txt 200" on the second origin.
func requestLine(r mocksource.Request) string {
	target := r.Path
	if r.Origin == 2 {
		target = "{origin2}" + target
	}
	if r.Query != "" {
		target += "?" + r.Query
	}
	s := fmt.Sprintf("%s %s %d", r.Method, target, r.Status)
	if r.Status == 0 {
		s = fmt.Sprintf("%s %s (no response)", r.Method, target)
	}
	if r.Fault != "" {
		s += " (" + r.Fault + ")"
	}
	return s
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// list shows the first few items.
func list(items []string) string {
	s := sorted(items)
	if len(s) > 5 {
		return strings.Join(s[:5], ", ") + fmt.Sprintf(" and %d more", len(s)-5)
	}
	return strings.Join(s, ", ")
}

// wire says what the request log shows of the resource at DIR name p in
// this run, for the verdicts on DIR: "GET /res/x.txt 500 (status=500), not
// asked again", "GET /res/x.txt 301 (redirect=301); GET /moved/res/x.txt
// 200, 1,184 bytes", "not requested in this run".
func (st *Step) wire(p string) string {
	if st.byKey == nil {
		st.byKey = map[string][]mocksource.Request{}
		for _, r := range st.Requests {
			k := requestKey(r)
			st.byKey[k] = append(st.byKey[k], r)
		}
	}
	reqs := st.byKey[p]
	if len(reqs) == 0 {
		if st.Lost > 0 {
			return "not in the request log of this run (it overflowed)"
		}
		return "not requested in this run"
	}
	var parts []string
	if len(reqs) > 4 {
		parts = append(parts, fmt.Sprintf("%d requests, the last 4:", len(reqs)))
		reqs = reqs[len(reqs)-4:]
	}
	for _, r := range reqs {
		l := requestLine(r)
		if r.Status == 200 && r.Method == "GET" {
			l += ", " + byteCount(r.Bytes) + " sent"
		}
		parts = append(parts, l)
	}
	s := "the log: " + strings.Join(parts, "; ")
	if last := reqs[len(reqs)-1]; last.Status == 0 || last.Status >= 400 {
		s += ", not asked again"
	}
	return s
}

// byteCount is "1,184 bytes".
func byteCount(n int64) string {
	return digits.Grouped(n) + " " + words.Noun(int(n), "byte")
}

func sortedKeys(m map[string]mocksource.ExpectedResource) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
