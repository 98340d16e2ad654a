package harness

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rsconform/rsconform/mocksource"
)

// Requirements checked after each run of the Destination. IDs are stable.
const (
	ReqRun           = "DEST-RUN"
	ReqPresent       = "DEST-PRESENT"
	ReqCurrent       = "DEST-CURRENT"
	ReqDeleted       = "DEST-DELETED"
	ReqExtra         = "DEST-EXTRA"
	ReqFixity        = "DEST-FIXITY"
	ReqNoRefetch     = "DEST-NO-REFETCH"
	ReqNoDeletedGets = "DEST-NO-DELETED-FETCH"
	ReqRetryAfter    = "DEST-RETRY-AFTER"
	ReqRate          = "DEST-RATE"
)

// Requirement describes one requirement: its section and title.
type Requirement struct {
	ID, Section, Title string
}

// Requirements lists the requirements in the order they are judged.
var Requirements = []Requirement{
	{ReqRun, "run", "the Destination finishes within the timeout"},
	{ReqPresent, "5.2", "every resource of the Source is present"},
	{ReqCurrent, "5.2", "every copy has the Source's current content"},
	{ReqDeleted, "12.1", "deleted resources are removed"},
	{ReqExtra, "5.2", "no file the Source never had"},
	{ReqFixity, "7", "content that fails fixity is not kept"},
	{ReqNoRefetch, "10.1", "unchanged resources are not downloaded again"},
	{ReqNoDeletedGets, "12.1", "deleted resources are not requested"},
	{ReqRetryAfter, "RFC 9110 10.2.3", "Retry-After is honoured"},
	{ReqRate, "politeness", "the request rate stays within the limit"},
}

func requirement(id string) Requirement {
	for _, r := range Requirements {
		if r.ID == id {
			return r
		}
	}
	panic("harness: unknown requirement " + id)
}

type judge struct {
	cfg  *Config
	sc   *mocksource.Scenario
	ever map[string]bool // every path that was a live resource at some step
	runs int
}

// movedPrefix is where the mock serves the targets of its redirect faults.
const movedPrefix = "/moved/"

func resourcePath(p string) string {
	if strings.HasPrefix(p, movedPrefix) {
		return p[len(movedPrefix)-1:]
	}
	return p
}

// activeFaults are the faults armed after the first step steps.
func activeFaults(sc *mocksource.Scenario, step int) []*mocksource.Fault {
	var out []*mocksource.Fault
	for i := 0; i < step && i < len(sc.Steps); i++ {
		for _, a := range sc.Steps[i].Actions {
			switch a.Op {
			case mocksource.OpFault:
				out = append(out, a.Fault)
			case mocksource.OpClearFaults:
				var kept []*mocksource.Fault
				for _, f := range out {
					if a.Match != "" && f.Match != a.Match {
						kept = append(kept, f)
					}
				}
				out = kept
			}
		}
	}
	return out
}

