package destination_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/ahead"
	"github.com/rsconform/rsconform/internal/testbin"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/sourcehttp"
)

// rsconformBin is the rsconform command, built once for the suite into
// testbin's folder, where the go command finds it up to date from the
// last run unless the sources changed, instead of linking it again.
var rsconformBin string

var _ = SynchronizedBeforeSuite(func() []byte {
	bin, err := testbin.Build("destination", "github.com/rsconform/rsconform/cmd/rsconform")
	Expect(err).NotTo(HaveOccurred())
	return []byte(bin)
}, func(bin []byte) {
	rsconformBin = string(bin)
})

// playScenario runs a scenario against a command in-process.
func playScenario(name string, timeout time.Duration, command ...string) *harness.Result {
	GinkgoHelper()
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	res, err := harness.Run(context.Background(), harness.Config{Scenario: sc, Dir: GinkgoT().TempDir(),
		Command: command, Timeout: timeout})
	Expect(err).NotTo(HaveOccurred())
	return res
}

// failures lists the failing verdicts as lines.
func failures(res *harness.Result) []string {
	var out []string
	for _, st := range res.Steps {
		for _, v := range st.Verdicts {
			if v.Status == harness.Fail {
				out = append(out, v.Line(st.Step))
			}
		}
	}
	return out
}

func syncCommand(flags ...string) []string {
	return append([]string{rsconformBin, "sync", "{source}", "{dir}", "--rate", "0"}, flags...)
}

// scenariosToPlay are the default scenarios, and the volume one with
// RSCONFORM_LARGE=1.
func scenariosToPlay() []string {
	out := scenario.DefaultNames()
	if os.Getenv("RSCONFORM_LARGE") != "" {
		out = append(out, scenario.VolumeName)
	}
	return out
}

// offersDumps says whether the Source of scenario name lists a Resource
// Dump or a Change Dump in a capability list at any step. sync reads
// --dumps (Options.PreferDumps) only where one is listed
// (destination/syncer.go, baseline.go): without one, a run with --dumps
// is the run without it.
func offersDumps(name string) bool {
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	const base = "http://source.test"
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true, BaseURL: base})
	Expect(err).NotTo(HaveOccurred())
	get := func(u string) string {
		rec := httptest.NewRecorder()
		src.Handler().ServeHTTP(rec, httptest.NewRequest("GET", strings.TrimPrefix(u, base), nil))
		Expect(rec.Code).To(Equal(200), u)
		return rec.Body.String()
	}
	for {
		sd := get(base + "/.well-known/resourcesync")
		for _, m := range regexp.MustCompile(`<loc>([^<]*)</loc>`).FindAllStringSubmatch(sd, -1) {
			capList := get(m[1])
			if strings.Contains(capList, `capability="resourcedump"`) || strings.Contains(capList, `capability="changedump"`) {
				return true
			}
		}
		if src.Info().Done {
			return false
		}
		_, err := src.Step()
		Expect(err).NotTo(HaveOccurred())
	}
}

// aheadPlays plays the scenarios of an Ordered container's specs ahead of
// them (internal/ahead): at most Window plays run at once, none further
// than Lookahead past the spec being run. The spec that needs play i
// waits for it; whenever a play ends, the next ones start. Ordered specs
// run in the order they are defined, so while one spec waits (a run that
// sleeps on a Retry-After) the next plays use the processors; a focused
// run starts at most Lookahead-1 plays it does not need. Each play has
// its own mock Source, port and directory.
type aheadPlays struct {
	Window, Lookahead int
	dir               string
	scripts           map[int]string // the shell scripts of addScript, by play
	runner            *ahead.Runner[aheadResult]
}

type aheadResult struct {
	res *harness.Result
	err error
}

