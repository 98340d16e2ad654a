package harness

import (
	"fmt"
	"strings"
)

// Section 5.2, Destination Perspective: what "synchronized" means for a
// Destination that keeps a copy of the Source in DIR. The harness reads
// it as a mirror: after each run DIR holds every resource the Source
// lists, with its current content, and nothing else.

// RunCompletes is the run itself: a Destination that crashes or hangs has
// not synchronised, whatever it left in DIR.
var RunCompletes = &Requirement{
	ID: "DEST-RUN", Section: "5.2", Level: Must, Basis: FromRun,
	Title: "the Destination's run completes",
	Quote: "In order to become synchronized with a Source, the Destination must make an initial copy of the Source's data.",
	Doc: "The run must end within the timeout with exit status 0, or with a non-zero status after the Source " +
		"served something broken in that run (a fault of the scenario fired, or content under a wrong hash): " +
		"the exit status is then the Destination reporting it. After a run that fails, the requirements " +
		"judged from DIR are not judged; after a non-zero exit that reports a broken Source, those that DIR " +
		"is up to date (DEST-PRESENT, DEST-CURRENT, DEST-DELETED) are not judged: no requirement makes a " +
		"Destination retry a broken document or a failing server, and the next run is judged.",
	Check: checkRun,
}

func checkRun(st *Step) Outcome {
	limit := st.Timeout.String()
	want := "finished within " + limit + " with exit 0 (or non-zero after the Source served something broken)"
	info := st.Run
	switch {
	case info.TimedOut:
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("killed after %s (still running at the timeout)", limit),
			Evidence: outputEvidence(info.Output)}
	case info.ExitCode != 0 && st.RunFailed != "":
		return Outcome{Status: Fail, Expected: want,
			Actual:   fmt.Sprintf("exit %d after %.1fs, %d requests, nothing broken served: the content is not judged", info.ExitCode, info.Seconds, info.Requests),
			Evidence: outputEvidence(info.Output)}
	case info.ExitCode != 0:
		return Outcome{Status: Pass, Expected: want,
			Actual:   fmt.Sprintf("exit %d after %.1fs, %d requests, after the Source served %s", info.ExitCode, info.Seconds, info.Requests, plural(len(st.Broken), "broken response")),
			Evidence: st.Broken}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("exit 0 after %.1fs, %d requests", info.Seconds, info.Requests),
		Evidence: []string{fmt.Sprintf("exit status 0 after %.1fs", info.Seconds)}}
}

// outputEvidence is the end of the command's output, as evidence.
func outputEvidence(out string) []string {
	out = strings.TrimSpace(out)
	if out == "" {
		return []string{"no output"}
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	for i, l := range lines {
		lines[i] = "output: " + l
	}
	return lines
}

// AllPresent is coverage: every resource of the Source is in DIR.
var AllPresent = &Requirement{
	ID: "DEST-PRESENT", Section: "5.2", Level: Must, Basis: FromDir, UpToDate: true,
	Title: "every resource of the Source is present",
	Quote: "In order to verify whether it is in sync with the Source, a Destination must be able to check that the content it obtained matches the current resources hosted by the Source both regarding coverage and accuracy.",
	Doc: "Each resource the Source lists now (GET /_rsconform/expected) has a file in DIR at the path the " +
		"URI maps to. Resources served under a wrong hash are left to DEST-FIXITY.",
	Check: checkPresent,
}

func checkPresent(st *Step) Outcome {
	var missing []string
	for p := range st.Expected {
		if _, ok := st.After[p]; !ok && !st.WrongHash[p] {
			missing = append(missing, p)
		}
	}
	live := len(st.Expected) - len(st.WrongHash)
	want := plural(live, "resource") + " present"
	switch {
	case len(missing) == 1:
		return Outcome{Status: Fail, Expected: missing[0] + " present", Actual: "absent", Evidence: missing}
	case len(missing) > 0:
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d missing: %s", len(missing), list(missing)), Evidence: sorted(missing)}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d present", live),
		Evidence: []string{fmt.Sprintf("%d files in DIR, one for each resource the Source lists", live)}}
}

// AllCurrent is accuracy: every copy has the Source's current content.
var AllCurrent = &Requirement{
	ID: "DEST-CURRENT", Section: "5.2", Level: Must, Basis: FromDir, UpToDate: true,
	Title: "every copy has the Source's current content",
	Quote: AllPresent.Quote,
	Doc:   "Each file of a resource the Source lists has the SHA-256 of the content the Source serves now.",
	Check: checkCurrent,
}

func checkCurrent(st *Step) Outcome {
	var stale []string
	current := 0
	for p, e := range st.Expected {
		got, ok := st.After[p]
		switch {
		case !ok || st.WrongHash[p]:
		case got != e.SHA256:
			stale = append(stale, fmt.Sprintf("%s (sha256 %s, the Source's %s)", p, short(got), short(e.SHA256)))
		default:
			current++
		}
	}
	want := "every copy with the Source's content (sha256)"
	if len(stale) > 0 {
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d stale: %s", len(stale), list(stale)), Evidence: sorted(stale)}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d current", current),
		Evidence: []string{fmt.Sprintf("%d files in DIR with the SHA-256 of the Source's content", current)}}
}

