package destination_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/discovery"
	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/sourcehttp"
)

// mockRun plays a built-in scenario, synchronising in-process after the
// steps chosen, and checks the copy against the Source's expected state
// after each of them. It returns the reports.
func mockRun(name string, o destination.Options, after func(step int) bool) (*mocksource.Source, []*destination.Report) {
	GinkgoHelper()
	return mockRunWith(name, mocksource.Options{}, o, after)
}

// mockRunWith is mockRun with options for the mock Source.
func mockRunWith(name string, mo mocksource.Options, o destination.Options, after func(step int) bool) (*mocksource.Source, []*destination.Report) {
	GinkgoHelper()
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	mo.Scenario = sc
	src, err := mocksource.New(mo)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(src.Handler())
	DeferCleanup(srv.Close)
	o.Source, o.Dir = srv.URL+"/.well-known/resourcesync", GinkgoT().TempDir()
	if o.HTTP.Backoff == 0 {
		o.HTTP.Backoff = 10 * time.Millisecond
	}
	var reps []*destination.Report
	for step := 0; ; step++ {
		if after(step) {
			rep, err := destination.Run(context.Background(), o)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.Problems).To(BeEmpty(), "step %d", step)
			want := map[string]string{}
			for p, e := range src.Expected() {
				want[p] = e.SHA256
			}
			Expect(hashes(o.Dir)).To(Equal(want), "step %d", step)
			reps = append(reps, rep)
		}
		if _, err := src.Step(); err != nil {
			Expect(err).To(MatchError(mocksource.ErrFinished))
			return src, reps
		}
	}
}

var _ = Describe("A flaky Source on the clock the mock shares with the client", func() {
	It("is synchronised through its 503s with Retry-After, its delays, a 500, a dropped connection and a cut body, and none of their waits is real", func() {
		clock := sourcehttp.NewStepClock(time.Now())
		src, reps := mockRunWith("flaky-server", mocksource.Options{Sleep: clock.Sleep},
			destination.Options{HTTP: sourcehttp.Config{Clock: clock, Backoff: 3 * time.Millisecond}}, func(int) bool { return true })
		Expect(reps).To(HaveLen(3))
		// Every delay the mock served (20 ms for each /res/*) moved the
		// shared clock on instead of holding the request; the client's
		// back-off (3 ms, doubled) cannot be taken for one.
		delays, slept := 0, 0
		for _, r := range src.Log() {
			if strings.Contains(r.Fault, "latency=20ms") {
				delays++
			}
		}
		for _, d := range clock.Waits() {
			if d == 20*time.Millisecond {
				slept++
			}
		}
		Expect(delays).To(BeNumerically(">", 0))
		Expect(slept).To(Equal(delays))
		// The Change List answered 503 with Retry-After 2 twice, then
		// 200: two pauses of the host, on the same clock.
		var answers []int
		for _, r := range src.Log() {
			if r.Path == "/dataset1/changelist.xml" {
				answers = append(answers, r.Status)
			}
		}
		Expect(answers).To(Equal([]int{200, 503, 503, 200, 200}), "steps 0, 1 (503 twice, then 200) and 2")
		Expect(clock.Waits()).To(ContainElements(2*time.Second, 2*time.Second))
	})
})

var _ = Describe("Incremental synchronisation from Change Dumps [13.1, 13.2]", Label("Section:13.1"), func() {
	It("applies the packages in order, unpacking the last bitstream of each resource", func() {
		src, reps := mockRun("incremental-changedump", destination.Options{PreferDumps: true}, func(int) bool { return true })
		Expect(reps).To(HaveLen(4))
		for _, rep := range reps[1:] {
			Expect(rep.Packages).To(Equal(1))
			Expect(rep.Sets[0].Changes).NotTo(BeEmpty())
		}
		// After the baseline, every resource came out of a package.
		for _, r := range src.Log() {
			if strings.HasPrefix(r.Path, "/res/") && r.Status == 200 {
				Expect(r.Time).To(Equal(scenario.DefaultStart), r.Path)
			}
		}
	})
})

var _ = Describe("Catching up [12.1, Archives]", Label("Section:12.1"), func() {
	It("reads closed Change Lists that left the index from the Change List Archive", func() {
		_, reps := mockRun("catch-up-archive", destination.Options{}, func(step int) bool { return step == 0 || step == 6 })
		Expect(reps[1].Sets[0].Baseline).To(BeEmpty())
		Expect(reps[1].Sets[0].Changes).To(ContainElement(HaveSuffix("/dataset1/changelist/1.xml")))
	})

	It("makes a new baseline when changes since the last run are no longer published", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(6)
		src.retain = 1
		run(src.opts(dir))
		src.update("/res/001.txt", 2)
		src.closeList()
		src.update("/res/002.txt", 2)
		src.closeList()
		src.remove("/res/003.txt")
		src.publish()
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Notes).To(ContainElement(ContainSubstring("making a new baseline")))
		Expect(rep.Sets[0].Baseline).To(HaveSuffix("/resourcelist.xml"))
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/001.txt": 1, "/res/002.txt": 1}))
		src.expectMirror(dir)
	})
})

