package harness

import (
	"fmt"
	"strings"

	"github.com/rsconform/rsconform/internal/words"
)

// Section 5.2, Destination Perspective: what "synchronized" means for a
// Destination that keeps a copy of the Source in DIR. The harness reads
// it as a mirror: after each run DIR holds every resource the Source
// lists, with its current content, and nothing else.

// auditReading is how the harness reads 5.2 Audit's sentence, on which the
// requirements on DIR rest.
const auditReading = "5.2 Audit asks that a Destination be able to check that what it obtained matches the " +
	"Source's current resources in coverage and accuracy; the harness tests Destinations that keep their copy " +
	"in DIR, and reads the sentence as the state of that copy after a completed run: a copy that cannot match " +
	"(a resource missing, stale content, a file of no resource) fails the check the sentence requires."

// RunCompletes is the run itself: a Destination that crashes or hangs has
// not synchronised, whatever it left in DIR.
var RunCompletes = &Requirement{
	ID: "DEST-RUN", Section: "5.2", Level: Must, Basis: FromRun,
	Title:   "the Destination's run completes",
	Quote:   "In order to become synchronized with a Source, the Destination must make an initial copy of the Source's data.",
	Reading: "A run that crashes, hangs or removes its DIR has not made (or kept) the copy the sentence asks for.",
	Passes:  "The command exits 0 within the timeout with DIR in place, or non-zero after the Source served something broken in that run.",
	Fails:   "The command is killed at the timeout, dies by a signal (a crash, whatever it fetched), exits non-zero when nothing broken was served, or leaves no DIR.",
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
	case info.Crashed():
		return Outcome{Status: Fail, Expected: want,
			Actual:   fmt.Sprintf("%s after %.1fs, %d requests: a crash, not a report; the content is not judged", info.Exit(), info.Seconds, info.Requests),
			Evidence: append(append([]string(nil), st.Broken...), outputEvidence(info.Output)...)}
	case info.ExitCode != 0 && st.RunFailed != "":
		return Outcome{Status: Fail, Expected: want,
			Actual:   fmt.Sprintf("exit %d after %.1fs, %d requests, nothing broken served: the content is not judged", info.ExitCode, info.Seconds, info.Requests),
			Evidence: outputEvidence(info.Output)}
	case st.Run.DirMissing:
		return Outcome{Status: Fail, Expected: want + ", DIR in place",
			Actual:   fmt.Sprintf("%s after %.1fs, %d requests, and DIR does not exist after the run: it is judged as empty", info.Exit(), info.Seconds, info.Requests),
			Evidence: append([]string{"DIR missing after the run"}, outputEvidence(info.Output)...)}
	case info.ExitCode != 0:
		return Outcome{Status: Pass, Expected: want,
			Actual:   fmt.Sprintf("exit %d after %.1fs, %d requests, after the Source served %s", info.ExitCode, info.Seconds, info.Requests, words.Count(len(st.Broken), "broken response")),
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
	Title:   "every resource of the Source is present",
	Quote:   "In order to verify whether it is in sync with the Source, a Destination must be able to check that the content it obtained matches the current resources hosted by the Source both regarding coverage and accuracy.",
	Reading: auditReading,
	Passes:  "Every resource the Source lists has a file in DIR at the name its URI maps to.",
	Fails:   "A resource the Source lists has no file there (the verdict cites the run's requests for it).",
	Doc: "Each resource the Source lists now (Source.Expected) has a file in DIR at the path the " +
		"URI maps to; those on the Source's second origin (scenario second-origin, {origin2}) under DIR/origin2. " +
		"Resources served under a wrong hash are left to DEST-FIXITY. A resource on another origin is one of " +
		"the Source's: the specification ties a Source's resources to what it lists, not to the origin of its " +
		"documents (10.1: \"A Resource List is introduced to list and describe the resources that a Source makes " +
		"available for synchronization\"), and takes from the Sitemap protocol its document formats (section 7: " +
		"\"the Sitemap (root element <urlset>) and Sitemap index (root element <sitemapindex>) document formats " +
		"introduced by the Sitemap protocol are used\"), not its rule that a Sitemap lists URLs of its own host " +
		"only. A copy that drops them, or keeps two origins' resources of one path in one file, fails coverage " +
		"(and DEST-CURRENT names the resource whose content the file holds).",
	Check: checkPresent,
}

func checkPresent(st *Step) Outcome {
	var missing, evidence []string
	for p := range st.Expected {
		if _, ok := st.After[p]; !ok && !st.WrongHash[p] {
			missing = append(missing, p)
		}
	}
	missing = sorted(missing)
	for _, p := range missing {
		evidence = append(evidence, p+": "+st.wire(p))
	}
	live := len(st.Expected) - len(st.WrongHash)
	want := words.Count(live, "resource") + " present"
	if st.Run.DirMissing {
		want += " (DIR does not exist after the run)"
	}
	switch {
	case len(missing) == 1:
		return Outcome{Status: Fail, Expected: missing[0] + " present", Actual: "absent; " + st.wire(missing[0]), Evidence: evidence}
	case len(missing) > 0:
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d missing: %s", len(missing), list(missing)), Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d present", live),
		Evidence: []string{fmt.Sprintf("%d files in DIR, one for each resource the Source lists", live)}}
}

