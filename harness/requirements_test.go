package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// Requirements judged on hand-built steps: what the log and DIR show is
// written out, so each verdict (pass, fail, not observed, skip) follows
// from the evidence in the test and nothing else.

const (
	hashA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hashB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// baseStep is a second run in which the Destination holds /a.txt current.
func baseStep() *Step {
	return &Step{Number: 1, Run: &RunInfo{ExitCode: 0, Seconds: 1}, Timeout: time.Minute,
		Expected:  map[string]mocksource.ExpectedResource{"/a.txt": {SHA256: hashA, Length: 10}},
		Before:    map[string]string{"/a.txt": hashA},
		After:     map[string]string{"/a.txt": hashA},
		Ever:      map[string]bool{"/a.txt": true},
		WrongHash: map[string]bool{}, Deleted: map[string]bool{}}
}

func get(path string, status int, at time.Duration) mocksource.Request {
	return mocksource.Request{Method: "GET", Path: path, Status: status, Received: t0.Add(at)}
}

func TestRequirementsOnHandBuiltSteps(t *testing.T) {
	tests := []struct {
		name   string
		req    *Requirement
		edit   func(*Step)
		status Status
		// actual is a substring the verdict's Actual must hold.
		actual string
	}{
		{"present: every resource in DIR", AllPresent, nil, Pass, "1 present"},
		{"present: a resource missing", AllPresent, func(st *Step) { delete(st.After, "/a.txt") }, Fail, "absent"},
		{"current: the Source's content", AllCurrent, nil, Pass, "1 current"},
		{"current: other content", AllCurrent, func(st *Step) { st.After["/a.txt"] = hashB }, Fail, "1 stale"},
		{"current: the content of the second origin's resource of the same path", AllCurrent, func(st *Step) {
			st.Expected["/origin2/a.txt"] = mocksource.ExpectedResource{SHA256: hashB, Length: 12}
			st.After["/origin2/a.txt"], st.After["/a.txt"] = hashB, hashB
		}, Fail, "1 stale: /a.txt (0 bytes, the Source's 10 bytes, the content of /origin2/a.txt)"},
		{"present: the second origin's resource missing", AllPresent, func(st *Step) {
			st.Expected["/origin2/a.txt"] = mocksource.ExpectedResource{SHA256: hashB, Length: 12}
			st.Requests = []mocksource.Request{{Method: "GET", Origin: 2, Path: "/a.txt", Status: 200, Bytes: 12}}
		}, Fail, "absent; the log: GET {origin2}/a.txt 200, 12 bytes sent"},
		{"extra: none", NoExtraFiles, nil, Pass, "none"},
		{"extra: a file the Source never had", NoExtraFiles, func(st *Step) { st.After["/x.txt"] = hashB }, Fail, "1 extra: /x.txt"},
		{"deleted: nothing deleted", DeletedRemoved, nil, Skip, "the Source has deleted nothing so far"},
		{"deleted: removed", DeletedRemoved, func(st *Step) {
			st.Deleted["/b.txt"], st.Ever["/b.txt"], st.Before["/b.txt"] = true, true, hashB
		}, Pass, "absent"},
		{"deleted: still there", DeletedRemoved, func(st *Step) {
			st.Deleted["/b.txt"], st.Ever["/b.txt"], st.After["/b.txt"] = true, true, hashB
		}, Fail, "present"},
		{"run: exit 0", RunCompletes, nil, Pass, "exit 0"},
		{"run: exit 1, nothing broken served", RunCompletes, func(st *Step) {
			st.Run.ExitCode, st.RunFailed = 1, "exit 1 with nothing broken served"
		}, Fail, "nothing broken served"},
		{"run: timed out", RunCompletes, func(st *Step) { st.Run.TimedOut, st.RunFailed = true, "killed at the timeout" }, Fail, "killed after 1m0s"},
		{"run: killed by a signal after a broken document", RunCompletes, func(st *Step) {
			st.Run.ExitCode, st.Run.Signal, st.RunFailed = -1, "SIGSEGV", "killed by SIGSEGV"
			st.Broken = []string{"GET /cl.xml 200 (malformed)"}
		}, Fail, "killed by SIGSEGV after 1.0s, 0 requests: a crash, not a report"},
		{"run: DIR missing after the run", RunCompletes, func(st *Step) { st.Run.DirMissing = true }, Fail, "DIR does not exist after the run"},
		{"present: DIR missing, judged as empty", AllPresent, func(st *Step) {
			st.Run.DirMissing, st.After = true, map[string]string{}
		}, Fail, "absent; not requested in this run"},
		{"report: a crash is no report", ProblemsReported, func(st *Step) {
			r := get("/cl.xml", 200, 0)
			r.Fault = "malformed"
			st.Requests, st.Run.ExitCode, st.Run.Signal = []mocksource.Request{r}, -1, "SIGSEGV"
		}, Fail, "killed by SIGSEGV and no line of standard error names /cl.xml"},
		{"current: stale, with both lengths and the request", AllCurrent, func(st *Step) {
			st.After["/a.txt"], st.AfterLength = hashB, map[string]int64{"/a.txt": 65536}
			st.Expected["/a.txt"] = mocksource.ExpectedResource{SHA256: hashA, Length: 16 << 20}
			st.Requests = []mocksource.Request{{Method: "GET", Path: "/a.txt", Status: 200, Bytes: 16 << 20}}
		}, Fail, "1 stale: /a.txt (65,536 bytes, the Source's 16,777,216 bytes)"},
		{"present: the log explains a missing resource", AllPresent, func(st *Step) {
			delete(st.After, "/a.txt")
			st.Requests = []mocksource.Request{{Method: "GET", Path: "/a.txt", Status: 301, Fault: "redirect=301"},
				{Method: "GET", Path: "/moved/a.txt", Status: 500}}
		}, Fail, "absent; the log: GET /a.txt 301 (redirect=301); GET /moved/a.txt 500, not asked again"},
		{"fixity: no wrong hash advertised", FixityChecked, nil, Skip, "advertises no wrong hash"},
		{"fixity: downloaded and not kept", FixityChecked, func(st *Step) {
			st.WrongHash["/a.txt"] = true
			st.Before, st.After = map[string]string{}, map[string]string{}
			st.Requests = []mocksource.Request{get("/a.txt", 200, 0)}
		}, Pass, "1 downloaded, not kept"},
		{"fixity: downloaded and kept", FixityChecked, func(st *Step) {
			st.WrongHash["/a.txt"] = true
			st.Expected["/a.txt"] = mocksource.ExpectedResource{SHA256: hashA, ListedSHA256: hashB, Length: 10}
			st.Before = map[string]string{}
			st.Requests = []mocksource.Request{get("/a.txt", 200, 0)}
		}, Fail, "kept although the hash the Source gives does not match"},
		{"fixity: not downloaded", FixityChecked, func(st *Step) {
			st.WrongHash["/a.txt"] = true
			st.Before, st.After = map[string]string{}, map[string]string{}
		}, NotObserved, "did not download /a.txt"},
		{"retry-after: none served", RetryAfterHonoured, nil, Skip, "no Retry-After"},
		{"retry-after: honoured", RetryAfterHonoured, func(st *Step) {
			r := get("/cl.xml", 503, 0)
			r.RetryAfter = "2"
			st.Requests = []mocksource.Request{r, get("/cl.xml", 200, 2100*time.Millisecond)}
		}, Pass, "1 honoured"},
		{"retry-after: asked again too early", RetryAfterHonoured, func(st *Step) {
			r := get("/cl.xml", 503, 0)
			r.RetryAfter = "2"
			st.Requests = []mocksource.Request{r, get("/cl.xml", 200, 500*time.Millisecond)}
		}, Fail, "1 asked again too early"},
		{"retry-after: not asked again", RetryAfterHonoured, func(st *Step) {
			r := get("/cl.xml", 503, 0)
			r.RetryAfter = "2"
			st.Requests = []mocksource.Request{r}
		}, NotObserved, "no follow-up request"},
		{"no-refetch: nothing downloaded again", NoRefetch, func(st *Step) {
			st.Requests = []mocksource.Request{get("/rl.xml", 200, 0)}
		}, Pass, "none"},
		{"no-refetch: a resource held unchanged downloaded", NoRefetch, func(st *Step) {
			st.Requests = []mocksource.Request{get("/a.txt", 200, 0)}
		}, Fail, "/a.txt (held unchanged)"},
		{"no-refetch: no request", NoRefetch, nil, NotObserved, "made no request"},
		{"rate: within", RateLimit, func(st *Step) {
			st.MaxRate = 2
			st.Requests = []mocksource.Request{get("/a", 200, 0), get("/b", 200, 600*time.Millisecond), get("/c", 200, 1200*time.Millisecond)}
		}, Pass, "at most 2"},
		{"rate: over", RateLimit, func(st *Step) {
			st.MaxRate = 2
			st.Requests = []mocksource.Request{get("/a", 200, 0), get("/b", 200, 100*time.Millisecond), get("/c", 200, 200*time.Millisecond)}
		}, Fail, "3 requests in the second"},
		{"report: a malformed document, exit 1", ProblemsReported, func(st *Step) {
			r := get("/cl.xml", 200, 0)
			r.Fault = "malformed"
			st.Requests, st.Run.ExitCode = []mocksource.Request{r}, 1
		}, Pass, "exit 1 after GET /cl.xml 200 (malformed)"},
		{"report: a malformed document swallowed", ProblemsReported, func(st *Step) {
			r := get("/cl.xml", 200, 0)
			r.Fault = "malformed"
			st.Requests = []mocksource.Request{r}
		}, Fail, "no line of standard error names /cl.xml"},
		{"report: armed but not fetched", ProblemsReported, func(st *Step) {
			st.Faults = []*scenario.Fault{{Match: "/cl.xml", Malformed: true}}
		}, NotObserved, "did not fetch it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := baseStep()
			if tt.edit != nil {
				tt.edit(st)
			}
			o := tt.req.Check(st)
			if o.Status != tt.status || !strings.Contains(o.Actual, tt.actual) {
				t.Errorf("%s: got %s %q, want %s with %q", tt.req.ID, o.Status, o.Actual, tt.status, tt.actual)
			}
			if o.Status == Pass && len(o.Evidence) == 0 {
				t.Errorf("%s passed without evidence", tt.req.ID)
			}
		})
	}
}

