package harness

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rsconform/rsconform/internal/words"
)

// Requirements no standard states: politeness, efficiency, telling the
// user about a broken Source. Level POLICY: they fail a run only under
// --strict.

// ProblemsReported: what the Source served broken is reported, not
// swallowed.
var ProblemsReported = &Requirement{
	ID: "DEST-REPORT", Section: "policy", Level: Policy, Basis: FromLog,
	Title:  "a broken document or content failing fixity is reported",
	Passes: "After receiving a malformed document or content under a wrong hash, the Destination exits non-zero, or names each URL on standard error.",
	Fails:  "It exits 0 (or dies by a signal) and no line of its standard error names what was broken.",
	Doc: "When the log shows that the Destination received a document that is not well-formed (a malformed " +
		"fault) or the content of a resource listed under a wrong hash, the Destination reports it: it " +
		"exits with a non-zero status, or a line of its standard error names the URL (or the path) of " +
		"each. Not observed when such a fault was armed but the Destination did not fetch it.",
	Check: checkReported,
}

func checkReported(st *Step) Outcome {
	const want = "a non-zero exit, or the URL named on standard error"
	armed := len(st.WrongHash) > 0
	for _, f := range st.Faults {
		armed = armed || f.Malformed
	}
	var served []string // paths
	var lines []string
	seen := map[string]bool{}
	for _, r := range st.Requests {
		p := requestKey(r)
		broken := strings.Contains(r.Fault, "malformed") || (r.Method == "GET" && r.Status == 200 && st.WrongHash[p])
		if broken && !seen[r.Path] {
			seen[r.Path] = true
			served = append(served, r.Path)
			lines = append(lines, requestLine(r))
		}
	}
	switch {
	case len(served) == 0 && !armed:
		return Outcome{Status: Skip, Expected: want, Actual: "the Source served nothing broken to report"}
	case len(served) == 0:
		return Outcome{Status: NotObserved, Expected: want, Actual: "a broken document or a wrong hash was armed, but the Destination did not fetch it in this run"}
	case st.Run.ExitCode != 0 && !st.Run.TimedOut && !st.Run.Crashed():
		return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("exit %d after %s", st.Run.ExitCode, list(lines)),
			Evidence: append(lines, fmt.Sprintf("exit status %d", st.Run.ExitCode))}
	}
	var unnamed, unnamedLines, evidence []string
	for i, p := range served {
		if l := lineNaming(st.Run.Stderr, p); l != "" {
			evidence = append(evidence, lines[i], "stderr: "+l)
		} else {
			unnamed, unnamedLines = append(unnamed, p), append(unnamedLines, lines[i])
		}
	}
	if len(unnamed) > 0 {
		return Outcome{Status: Fail, Expected: want,
			Actual:   fmt.Sprintf("%s and no line of standard error names %s", st.Run.Exit(), list(unnamed)),
			Evidence: unnamedLines}
	}
	return Outcome{Status: Pass, Expected: want, Actual: "named on standard error", Evidence: evidence}
}

// lineNaming is the first line of out that holds p, or "".
func lineNaming(out, p string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, p) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// NoRefetch: resources the Destination holds in their current state are
// not downloaded again.
var NoRefetch = &Requirement{
	ID: "DEST-NO-REFETCH", Section: "1.3", Level: Policy, Basis: FromLog,
	Title:  "unchanged resources are not downloaded again",
	Passes: "No 200 GET of a resource DIR held with its current content before the run, none downloaded twice.",
	Fails:  "A resource held unchanged is downloaded again.",
	Quote:  "For example, when the Source expresses the datetime of the most recent modification for a resource, a Destination can determine whether or not it already holds the current version, minimizing the number of HTTP requests it needs to issue in order to remain up-to-date.",
	Doc: "An efficiency the specification makes possible (informative, \"can\") but does not require. The " +
		"mock gives lastmod and hash for every resource, so a Destination can tell. Fails on a 200 GET of " +
		"a resource DIR held with its current content before the run, or of one downloaded completely " +
		"twice in the run. Not observed in a run that made no request.",
	Check: checkRefetch,
}