// AllCurrent is accuracy: every copy has the Source's current content.
var AllCurrent = &Requirement{
	ID: "DEST-CURRENT", Section: "5.2", Level: Must, Basis: FromDir, UpToDate: true,
	Title:   "every copy has the Source's current content",
	Quote:   AllPresent.Quote,
	Reading: auditReading,
	Passes:  "Every file of a listed resource has the length and SHA-256 of what the Source serves now.",
	Fails:   "A file holds other content (the verdict gives both lengths, both hashes, the run's requests, and the resource whose content it holds when it is another's).",
	Doc:     "Each file of a resource the Source lists has the SHA-256 of the content the Source serves now.",
	Check:   checkCurrent,
}

func checkCurrent(st *Step) Outcome {
	var stale, evidence []string
	current := 0
	var bySHA map[string]string // made on the first stale file
	for _, p := range sortedKeys(st.Expected) {
		e := st.Expected[p]
		got, ok := st.After[p]
		switch {
		case !ok || st.WrongHash[p]:
		case got != e.SHA256:
			if bySHA == nil {
				bySHA = map[string]string{}
				for q, f := range st.Expected {
					if old, dup := bySHA[f.SHA256]; !dup || q < old {
						bySHA[f.SHA256] = q
					}
				}
			}
			// Another resource's content: names mixed up (two origins in
			// one path, decoded escapes).
			of := ""
			if q := bySHA[got]; q != "" {
				of = ", the content of " + q
			}
			stale = append(stale, fmt.Sprintf("%s (%s, the Source's %s%s)", p, byteCount(st.AfterLength[p]), byteCount(int64(e.Length)), of))
			evidence = append(evidence, fmt.Sprintf("%s: DIR holds %s, sha256 %s%s; the Source serves %s, sha256 %s; %s",
				p, byteCount(st.AfterLength[p]), got, of, byteCount(int64(e.Length)), e.SHA256, st.wire(p)))
		default:
			current++
		}
	}
	want := "every copy with the Source's content (length and sha256)"
	if len(stale) == 1 {
		return Outcome{Status: Fail, Expected: want, Actual: "1 stale: " + stale[0], Evidence: evidence}
	}
	if len(stale) > 0 {
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d stale: %s", len(stale), list(stale)), Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d current", current),
		Evidence: []string{fmt.Sprintf("%d files in DIR with the SHA-256 of the Source's content", current)}}
}