// add registers a play and returns its index. cfg is called when the play
// starts (the suite's rsconform is built by then); its Scenario and Dir
// are set here.
func (a *aheadPlays) add(name string, cfg func() harness.Config) int {
	sc, err := scenario.Load(name)
	if err != nil {
		panic(err)
	}
	if a.runner == nil {
		a.runner = &ahead.Runner[aheadResult]{Window: a.Window, Lookahead: a.Lookahead}
	}
	var i int
	i = a.runner.Add(func() aheadResult {
		c := cfg()
		c.Scenario, c.Dir = sc, filepath.Join(a.dir, fmt.Sprint(i))
		res, err := harness.Run(context.Background(), c)
		return aheadResult{res, err}
	})
	return i
}

// addScript registers a play of scenario against a shell script (see
// writeScript). setUp writes the scripts before any play starts: a script
// written while another goroutine forks a child can be held open by it
// and fail to start (ETXTBSY, golang.org/issue/22315).
func (a *aheadPlays) addScript(scenario, body string) int {
	return a.addScriptWithin(scenario, body, time.Minute)
}

// addScriptWithin is addScript with each run of the script bounded by
// timeout.
func (a *aheadPlays) addScriptWithin(scenario, body string, timeout time.Duration) int {
	var i int
	i = a.add(scenario, func() harness.Config {
		return harness.Config{Command: []string{a.script(i)}, Timeout: timeout}
	})
	if a.scripts == nil {
		a.scripts = map[int]string{}
	}
	a.scripts[i] = body
	return i
}

func (a *aheadPlays) script(i int) string {
	return filepath.Join(a.dir, fmt.Sprint(i)+".sh")
}

// setUp is the container's BeforeAll: the plays' directories, removed
// once the plays started have ended.
func (a *aheadPlays) setUp() {
	dir, err := os.MkdirTemp("", "rsconform-plays-")
	Expect(err).NotTo(HaveOccurred())
	a.dir = dir
	DeferCleanup(func() {
		if a.runner != nil {
			a.runner.Close()
		}
		os.RemoveAll(dir)
	})
	for i, body := range a.scripts {
		Expect(os.WriteFile(a.script(i), scriptText(body), 0o755)).To(Succeed())
	}
}

// get starts play i and what may run ahead of it, and returns play i.
func (a *aheadPlays) get(i int) *harness.Result {
	GinkgoHelper()
	r, err := a.runner.Get(context.Background(), i)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.err).NotTo(HaveOccurred())
	return r.res
}