func (j *judge) verdicts(step int, info *RunInfo, expected map[string]mocksource.ExpectedResource,
	before, after map[string]string, reqs []mocksource.Request, lost int64) []Verdict {
	first := j.runs == 0
	j.runs++
	faults := activeFaults(j.sc, step)
	wrongHash := map[string]bool{}
	for p := range expected {
		for _, f := range faults {
			if f.WrongHash && f.Matches(p) {
				wrongHash[p] = true
			}
		}
	}
	deleted := map[string]bool{}
	for p := range j.ever {
		if _, live := expected[p]; !live {
			deleted[p] = true
		}
	}
	var vs []Verdict
	add := func(id string, st Status, expected, actual string, details []string) {
		r := requirement(id)
		vs = append(vs, Verdict{ID: id, Section: r.Section, Title: r.Title, Status: st, Expected: expected, Actual: actual, Details: details})
	}

	// The run itself.
	limit := j.cfg.Timeout.String()
	switch {
	case info.TimedOut:
		add(ReqRun, Fail, "finished within "+limit, fmt.Sprintf("killed after %s (still running at the timeout)", limit), nil)
	default:
		add(ReqRun, Pass, "finished within "+limit, fmt.Sprintf("exit %d after %.1fs, %d requests", info.ExitCode, info.Seconds, info.Requests), nil)
	}

	// Coverage and accuracy (5.2).
	var missing, stale []string
	for p, e := range expected {
		if wrongHash[p] {
			continue
		}
		got, ok := after[p]
		switch {
		case !ok:
			missing = append(missing, p)
		case got != e.SHA256:
			stale = append(stale, fmt.Sprintf("%s (sha256 %s, the Source's %s)", p, short(got), short(e.SHA256)))
		}
	}
	live := len(expected) - len(wrongHash)
	if len(missing) == 0 {
		add(ReqPresent, Pass, fmt.Sprintf("%d resources present", live), fmt.Sprintf("%d present", live), nil)
	} else {
		if len(missing) == 1 {
			add(ReqPresent, Fail, missing[0]+" present", "absent", missing)
		} else {
			add(ReqPresent, Fail, fmt.Sprintf("%d resources present", live), fmt.Sprintf("%d missing: %s", len(missing), list(missing)), sorted(missing))
		}
	}
	if len(stale) == 0 {
		add(ReqCurrent, Pass, "every copy with the Source's content (sha256)", fmt.Sprintf("%d current", live-len(missing)), nil)
	} else {
		add(ReqCurrent, Fail, "every copy with the Source's content (sha256)", fmt.Sprintf("%d stale: %s", len(stale), list(stale)), sorted(stale))
	}

	var stillThere []string
	for p := range deleted {
		if _, ok := after[p]; ok {
			stillThere = append(stillThere, p)
		}
	}
	switch {
	case len(deleted) == 0:
		add(ReqDeleted, Skip, "deleted resources absent", "the Source has deleted nothing yet", nil)
	case len(stillThere) == 0:
		add(ReqDeleted, Pass, fmt.Sprintf("%d deleted resources absent", len(deleted)), "absent", nil)
	default:
		if len(stillThere) == 1 {
			add(ReqDeleted, Fail, stillThere[0]+" absent", "present", stillThere)
		} else {
			add(ReqDeleted, Fail, fmt.Sprintf("%d deleted resources absent", len(deleted)), fmt.Sprintf("%d present: %s", len(stillThere), list(stillThere)), sorted(stillThere))
		}
	}

	var extra []string
	for p := range after {
		if !j.ever[p] {
			extra = append(extra, p)
		}
	}
	if len(extra) == 0 {
		add(ReqExtra, Pass, "no other files", "none", nil)
	} else {
		add(ReqExtra, Fail, "no other files", fmt.Sprintf("%d extra: %s", len(extra), list(extra)), sorted(extra))
	}

	// Fixity (section 7): content served under a wrong hash is not taken.
	if len(wrongHash) == 0 {
		add(ReqFixity, Skip, "content failing fixity not kept", "the Source advertises no wrong hash", nil)
	} else {
		var accepted []string
		for p := range wrongHash {
			e, ok := expected[p]
			if ok && after[p] == e.SHA256 && before[p] != e.SHA256 {
				accepted = append(accepted, p)
			}
		}
		if len(accepted) == 0 {
			add(ReqFixity, Pass, list(keys(wrongHash))+" not taken", "not taken", nil)
		} else {
			add(ReqFixity, Fail, list(accepted)+" not taken", fmt.Sprintf("taken although the hash the Source gives does not match (%d)", len(accepted)), sorted(accepted))
		}
	}

	// Behaviour, from the request log.
	if lost > 0 {
		why := fmt.Sprintf("not judged: the mock's request log overflowed (%d requests lost; raise Source.LogSize)", lost)
		for _, id := range []string{ReqNoRefetch, ReqNoDeletedGets, ReqRetryAfter, ReqRate} {
			add(id, Skip, "judged from the request log", why, nil)
		}
		return vs
	}
	j.refetch(add, first, expected, before, wrongHash, reqs)
	var deletedGets []string
	for _, r := range reqs {
		if p := resourcePath(r.Path); deleted[p] {
			deletedGets = append(deletedGets, fmt.Sprintf("%s %s (%d)", r.Method, r.Path, r.Status))
		}
	}
	switch {
	case len(deleted) == 0:
		add(ReqNoDeletedGets, Skip, "no request for a deleted resource", "the Source has deleted nothing yet", nil)
	case len(deletedGets) == 0:
		add(ReqNoDeletedGets, Pass, "no request for a deleted resource", "none", nil)
	default:
		add(ReqNoDeletedGets, Fail, "no request for a deleted resource", fmt.Sprintf("%d: %s", len(deletedGets), list(deletedGets)), deletedGets)
	}
	j.retryAfter(add, faults, reqs)
	j.rate(add, reqs)
	return vs
}