var _ = Describe("Discovery [6.3]", Label("Section:6.3"), func() {
	DescribeTable("finds the Capability List from a page",
		func(serve func(src *testSource, w http.ResponseWriter)) {
			dir := GinkgoT().TempDir()
			src := newTestSource(3)
			src.hook = func(w http.ResponseWriter, r *http.Request) bool {
				switch r.URL.Path {
				case discovery.WellKnownPath:
					http.NotFound(w, r)
				case "/page":
					serve(src, w)
				default:
					return false
				}
				return true
			}
			o := src.opts(dir)
			o.Source = src.url("/page")
			rep := run(o)
			Expect(rep.Sets).To(ConsistOf(HaveField("CapabilityList", src.url("/capabilitylist.xml"))))
			src.expectMirror(dir)
		},
		Entry("an HTTP Link header [6.3.3]", func(src *testSource, w http.ResponseWriter) {
			w.Header().Add("Link", `<`+src.url("/other")+`>; rel="alternate", <`+src.url("/capabilitylist.xml")+`>; rel="resourcesync"`)
			w.Write([]byte("plain text"))
		}),
		Entry("an HTML link [6.3.3]", func(src *testSource, w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!DOCTYPE html><html><head><link rel="stylesheet" href="/s.css"><link rel="resourcesync" href="/capabilitylist.xml"></head><body></body></html>`))
		}),
	)

	It("follows the up link of a Resource List given as the Source", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(3)
		o := src.opts(dir)
		o.Source = src.url("/resourcelist.xml")
		rep := run(o)
		Expect(rep.Sets).To(ConsistOf(HaveField("CapabilityList", src.url("/capabilitylist.xml"))))
		src.expectMirror(dir)
	})

	It("fails, writing nothing, when there is no Source", func() {
		dir := GinkgoT().TempDir() + "/never"
		srv := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(srv.Close)
		_, err := destination.Run(context.Background(), destination.Options{Source: srv.URL + "/x", Dir: dir})
		Expect(err).To(MatchError(ContainSubstring("404")))
		Expect(dir).NotTo(BeADirectory())
	})
})

var _ = Describe("Harness reports", Label("Kind:harness"), func() {
	It("writes text, JSON, JUnit and SARIF for the same results", func() {
		res := playScenario("create-update-delete", time.Minute, "true")
		results := []*harness.Result{res}
		Expect(res.Failed(false)).To(BeTrue())
		s := harness.Summarize(results, false)
		Expect(s.Steps).To(Equal(5))
		Expect(s.Verdicts).To(Equal(s.Passed + s.Failed + s.NotObserved + s.Skipped))
		Expect(s.NotObserved).To(BeNumerically(">", 0))
		o := reporter.Options{Version: "test"}

		var text bytes.Buffer
		Expect(reporter.WriteDestination(&text, "text", results, reporter.Options{Verbose: true})).To(Succeed())
		Expect(text.String()).To(ContainSubstring("FAIL step 0 [5.2] MUST every resource of the Source is present: expected 10 resources present, actual 10 missing: /res/0000000.txt"))
		Expect(text.String()).To(ContainSubstring("SKIP step 0 [1.3] POLICY"))
		Expect(text.String()).To(ContainSubstring("NOT OBSERVED step 1 [1.3] POLICY unchanged resources are not downloaded again: expected no download of a resource held unchanged, actual the Destination made no request in this run"))
		Expect(text.String()).To(MatchRegexp(`\d+ failed \(\d+ failing the run\), \d+ not observed`))

		var js bytes.Buffer
		Expect(reporter.WriteDestination(&js, "json", results, o)).To(Succeed())
		var rep reporter.DestinationReport
		Expect(json.Unmarshal(js.Bytes(), &rep)).To(Succeed())
		Expect(rep.Summary).To(Equal(s))
		Expect(rep.Scenarios[0].Steps[3].Verdicts[0].ID).To(Equal(harness.RunCompletes.ID))
		Expect(rep.Scenarios[0].Steps[3].Verdicts[0].Level).To(Equal(harness.Must))
		Expect(js.String()).To(ContainSubstring(`"status": "not-observed"`))

		var ju bytes.Buffer
		Expect(reporter.WriteDestination(&ju, "junit", results, o)).To(Succeed())
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Classname string `xml:"classname,attr"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(ju.Bytes(), &suites)).To(Succeed())
		Expect(suites.Tests).To(Equal(s.Verdicts))
		Expect(suites.Failures).To(Equal(s.Failing))
		Expect(suites.Suites[0].Cases[0].Classname).To(Equal("create-update-delete.DEST-RUN"))
		Expect(ju.String()).To(ContainSubstring("not observed: expected no download"))

		var sa bytes.Buffer
		Expect(reporter.WriteDestination(&sa, "sarif", results, o)).To(Succeed())
		var sarif struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID string `json:"ruleId"`
					Kind   string `json:"kind"`
					Level  string `json:"level"`
				} `json:"results"`
			} `json:"runs"`
		}
		Expect(json.Unmarshal(sa.Bytes(), &sarif)).To(Succeed())
		Expect(sarif.Runs[0].Tool.Driver.Rules).To(HaveLen(len(harness.Requirements)))
		Expect(sarif.Runs[0].Results).To(HaveLen(s.Failed + s.NotObserved))
		Expect(sarif.Runs[0].Results).To(ContainElement(And(HaveField("RuleID", "DEST-NO-REFETCH"), HaveField("Kind", "open"), HaveField("Level", "none"))))
		Expect(sarif.Runs[0].Results).To(ContainElement(And(HaveField("RuleID", "DEST-PRESENT"), HaveField("Kind", "fail"), HaveField("Level", "error"))))
	})
})