var _ = Describe("rsconform sync against the mock Source [5.2]", Label("Section:5.2", "Kind:harness"), Ordered, ContinueOnFailure, func() {
	// Three at a time, up to eight ahead: on two cores, while a run sleeps
	// on a Retry-After or waits for its child, the next ones use the
	// processors.
	ahead := &aheadPlays{Window: 3, Lookahead: 8}
	BeforeAll(ahead.setUp)
	play := func(name string, flags ...string) int {
		return ahead.add(name, func() harness.Config { return harness.Config{Command: syncCommand(flags...), Timeout: time.Minute} })
	}

	// flaky-server first: its waits (two Retry-After 2, a 1.5 s answer)
	// overlap with the plays after it.
	flaky := ahead.add("flaky-server", func() harness.Config {
		return harness.Config{Command: []string{rsconformBin, "sync", "{source}", "{dir}", "--rate", "40"}, MaxRate: 50, Timeout: time.Minute}
	})
	It("checks Retry-After and the request rate from the request log", func() {
		res := ahead.get(flaky)
		Expect(failures(res)).To(BeEmpty())
		for _, st := range res.Steps {
			Expect(st.Ran).To(BeTrue(), "step %d", st.Step)
			Expect(st.Verdicts).To(HaveLen(len(harness.Requirements)))
		}
		Expect(verdict(res, 1, harness.RetryAfterHonoured.ID).Status).To(Equal(harness.Pass))
		Expect(verdict(res, 1, harness.RetryAfterHonoured.ID).Evidence).To(ContainElement(MatchRegexp(`^/dataset1/changelist.xml 503 with Retry-After 2, asked again [2-9]\.\d\ds later$`)))
		Expect(verdict(res, 1, harness.RateLimit.ID).Status).To(Equal(harness.Pass))
	})

	dumps := map[string]bool{}
	for _, name := range scenariosToPlay() {
		dumps[name] = offersDumps(name)
	}
	// Without flags (auto mode) each default scenario is played by the
	// self-test of suite/destination: its reference Destination
	// (testdata/refdest) is destination.Run in auto mode, run after every
	// step, and each requirement at each step is a spec that fails on a
	// failing verdict. Auto mode through this command is played below
	// with --dumps, by second-origin and by flaky-server.
	for _, flags := range [][]string{{"--baseline"}, {"--dumps"}, {"--baseline", "--dumps"}} {
		for _, name := range scenariosToPlay() {
			if name == "flaky-server" {
				// Its faults (Retry-After, a slow and a dropped answer) meet
				// the same retry loop whatever the flags: it is played once,
				// below, where its waits are checked too.
				continue
			}
			if slices.Contains(flags, "--dumps") && !dumps[name] {
				// The same run as without --dumps (see offersDumps).
				continue
			}
			i := play(name, flags...)
			It(fmt.Sprintf("passes %s with %q", name, strings.Join(flags, " ")), func() {
				res := ahead.get(i)
				Expect(failures(res)).To(BeEmpty())
				ran := 0
				for _, st := range res.Steps {
					if st.Ran {
						ran++
						Expect(st.Verdicts).To(HaveLen(len(harness.Requirements)))
					}
				}
				Expect(ran).To(BeNumerically(">=", 2))
				if name == "baseline-resourcedump" && slices.Contains(flags, "--dumps") {
					// The baseline comes from the Resource Dump published
					// before step 0.
					Expect(res.Steps[0].Run.Output).To(ContainSubstring("3 packages unpacked"))
				}
			})
		}
	}

	for _, flags := range [][]string{nil, {"--baseline"}, {"--dumps"}, {"--baseline", "--dumps"}} {
		i := play(scenario.Origin2Name, append([]string{"--map", "{origin}=.", "--map", "{origin2}=origin2"}, flags...)...)
		It(fmt.Sprintf("passes %s with %q, told where the second origin goes", scenario.Origin2Name, strings.Join(flags, " ")), func() {
			res := ahead.get(i)
			Expect(failures(res)).To(BeEmpty())
			for _, st := range res.Steps {
				Expect(st.Ran).To(BeTrue(), "step %d", st.Step)
				Expect(st.Verdicts).To(HaveLen(len(harness.Requirements)))
			}
			Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("9 present"))
			Expect(verdict(res, 1, harness.AllCurrent.ID).Actual).To(Equal("9 current"))
			Expect(verdict(res, 2, harness.DeletedRemoved.ID).Status).To(Equal(harness.Pass))
			Expect(verdict(res, 2, harness.DeletedRemoved.ID).Evidence).To(ConsistOf("/origin2/res/only-here.html: removed in this run"))
			Expect(verdict(res, 2, harness.AllCurrent.ID).Actual).To(Equal("9 current"))
			if slices.Contains(flags, "--dumps") {
				// The Change Dump's package holds the second origin's bitstreams.
				Expect(res.Steps[2].Run.Output).To(ContainSubstring("1 packages unpacked"))
			}
		})
	}

	unmapped := play(scenario.Origin2Name)
	It("fails "+scenario.Origin2Name+" when not told where the second origin goes: it reports the URLs it cannot keep", func() {
		res := ahead.get(unmapped)
		Expect(failures(res)).To(ConsistOf(
			"step 1 [5.2] MUST the Destination's run completes: expected finished within 1m0s with exit 0 (or non-zero after the Source served something broken), actual "+
				verdict(res, 1, harness.RunCompletes.ID).Actual,
			"step 2 [5.2] MUST the Destination's run completes: expected finished within 1m0s with exit 0 (or non-zero after the Source served something broken), actual "+
				verdict(res, 2, harness.RunCompletes.ID).Actual))
		Expect(verdict(res, 1, harness.RunCompletes.ID).Actual).To(MatchRegexp(`^exit 1 after .*nothing broken served`))
		Expect(res.Steps[1].Run.Output).To(ContainSubstring("/res/only-here.html\": no mapping covers this URI"))
	})

	It("unpacks Resource Dumps into an empty directory at every step", func() {
		script := writeScript(`rm -rf "$RSCONFORM_DIR"/* "$RSCONFORM_DIR"/.rsconform*
exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 --baseline --dumps`)
		res := playScenario("baseline-resourcedump", time.Minute, script)
		Expect(failures(res)).To(BeEmpty())
		Expect(res.Steps[1].Run.Output).To(ContainSubstring("3 packages unpacked"))
	})

})