// refetch finds downloads of resources the Destination already held in
// their current state (the Source gives lastmod and hash for every
// resource, so a Destination can tell), and second downloads within a
// run.
func (j *judge) refetch(add func(string, Status, string, string, []string), first bool,
	expected map[string]mocksource.ExpectedResource, before map[string]string, wrongHash map[string]bool, reqs []mocksource.Request) {
	if first {
		add(ReqNoRefetch, Skip, "no download of a resource held unchanged", "first run: nothing held yet", nil)
		return
	}
	var again []string
	complete := map[string]bool{}
	for _, r := range reqs {
		p := resourcePath(r.Path)
		e, ok := expected[p]
		if !ok || wrongHash[p] || r.Method != "GET" || r.Status != 200 {
			continue
		}
		switch {
		case before[p] == e.SHA256:
			again = append(again, p+" (held unchanged)")
		case complete[p]:
			again = append(again, p+" (downloaded twice)")
		}
		if !strings.Contains(r.Fault, "truncate") && !strings.Contains(r.Fault, "malformed") {
			complete[p] = true
		}
	}
	if len(again) == 0 {
		add(ReqNoRefetch, Pass, "no download of a resource held unchanged", "none", nil)
	} else {
		add(ReqNoRefetch, Fail, "no download of a resource held unchanged", fmt.Sprintf("%d: %s", len(again), list(again)), again)
	}
}

// retryAfter checks that after a 429 or 503 with Retry-After (from a
// fault of the scenario), the same URI was not asked again too early.
func (j *judge) retryAfter(add func(string, Status, string, string, []string), faults []*mocksource.Fault, reqs []mocksource.Request) {
	const slack = 100 * time.Millisecond
	seen := 0
	var early []string
	for i, r := range reqs {
		if r.Status != 429 && r.Status != 503 {
			continue
		}
		var wait time.Duration
		for _, f := range faults {
			if f.Status == r.Status && f.RetryAfter > 0 && f.Matches(r.Path) {
				wait = (f.RetryAfter + time.Second - 1).Truncate(time.Second)
			}
		}
		if wait == 0 {
			continue
		}
		seen++
		for _, n := range reqs[i+1:] {
			if n.Path != r.Path {
				continue
			}
			gap := n.Received.Sub(r.Received.Add(r.Duration))
			if gap < wait-slack {
				early = append(early, fmt.Sprintf("%s asked again %.2fs after a %d with Retry-After %v", r.Path, gap.Seconds(), r.Status, wait))
			}
			break
		}
	}
	switch {
	case seen == 0:
		add(ReqRetryAfter, Skip, "no request before Retry-After has passed", "no Retry-After was served", nil)
	case len(early) == 0:
		add(ReqRetryAfter, Pass, "no request before Retry-After has passed", fmt.Sprintf("%d Retry-After honoured", seen), nil)
	default:
		add(ReqRetryAfter, Fail, "no request before Retry-After has passed", fmt.Sprintf("%d ignored: %s", len(early), list(early)), early)
	}
}

// rate finds the most requests in any one second.
func (j *judge) rate(add func(string, Status, string, string, []string), reqs []mocksource.Request) {
	if j.cfg.MaxRate <= 0 {
		add(ReqRate, Skip, "a request rate limit", "not checked (no --max-rate)", nil)
		return
	}
	times := make([]time.Time, len(reqs))
	for i, r := range reqs {
		times[i] = r.Received
	}
	sort.Slice(times, func(a, b int) bool { return times[a].Before(times[b]) })
	peak, at := 0, time.Time{}
	lo := 0
	for hi := range times {
		for times[hi].Sub(times[lo]) >= time.Second {
			lo++
		}
		if n := hi - lo + 1; n > peak {
			peak, at = n, times[lo]
		}
	}
	want := fmt.Sprintf("at most %g requests in any second", j.cfg.MaxRate)
	if float64(peak) > j.cfg.MaxRate {
		add(ReqRate, Fail, want, fmt.Sprintf("%d requests in the second from %s", peak, at.Format("15:04:05.000")), nil)
	} else {
		add(ReqRate, Pass, want, fmt.Sprintf("at most %d", peak), nil)
	}
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
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