// The checks are not run on what a failed or stopped run left.
func TestVerdictsNotJudgedAfterAFailedRun(t *testing.T) {
	j := &judge{cfg: &Config{}}
	st := baseStep()
	delete(st.After, "/a.txt")
	st.Run.ExitCode, st.RunFailed = 2, "exit 2 with nothing broken served"
	for _, v := range j.verdicts(st) {
		switch r := RequirementByID(v.ID); {
		case r.ID == RunCompletes.ID:
			if v.Status != Fail {
				t.Errorf("DEST-RUN: %s, want fail", v.Status)
			}
		case r.Basis == FromDir:
			if v.Status != Skip || !strings.Contains(v.Actual, "the run failed") {
				t.Errorf("%s: %s %q, want skip: the run failed", v.ID, v.Status, v.Actual)
			}
		}
	}
}

func TestRequirementValuesAreChecked(t *testing.T) {
	good := *AllPresent
	if err := checkRequirement(&good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*Requirement){
		"malformed ID": func(r *Requirement) { r.ID = "PRESENT" },
		"no title":     func(r *Requirement) { r.Title = " " },
		"no level":     func(r *Requirement) { r.Level = "" },
		"no basis":     func(r *Requirement) { r.Basis = 0 },
		"no check":     func(r *Requirement) { r.Check = nil },
	} {
		r := *AllPresent
		edit(&r)
		if checkRequirement(&r) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// tinyScenario: three resources, one checkpoint that deletes one.
func tinyScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("tiny.yaml", []byte(`name: tiny
resources: {count: 3}
steps:
  - after: 1h
    actions:
      - delete: /res/0000001.html
    expect: {resources: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunPlaysTheMockThroughGoCalls(t *testing.T) {
	dir := t.TempDir()
	// A Destination that keeps a file of its own (ignored) and one the
	// Source never had.
	res, err := Run(context.Background(), Config{Scenario: tinyScenario(t), Dir: dir, Timeout: 10 * time.Second,
		Command: []string{"sh", "-c", `mkdir -p "$RSCONFORM_DIR/.rsconform-state" && echo x > "$RSCONFORM_DIR/.rsconform-state/f" && echo x > "$RSCONFORM_DIR/stray.txt"`}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 || !res.Steps[0].Ran || !res.Steps[1].Ran || !res.Steps[1].Checkpoint {
		t.Fatalf("steps: %+v", res.Steps)
	}
	if res.File != "tiny.yaml" || res.Steps[1].Line != 4 {
		t.Errorf("file %q, step 1 at line %d; want tiny.yaml, 4", res.File, res.Steps[1].Line)
	}
	if !strings.HasSuffix(res.Source, "/.well-known/resourcesync") || !strings.HasPrefix(res.Source, "http://127.0.0.1:") {
		t.Errorf("source %q", res.Source)
	}
	want := map[string]Status{RunCompletes.ID: Pass, AllPresent.ID: Fail, NoExtraFiles.ID: Fail}
	for _, v := range res.Steps[1].Verdicts {
		if s, ok := want[v.ID]; ok && v.Status != s {
			t.Errorf("%s: %s (%s), want %s", v.ID, v.Status, v.Actual, s)
		}
		if v.ID == NoExtraFiles.ID && v.Actual != "1 extra: /stray.txt" {
			t.Errorf("DEST-EXTRA: %q", v.Actual)
		}
		if v.ID == AllPresent.ID && v.Actual != "2 missing: /res/0000000.txt, /res/0000002.json" {
			t.Errorf("DEST-PRESENT: %q", v.Actual)
		}
		if v.ID == DeletedRemoved.ID && (v.Status != Pass || !strings.Contains(v.Evidence[0], "/res/0000001.html")) {
			t.Errorf("DEST-DELETED: %s %v", v.Status, v.Evidence)
		}
	}
	if !res.Failed(false) {
		t.Error("a Destination that takes nothing passed")
	}
	if _, err := os.Stat(filepath.Join(dir, "stray.txt")); err != nil {
		t.Error(err)
	}
}

func TestRunRefusesACommandThatCannotStart(t *testing.T) {
	_, err := Run(context.Background(), Config{Scenario: tinyScenario(t), Dir: t.TempDir(),
		Command: []string{filepath.Join(t.TempDir(), "no-such-program")}})
	if !errors.Is(err, ErrCommand) {
		t.Fatalf("err = %v, want ErrCommand", err)
	}
}

func TestDocsAreGenerated(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile("../docs/destination.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(onDisk) != b.String() {
		t.Fatal("docs/destination.md is stale: run 'go generate ./harness'")
	}
}

func TestLevelsRestOnSentences(t *testing.T) {
	r := *DeletedRemoved
	r.Quote = "It also allows a Destination to remove its copies of deleted resources, if needed."
	if err := checkRequirement(&r); err == nil || !strings.Contains(err.Error(), "MUST without a sentence") {
		t.Errorf("a MUST on 'allows': %v", err)
	}
	r = *RetryAfterHonoured
	r.Quote = "Servers send the Retry-After header field."
	if checkRequirement(&r) == nil {
		t.Error("a SHOULD without a recommendation accepted")
	}
	if FixityChecked.Quote != AllPresent.Quote || !strings.Contains(FixityChecked.Quote, "coverage and accuracy") {
		t.Errorf("DEST-FIXITY rests on %q, not 5.2 Audit's sentence", FixityChecked.Quote)
	}
}

func TestDirNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"caf\u00e9.txt", "q.txt?page=1", "a%2Fb.txt", ".rsconform-state"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"/caf%C3%A9.txt", "/q.txt?page=1", "/a%2Fb.txt"} {
		if _, ok := ds.Hashes[k]; !ok {
			t.Errorf("no %s in %v", k, ds.Hashes)
		}
	}
	if len(ds.Hashes) != 3 || ds.Lengths["/caf%C3%A9.txt"] != int64(len("caf\u00e9.txt")) {
		t.Errorf("snapshot %v %v", ds.Hashes, ds.Lengths)
	}
	if got := fileKey("/q.txt?a=%2F/b"); got != "/q.txt?a=%252F%2Fb" {
		t.Errorf("fileKey = %q", got)
	}
	missing, err := snapshot(filepath.Join(dir, "gone"))
	if err != nil || !missing.Missing || len(missing.Hashes) != 0 {
		t.Errorf("a missing DIR: %+v, %v", missing, err)
	}
}

func TestWhyGivesTheReadingOrThePolicyFallback(t *testing.T) {
	if got := RunCompletes.Why(); got != RunCompletes.Reading || got == "" {
		t.Errorf("DEST-RUN: Why() = %q, want its Reading", got)
	}
	p := Requirement{ID: "DEST-X", Level: Policy}
	if got := p.Why(); !strings.Contains(got, "No standard states it") || !strings.Contains(got, "--strict") {
		t.Errorf("a POLICY without a Reading: Why() = %q", got)
	}
	p.Reading = "the reading"
	if got := p.Why(); got != "the reading" {
		t.Errorf("a POLICY with a Reading: Why() = %q", got)
	}
	if got := (&Requirement{ID: "DEST-Y", Level: Must, Quote: "It must."}).Why(); got != "" {
		t.Errorf("a plain MUST: Why() = %q, want none", got)
	}
}