var _ = Describe("The request log", Label("Kind:harness"), func() {
	It("does not judge behaviour from a log that overflowed", func() {
		sc, err := scenario.Load("create-update-delete")
		Expect(err).NotTo(HaveOccurred())
		res, err := harness.Run(context.Background(), harness.Config{Scenario: sc, Dir: GinkgoT().TempDir(),
			Command: syncCommand(), Timeout: time.Minute, MaxRate: 1000, Source: mocksource.Options{LogSize: 3}})
		Expect(err).NotTo(HaveOccurred())
		Expect(failures(res)).To(BeEmpty())
		v := verdict(res, 0, harness.RateLimit.ID)
		Expect(v.Status).To(Equal(harness.Skip))
		Expect(v.Actual).To(ContainSubstring("overflowed"))
		Expect(res.Steps[0].Run.Requests).To(BeNumerically(">", 10))
	})
})

// The plays run three at a time ahead of their specs (aheadPlays): the
// hanging Destination's waits overlap with the others.
var _ = Describe("Broken Destinations get failing verdicts", Label("Kind:harness"), Ordered, ContinueOnFailure, func() {
	ahead := &aheadPlays{Window: 3, Lookahead: 8}
	BeforeAll(ahead.setUp)

	takesNothing := ahead.add("incremental-changelist", func() harness.Config {
		return harness.Config{Command: []string{"true"}, Timeout: time.Minute}
	})
	It("reports a Destination that takes nothing", func() {
		res := ahead.get(takesNothing)
		Expect(verdict(res, 0, harness.AllPresent.ID).Status).To(Equal(harness.Fail))
		Expect(verdict(res, 0, harness.AllPresent.ID).Actual).To(HavePrefix("50 missing: /res/0000000.txt"))
		Expect(verdict(res, 0, harness.RunCompletes.ID).Status).To(Equal(harness.Pass))
	})

	staleAndExtra := ahead.addScript("incremental-changelist", `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 >/dev/null
echo changed > "$RSCONFORM_DIR/res/0000001.html"
echo extra > "$RSCONFORM_DIR/extra.txt"`)
	It("reports stale and extra files", func() {
		res := ahead.get(staleAndExtra)
		Expect(verdict(res, 0, harness.AllCurrent.ID).Actual).To(MatchRegexp(`^1 stale: /res/0000001.html \(8 bytes, the Source.s [0-9,]+ bytes\)$`))
		Expect(verdict(res, 0, harness.AllCurrent.ID).Evidence).To(ConsistOf(MatchRegexp(`^/res/0000001.html: DIR holds 8 bytes, sha256 [0-9a-f]{64}; the Source serves [0-9,]+ bytes, sha256 [0-9a-f]{64}; the log: GET /res/0000001.html 200, [0-9,]+ bytes sent$`)))
		Expect(verdict(res, 0, harness.NoExtraFiles.ID).Actual).To(Equal("1 extra: /extra.txt"))
	})

	// Step 1 of broken-documents serves the Change List malformed once:
	// this Destination reads it (validate fetches it), stops and exits 1,
	// as the Python resync client does; step 2 is judged again.
	stopped := ahead.addScript("broken-documents", `if [ "$RSCONFORM_STEP" = 1 ]; then
  "$RSCONFORM_BIN" validate "${RSCONFORM_SOURCE%/.well-known/resourcesync}/dataset1/changelist.xml" >&2
  exit 1
fi
"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 >/dev/null`)
	It("does not judge whether DIR is up to date after a Destination stopped on a broken document it reported", func() {
		res := ahead.get(stopped)
		Expect(verdict(res, 1, harness.RunCompletes.ID).Status).To(Equal(harness.Pass))
		for _, id := range []string{harness.AllPresent.ID, harness.AllCurrent.ID, harness.DeletedRemoved.ID} {
			v := verdict(res, 1, id)
			Expect(v.Status).To(Equal(harness.Skip), v.Line(1))
			Expect(v.Actual).To(HavePrefix("not judged: the Destination stopped on what the Source served broken (exit 1 after the Source served 1 broken response)"))
			Expect(v.Evidence).To(ConsistOf(ContainSubstring("/dataset1/changelist.xml 200 (malformed")))
		}
		Expect(verdict(res, 1, harness.NoExtraFiles.ID).Status).To(Equal(harness.Pass))
		Expect(verdict(res, 2, harness.DeletedRemoved.ID).Status).To(Equal(harness.Pass))
		Expect(failures(res)).To(BeEmpty())
	})

	hanging := ahead.addScriptWithin("baseline-resourcelist", `sleep 60 &
sleep 60`, 500*time.Millisecond)
	It("kills a hanging Destination at the timeout, with its children, and reports it", func() {
		res := ahead.get(hanging)
		Expect(res.Duration).To(BeNumerically("<", 15))
		for _, st := range res.Steps {
			v := verdict(res, st.Step, harness.RunCompletes.ID)
			Expect(v.Status).To(Equal(harness.Fail))
			Expect(v.Line(st.Step)).To(Equal(fmt.Sprintf("step %d [5.2] MUST the Destination's run completes: expected finished within 500ms with exit 0 (or non-zero after the Source served something broken), actual killed after 500ms (still running at the timeout)", st.Step)))
			Expect(verdict(res, st.Step, harness.AllPresent.ID).Actual).To(Equal("not judged: the run failed (killed at the timeout)"))
			Expect(st.Run.TimedOut).To(BeTrue())
		}
	})
})