// DeletedRemoved: a copy of a resource the Source deleted is not in sync.
var DeletedRemoved = &Requirement{
	ID: "DEST-DELETED", Section: "5.2", Level: Must, Basis: FromDir, UpToDate: true,
	Title: "deleted resources are removed",
	Quote: "It also allows a Destination to remove its copies of deleted resources, if needed.",
	Doc: "The harness tests Destinations that keep DIR in sync with the Source, for which removing is needed: " +
		"a file of a resource the Source no longer lists fails coverage and accuracy (5.2, Audit).",
	Check: checkDeleted,
}

func checkDeleted(st *Step) Outcome {
	const want = "deleted resources absent"
	if len(st.Deleted) == 0 {
		return Outcome{Status: Skip, Expected: want, Actual: st.noDeletion()}
	}
	var still, evidence []string
	for _, p := range keys(st.Deleted) {
		_, had := st.Before[p]
		_, has := st.After[p]
		switch {
		case has:
			still = append(still, p)
		case had:
			evidence = append(evidence, p+": removed in this run")
		default:
			evidence = append(evidence, p+": absent before and after the run")
		}
	}
	switch {
	case len(still) == 1:
		return Outcome{Status: Fail, Expected: still[0] + " absent", Actual: "present", Evidence: still}
	case len(still) > 0:
		return Outcome{Status: Fail, Expected: fmt.Sprintf("%d deleted resources absent", len(st.Deleted)),
			Actual: fmt.Sprintf("%d present: %s", len(still), list(still)), Evidence: still}
	}
	return Outcome{Status: Pass, Expected: fmt.Sprintf("%s absent", plural(len(st.Deleted), "deleted resource")), Actual: "absent", Evidence: evidence}
}

// NoExtraFiles: DIR holds nothing the Source never had.
var NoExtraFiles = &Requirement{
	ID: "DEST-EXTRA", Section: "5.2", Level: Must, Basis: FromDir,
	Title: "no file the Source never had",
	Quote: AllPresent.Quote,
	Doc: "Every file in DIR (but the Destination's own, named .rsconform* at the top) is at the path of a " +
		"resource the Source listed at some step.",
	Check: checkExtra,
}

func checkExtra(st *Step) Outcome {
	var extra []string
	for p := range st.After {
		if !st.Ever[p] {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		return Outcome{Status: Fail, Expected: "no other files", Actual: fmt.Sprintf("%d extra: %s", len(extra), list(extra)), Evidence: sorted(extra)}
	}
	return Outcome{Status: Pass, Expected: "no other files", Actual: "none",
		Evidence: []string{fmt.Sprintf("%d files in DIR, each a resource of the Source", len(st.After))}}
}

// FixityChecked: content that does not match the hash the Source gives is
// not taken.
var FixityChecked = &Requirement{
	ID: "DEST-FIXITY", Section: "5.2", Level: Must, Basis: FromDir,
	Title: "content that fails fixity is not kept",
	Quote: "It also requires these Lists to contain metadata per resource that characterizes its most recent state, such as last modification time, length, and content-based hash.",
	Doc: "When the Source lists a resource with a hash (section 7, the hash attribute) that its content does " +
		"not match, a Destination that downloads the content must not keep it as the resource. Passes only " +
		"when the log shows the download (GET of the resource, 200) and DIR does not hold that content; " +
		"without a download it is not observed.",
	Check: checkFixity,
}

func checkFixity(st *Step) Outcome {
	const want = "content failing fixity not kept"
	if len(st.WrongHash) == 0 {
		return Outcome{Status: Skip, Expected: want, Actual: "the Source advertises no wrong hash"}
	}
	obtained := map[string]string{}
	for _, r := range st.Requests {
		if p := resourcePath(r.Path); st.WrongHash[p] && r.Method == "GET" && r.Status == 200 {
			obtained[p] = requestLine(r)
		}
	}
	var accepted, evidence []string
	for _, p := range keys(st.WrongHash) {
		e := st.Expected[p]
		switch {
		case st.After[p] == e.SHA256 && st.Before[p] != e.SHA256:
			accepted = append(accepted, p)
		case obtained[p] != "":
			evidence = append(evidence, obtained[p]+": downloaded, not kept")
		default:
			evidence = append(evidence, p+": not downloaded in this run")
		}
	}
	switch {
	case len(accepted) > 0:
		return Outcome{Status: Fail, Expected: list(accepted) + " not kept",
			Actual:   fmt.Sprintf("kept although the hash the Source gives does not match (%d)", len(accepted)),
			Evidence: accepted}
	case len(obtained) == 0:
		return Outcome{Status: NotObserved, Expected: want,
			Actual: "the Destination did not download " + list(keys(st.WrongHash)) + " in this run", Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d downloaded, not kept", len(obtained)), Evidence: evidence}
}