// DeletedRemoved: a copy of a resource the Source deleted is not in sync.
var DeletedRemoved = &Requirement{
	ID: "DEST-DELETED", Section: "5.2", Level: Must, Basis: FromDir, UpToDate: true,
	Title: "deleted resources are removed",
	Quote: AllPresent.Quote,
	Reading: auditReading + " 5.2 Incremental Synchronization adds that Change Lists allow a Destination \"to remove " +
		"its copies of deleted resources, if needed\": an ability, not a MUST by itself; for a copy kept in sync it " +
		"is needed, since a copy of a deleted resource is not among the current resources the Audit compares with.",
	Passes: "No file of a resource the Source has deleted is in DIR.",
	Fails:  "A copy of a deleted resource is still in DIR.",
	Doc:    "Judged at the steps after which the Source has deleted resources; skipped while it has deleted none.",
	Check:  checkDeleted,
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
	var stillEvidence []string
	for _, p := range still {
		stillEvidence = append(stillEvidence, p+": "+st.wire(p))
	}
	switch {
	case len(still) == 1:
		return Outcome{Status: Fail, Expected: still[0] + " absent", Actual: "present", Evidence: stillEvidence}
	case len(still) > 0:
		return Outcome{Status: Fail, Expected: fmt.Sprintf("%d deleted resources absent", len(st.Deleted)),
			Actual: fmt.Sprintf("%d present: %s", len(still), list(still)), Evidence: stillEvidence}
	}
	return Outcome{Status: Pass, Expected: fmt.Sprintf("%s absent", words.Count(len(st.Deleted), "deleted resource")), Actual: "absent", Evidence: evidence}
}

// NoExtraFiles: DIR holds nothing the Source never had.
var NoExtraFiles = &Requirement{
	ID: "DEST-EXTRA", Section: "5.2", Level: Must, Basis: FromDir,
	Title:   "no file the Source never had",
	Quote:   AllPresent.Quote,
	Reading: auditReading,
	Passes:  "Every file in DIR is at the name of a resource the Source listed at some step.",
	Fails:   "DIR holds a file the Source never had (a name mapped wrongly, a collision, a stray file); the verdict gives its length and hash.",
	Doc: "Every file in DIR (but the Destination's own, named .rsconform* at the top) is at the path of a " +
		"resource the Source listed at some step.",
	Check: checkExtra,
}

func checkExtra(st *Step) Outcome {
	var extra, evidence []string
	for p := range st.After {
		if !st.Ever[p] {
			extra = append(extra, p)
		}
	}
	for _, p := range sorted(extra) {
		evidence = append(evidence, fmt.Sprintf("%s: %s, sha256 %s", p, byteCount(st.AfterLength[p]), st.After[p]))
	}
	if len(extra) > 0 {
		return Outcome{Status: Fail, Expected: "no other files", Actual: fmt.Sprintf("%d extra: %s", len(extra), list(extra)), Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: "no other files", Actual: "none",
		Evidence: []string{fmt.Sprintf("%d files in DIR, each a resource of the Source", len(st.After))}}
}

// FixityChecked: content that does not match the hash the Source gives is
// not taken.
var FixityChecked = &Requirement{
	ID: "DEST-FIXITY", Section: "5.2", Level: Must, Basis: FromDir,
	Title: "content that fails fixity is not kept",
	Quote: AllPresent.Quote,
	Reading: auditReading + " The same paragraph goes on: \"It also requires these Lists to contain metadata per " +
		"resource that characterizes its most recent state, such as last modification time, length, and " +
		"content-based hash\": content that does not match the hash the Source lists is not the resource's " +
		"current state, and a copy keeping it as the resource fails accuracy.",
	Passes: "The log shows the download of content listed under a wrong hash, and DIR does not hold that content.",
	Fails:  "DIR holds, as the resource, content whose hash is not the one listed (the verdict gives both hashes).",
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
		if p := requestKey(r); st.WrongHash[p] && r.Method == "GET" && r.Status == 200 {
			obtained[p] = requestLine(r)
		}
	}
	var accepted, acceptedEvidence, evidence []string
	for _, p := range keys(st.WrongHash) {
		e := st.Expected[p]
		switch {
		case st.After[p] == e.SHA256 && st.Before[p] != e.SHA256:
			accepted = append(accepted, p)
			acceptedEvidence = append(acceptedEvidence, fmt.Sprintf("%s: listed with sha256 %s; served %s, sha256 %s; DIR holds the served content; %s",
				p, e.ListedSHA256, byteCount(int64(e.Length)), e.SHA256, st.wire(p)))
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
			Evidence: acceptedEvidence}
	case len(obtained) == 0:
		return Outcome{Status: NotObserved, Expected: want,
			Actual: "the Destination did not download " + list(keys(st.WrongHash)) + " in this run", Evidence: evidence}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d downloaded, not kept", len(obtained)), Evidence: evidence}
}