var _ = Describe("rsconform test-destination", Label("Kind:cli"), func() {
	cli := func(args ...string) (int, string, string) {
		GinkgoHelper()
		cmd := exec.Command(rsconformBin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			_, ok := err.(*exec.ExitError)
			Expect(ok).To(BeTrue(), "%v", err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}

	It("exits 0 and writes JSON when every verdict passes", func() {
		code, out, errs := cli("test-destination", "--scenario", "multiple-changes-one-resource", "--format", "json",
			"--", rsconformBin, "sync", "{source}", "{dir}", "--rate", "40")
		Expect(code).To(Equal(0), errs)
		var rep reporter.DestinationReport
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
		Expect(rep.Tool).To(Equal("rsconform"))
		Expect(rep.Scenarios).To(HaveLen(1))
		Expect(rep.Summary.Failed).To(Equal(0))
		Expect(rep.Summary.Steps).To(Equal(4))
		Expect(rep.Summary.Verdicts).To(Equal(4 * len(harness.Requirements)))
	})

	It("exits 1 with a JUnit report, one testsuite per scenario and one testcase per step requirement", func() {
		code, out, _ := cli("test-destination", "--scenario", "create-update-delete,incremental-changelist",
			"--format", "junit", "--max-rate", "0", "--", "true")
		Expect(code).To(Equal(1))
		var suites struct {
			Suites []struct {
				Name     string `xml:"name,attr"`
				Tests    int    `xml:"tests,attr"`
				Failures int    `xml:"failures,attr"`
				Cases    []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal([]byte(out), &suites)).To(Succeed())
		Expect(suites.Suites).To(HaveLen(2))
		Expect(suites.Suites[0].Name).To(Equal("create-update-delete"))
		Expect(suites.Suites[0].Tests).To(Equal(5 * len(harness.Requirements)))
		Expect(suites.Suites[0].Failures).To(BeNumerically(">", 0))
		Expect(suites.Suites[0].Cases[1].Name).To(Equal("step 0 [5.2] MUST every resource of the Source is present"))
		Expect(suites.Suites[0].Cases[1].Failure.Message).To(HavePrefix("expected 10 resources present, actual 10 missing"))
	})

	It("prints one line per verdict in text", func() {
		code, out, _ := cli("test-destination", "--scenario", "create-update-delete", "--", rsconformBin, "sync", "{source}", "{dir}", "--rate", "40")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("PASS step 3 [5.2] MUST deleted resources are removed: expected 1 deleted resource absent, actual absent"))
		Expect(out).To(ContainSubstring("PASS step 4 [policy] POLICY the request rate stays within the limit: expected at most 50 requests in any second"))
		Expect(out).To(MatchRegexp(fmt.Sprintf(`1 scenario, 5 runs: %d verdicts, \d+ passed, 0 failed \(0 failing the run\), 0 not observed, \d+ skipped`, 5*len(harness.Requirements))))
	})

	DescribeTable("exits 2 on usage and scenario errors",
		func(msg string, args ...string) {
			code, _, errs := cli(append([]string{"test-destination"}, args...)...)
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring(msg))
		},
		Entry("no scenario", "no --scenario", "--", "true"),
		Entry("no command", "no Destination command", "--scenario", "wrong-hash"),
		Entry("an unknown scenario", "neither a built-in scenario", "--scenario", "nope", "--", "true"),
		Entry("a command that cannot start", "cannot be run", "--scenario", "wrong-hash", "--", "/nonexistent/destination"),
		Entry("an unknown format", "unknown format", "--scenario", "wrong-hash", "--format", "tap", "--", "true"),
	)

	It("prints help with the scenarios", func() {
		code, out, _ := cli("test-destination", "--help")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("incremental-changedump"))
		Expect(out).To(ContainSubstring("Examples:"))
	})
})