func checkRefetch(st *Step) Outcome {
	const want = "no download of a resource held unchanged"
	if st.First {
		return Outcome{Status: Skip, Expected: want, Actual: "first run: nothing held yet"}
	}
	if len(st.Requests) == 0 {
		return Outcome{Status: NotObserved, Expected: want, Actual: "the Destination made no request in this run"}
	}
	var again []string
	complete := map[string]bool{}
	held, downloads := 0, 0
	for p, e := range st.Expected {
		if st.Before[p] == e.SHA256 && !st.WrongHash[p] {
			held++
		}
	}
	for _, r := range st.Requests {
		p := requestKey(r)
		e, ok := st.Expected[p]
		if !ok || st.WrongHash[p] || r.Method != "GET" || r.Status != 200 {
			continue
		}
		downloads++
		switch {
		case st.Before[p] == e.SHA256:
			again = append(again, p+" (held unchanged)")
		case complete[p]:
			again = append(again, p+" (downloaded twice)")
		}
		if !strings.Contains(r.Fault, "truncate") && !strings.Contains(r.Fault, "malformed") {
			complete[p] = true
		}
	}
	if len(again) > 0 {
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d: %s", len(again), list(again)), Evidence: again}
	}
	return Outcome{Status: Pass, Expected: want, Actual: "none",
		Evidence: []string{fmt.Sprintf("%s held unchanged before the run; %s in the run (%s), none of them",
			words.Count(held, "resource"), words.Count(downloads, "resource download"), words.Count(len(st.Requests), "request"))}}
}

// NoDeletedFetch: resources the Source deleted are not requested.
var NoDeletedFetch = &Requirement{
	ID: "DEST-NO-DELETED-FETCH", Section: "policy", Level: Policy, Basis: FromLog,
	Title:  "deleted resources are not requested",
	Passes: "No request for a resource the Source has deleted.",
	Fails:  "A deleted resource is requested.",
	Doc: "A Change List says which resources were deleted; asking for them again costs the Source requests. " +
		"Not observed in a run that made no request.",
	Check: checkDeletedFetch,
}

func checkDeletedFetch(st *Step) Outcome {
	const want = "no request for a deleted resource"
	if len(st.Deleted) == 0 {
		return Outcome{Status: Skip, Expected: want, Actual: st.noDeletion()}
	}
	if len(st.Requests) == 0 {
		return Outcome{Status: NotObserved, Expected: want, Actual: "the Destination made no request in this run"}
	}
	var gets []string
	for _, r := range st.Requests {
		if st.Deleted[requestKey(r)] {
			gets = append(gets, requestLine(r))
		}
	}
	if len(gets) > 0 {
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d: %s", len(gets), list(gets)), Evidence: gets}
	}
	return Outcome{Status: Pass, Expected: want, Actual: "none",
		Evidence: []string{fmt.Sprintf("%s in the run, none for the %s", words.Count(len(st.Requests), "request"), words.Count(len(st.Deleted), "deleted resource"))}}
}

// RateLimit: the Destination does not flood the Source.
var RateLimit = &Requirement{
	ID: "DEST-RATE", Section: "policy", Level: Policy, Basis: FromLog,
	Title:  "the request rate stays within the limit",
	Passes: "At most --max-rate requests in every one-second window of the run.",
	Fails:  "More requests than --max-rate in some second.",
	Doc: "At most --max-rate requests in any one second of the run (by the times the mock received them). " +
		"Not observed in a run that made no request.",
	Check: checkRate,
}

func checkRate(st *Step) Outcome {
	if st.MaxRate <= 0 {
		return Outcome{Status: Skip, Expected: "a request rate limit", Actual: "not checked (no --max-rate)"}
	}
	want := fmt.Sprintf("at most %g requests in any second", st.MaxRate)
	if len(st.Requests) == 0 {
		return Outcome{Status: NotObserved, Expected: want, Actual: "the Destination made no request in this run"}
	}
	times := make([]time.Time, len(st.Requests))
	for i, r := range st.Requests {
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
	evidence := []string{fmt.Sprintf("%s in the run; the busiest second, from %s, had %d", words.Count(len(times), "request"), at.Format("15:04:05.000"), peak)}
	if float64(peak) > st.MaxRate {
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d requests in the second from %s", peak, at.Format("15:04:05.000")), Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("at most %d", peak), Evidence: evidence}
}