var _ = Describe("rsconform sync", Label("Kind:cli"), func() {
	var src *mocksource.Source
	var srv *httptest.Server
	BeforeEach(func() {
		sc, err := scenario.Load("wrong-hash")
		Expect(err).NotTo(HaveOccurred())
		src, err = mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		srv = httptest.NewServer(src.Handler())
		DeferCleanup(srv.Close)
	})
	cli := func(args ...string) (int, string, string) {
		GinkgoHelper()
		cmd := exec.Command(rsconformBin, append([]string{"sync"}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}

	It("exits 0 when synchronised, 1 on fixity problems, and audits (exit 1 out of sync)", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli(srv.URL, dir, "--rate", "0")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("40 fetched"))
		code, out, _ = cli(srv.URL+"/", dir, "--audit", "--rate", "0")
		Expect(code).To(Equal(0))
		Expect(out).To(HavePrefix("rsconform sync (audit)"))
		Expect(out).To(ContainSubstring("in sync: 40 resources checked"))

		_, err := src.Step()
		Expect(err).NotTo(HaveOccurred())
		code, out, _ = cli(srv.URL, dir, "--rate", "0", "--format", "json")
		Expect(code).To(Equal(1))
		var rep destination.Report
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
		Expect(rep.Rejected).To(Equal(1))
		Expect(rep.Problems).To(ConsistOf(HaveField("Kind", destination.ProblemFixity)))

		Expect(os.WriteFile(filepath.Join(dir, "res", "stray.txt"), []byte("x"), 0o644)).To(Succeed())
		code, out, _ = cli(srv.URL, dir, "--audit", "--rate", "0")
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("extra    res/stray.txt"))
		Expect(out).To(ContainSubstring("out of sync"))
	})

	DescribeTable("exits 2 when it cannot do its job, writing nothing",
		func(msg string, args ...string) {
			cwd := GinkgoT().TempDir()
			cmd := exec.Command(rsconformBin, append([]string{"sync"}, args...)...)
			cmd.Dir = cwd
			var errb bytes.Buffer
			cmd.Stderr = &errb
			cmd.Run()
			code, errs := cmd.ProcessState.ExitCode(), errb.String()
			entries, err := os.ReadDir(cwd)
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(BeEmpty())
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring(msg))
		},
		Entry("no arguments", "SOURCE and DIR expected"),
		Entry("two modes", "exclude each other", "http://127.0.0.1:1/", "d", "--baseline", "--audit"),
		Entry("an unreachable Source", "connection refused", "http://127.0.0.1:1/", "d", "--retries", "0"),
		Entry("not a URI", "not an http or https URI", "example.com", "d"),
	)

	It("prints help with examples", func() {
		code, out, _ := cli("--help")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("Examples:"))
		Expect(out).To(ContainSubstring("--incremental"))
	})
})

var _ = Describe("Many Destinations against one mock Source", Label("Section:concurrency"), func() {
	It("gives each the correct state after every step", func() {
		sc, err := scenario.Load("changelist-rollover")
		Expect(err).NotTo(HaveOccurred())
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(src.Handler())
		DeferCleanup(srv.Close)
		// Six: every pair of mode (auto, baseline: i%3 == 2) and
		// PreferDumps (i%2 == 1) at least once.
		dirs := make([]string, 6)
		for i := range dirs {
			dirs[i] = GinkgoT().TempDir()
		}
		for {
			var wg sync.WaitGroup
			for i, d := range dirs {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					o := destination.Options{Source: srv.URL + "/.well-known/resourcesync", Dir: d,
						HTTP: sourcehttp.Config{Backoff: 10 * time.Millisecond}, PreferDumps: i%2 == 1}
					if i%3 == 2 {
						o.Mode = destination.ModeBaseline
					}
					rep, err := destination.Run(context.Background(), o)
					Expect(err).NotTo(HaveOccurred())
					Expect(rep.Problems).To(BeEmpty())
				}()
			}
			wg.Wait()
			want := map[string]string{}
			for p, e := range src.Expected() {
				want[p] = e.SHA256
			}
			for _, d := range dirs {
				Expect(hashes(d)).To(Equal(want), d)
			}
			if _, err := src.Step(); err != nil {
				Expect(err).To(MatchError(mocksource.ErrFinished))
				break
			}
		}
	})
})

func verdict(res *harness.Result, step int, id string) harness.Verdict {
	GinkgoHelper()
	for _, st := range res.Steps {
		if st.Step != step {
			continue
		}
		for _, v := range st.Verdicts {
			if v.ID == id {
				return v
			}
		}
	}
	Fail(fmt.Sprintf("no verdict %s at step %d", id, step))
	return harness.Verdict{}
}

// writeScript writes an executable shell script that sees the rsconform
// binary as $RSCONFORM_BIN.
func writeScript(body string) string {
	GinkgoHelper()
	p := filepath.Join(GinkgoT().TempDir(), "destination.sh")
	Expect(os.WriteFile(p, scriptText(body), 0o755)).To(Succeed())
	return p
}

func scriptText(body string) []byte {
	return []byte("#!/bin/sh\nRSCONFORM_BIN='" + rsconformBin + "'\n" + body + "\n")
}

// hashes is the sha256 of every file of dir by "/path", without the
// Destination's own files.
func hashes(dir string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	for p, b := range filesIn(dir) {
		out["/"+p] = sha256hex(b)
	}
	return out
}
