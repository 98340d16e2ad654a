package monitor_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/monitor"
	_ "github.com/rsconform/rsconform/rules" // the catalogue
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
)

var validator = func() *engine.Validator {
	sv, err := frontend.New()
	if err != nil {
		panic(err)
	}
	return &engine.Validator{Config: engine.Config{Spec: engine.Spec11}, Schema: sv}
}()

// fakeClock is a clock whose waits end when the test moves it on.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*waiter
}

type waiter struct {
	at   time.Time
	done chan struct{}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	w := &waiter{at: c.now.Add(d), done: make(chan struct{})}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next moves the clock to the earliest wait and ends it; false when
// nobody waits.
func (c *fakeClock) next() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return false
	}
	sort.Slice(c.waiters, func(i, j int) bool { return c.waiters[i].at.Before(c.waiters[j].at) })
	w := c.waiters[0]
	c.waiters = c.waiters[1:]
	if w.at.After(c.now) {
		c.now = w.at
	}
	close(w.done)
	return true
}

func (c *fakeClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

func mockServer(name string) *httptest.Server {
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	src, srv := serveScenario(sc)
	Expect(src.PlayToEnd()).To(Succeed())
	return srv
}

// serveScenario serves sc, at its step 0.
func serveScenario(sc *scenario.Scenario) (*mocksource.Source, *httptest.Server) {
	src, err := mocksource.New(mocksource.Options{Scenario: sc})
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(src.Handler())
	DeferCleanup(srv.Close)
	return src, srv
}

// steppedServer serves the scenario of cmd/rsconform's monitor test,
// clean at first; Step makes it advertise a wrong hash.
func steppedServer() (*mocksource.Source, *httptest.Server) {
	data, err := os.ReadFile(filepath.Join("..", "cmd", "rsconform", "testdata", "monitor-regression.yaml"))
	Expect(err).NotTo(HaveOccurred())
	sc, err := scenario.Parse("monitor-regression.yaml", data)
	Expect(err).NotTo(HaveOccurred())
	return serveScenario(sc)
}

func openStore() (*monitor.Store, string) {
	path := filepath.Join(GinkgoT().TempDir(), "monitor.db")
	store, err := monitor.Open(context.Background(), path)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(store.Close)
	return store, path
}

func source(name, url string, every time.Duration) monitor.Source {
	return monitor.Source{Name: name, URL: url, Every: every, Spec: "1.1",
		Options: crawler.Options{Validator: validator, Sample: 3, SampleSet: true, HTTP: sourcehttp.Config{Retries: sourcehttp.NoRetries}}}
}

func key(doc, rule string) fingerprint.Key {
	return fingerprint.Key{Document: doc, Rule: rule, Message: "m"}
}

var _ = Describe("What a run changed", func() {
	It("counts a fingerprint seen more often as new, less often as fixed", func() {
		before := map[fingerprint.Key]monitor.Finding{
			key("a", "R1"): {Key: key("a", "R1"), Severity: "error", Count: 2},
			key("a", "R2"): {Key: key("a", "R2"), Severity: "warning", Count: 1},
			key("b", "R1"): {Key: key("b", "R1"), Severity: "error", Count: 1},
		}
		now := []monitor.Finding{
			{Key: key("a", "R1"), Severity: "error", Count: 1},
			{Key: key("b", "R1"), Severity: "error", Count: 3},
			{Key: key("c", "R3"), Severity: "error", Count: 1},
		}
		r := monitor.Diff(before, now)
		Expect(r.New).To(Equal([]monitor.Finding{
			{Key: key("b", "R1"), Severity: "error", Count: 2},
			{Key: key("c", "R3"), Severity: "error", Count: 1},
		}))
		Expect(r.Fixed).To(Equal([]monitor.Finding{
			{Key: key("a", "R1"), Severity: "error", Count: 1},
			{Key: key("a", "R2"), Severity: "warning", Count: 1},
		}))
	})

	It("judges a sampled finding by its fingerprint, not its count", func() {
		s1 := fingerprint.Key{Document: "l", Rule: "RS-REP-HASH", Message: "URL", Sampled: true}
		s2 := fingerprint.Key{Document: "l", Rule: "RS-REP-LENGTH", Message: "URL", Sampled: true}
		before := map[fingerprint.Key]monitor.Finding{s1: {Key: s1, Severity: "error", Count: 3}}
		now := []monitor.Finding{{Key: s1, Severity: "error", Count: 5}, {Key: s2, Severity: "error", Count: 1}}
		r := monitor.Diff(before, now)
		Expect(r.New).To(Equal([]monitor.Finding{{Key: s2, Severity: "error", Count: 1}}))
		Expect(r.Fixed).To(BeEmpty())
		r = monitor.Diff(before, []monitor.Finding{{Key: s1, Severity: "error", Count: 1}})
		Expect(r.New).To(BeEmpty())
		Expect(r.Fixed).To(BeEmpty())
		r = monitor.Diff(before, nil)
		Expect(r.Fixed).To(Equal([]monitor.Finding{before[s1]}))
	})

})

var _ = Describe("Findings beyond the cap on findings per rule", func() {
	It("are not fixed when counted, nor new when kept again: diff by the totals of the rule in the document", func() {
		x := fingerprint.Key{Document: "a", Rule: "R1", Message: "x"}
		y := fingerprint.Key{Document: "a", Rule: "R1", Message: "y"}
		z := fingerprint.Key{Document: "a", Rule: "R1", Message: "z"}
		all := map[fingerprint.Key]monitor.Finding{x: {Key: x, Severity: "error", Count: 1}, y: {Key: y, Severity: "error", Count: 1}}
		capped := []monitor.Omitted{{Document: "a", Rule: "R1", Count: 1}}
		// Run 1 kept x and y; run 2 kept x and counted y.
		r := monitor.DiffOmitted(all, nil, []monitor.Finding{all[x]}, capped)
		Expect(r.Fixed).To(BeEmpty())
		Expect(r.New).To(BeEmpty())
		Expect(monitor.Diff(all, []monitor.Finding{all[x]}).Fixed).To(HaveLen(1), "without the count, y looks fixed")
		// Back: run 2 kept x, counted one; run 3 keeps x and y.
		r = monitor.DiffOmitted(map[fingerprint.Key]monitor.Finding{x: all[x]}, capped, []monitor.Finding{all[x], all[y]}, nil)
		Expect(r.New).To(BeEmpty())
		// The total grew from 2 to 5: three of the findings kept that run 2 did not are new.
		r = monitor.DiffOmitted(map[fingerprint.Key]monitor.Finding{x: all[x]}, capped,
			[]monitor.Finding{all[x], all[y], {Key: z, Severity: "error", Count: 3}}, nil)
		Expect(r.New).To(Equal([]monitor.Finding{all[y], {Key: z, Severity: "error", Count: 2}}))
		// The total fell by 1 of 3: one of run 1's is fixed, whichever.
		r = monitor.DiffOmitted(all, capped, []monitor.Finding{all[x]}, nil)
		Expect(r.Fixed).To(Equal([]monitor.Finding{all[y]}))
		// Another rule or document is diffed finding by finding.
		w := fingerprint.Key{Document: "b", Rule: "R1", Message: "w"}
		r = monitor.DiffOmitted(map[fingerprint.Key]monitor.Finding{w: {Key: w, Severity: "error", Count: 1}}, nil, nil, capped)
		Expect(r.Fixed).To(HaveLen(1))
	})

	It("between runs of a live Source: a finding kept in run 1 and counted in run 2 is not fixed", func() {
		srv := mockServer("time-zone-offsets")
		store, _ := openStore()
		runWith := func(max int) monitor.Result {
			v := *validator
			v.Config.MaxFindingsPerRule = max
			src := source("a", srv.URL+"/", time.Hour)
			src.Options.Validator = &v
			m, err := monitor.New(monitor.Config{Store: store, Sources: []monitor.Source{src}})
			Expect(err).NotTo(HaveOccurred())
			res := m.RunOnce(context.Background())[0]
			Expect(res.Err).NotTo(HaveOccurred())
			return res
		}
		first := runWith(0) // every finding kept
		Expect(first.FirstRun).To(BeTrue())
		fs, err := store.Findings(context.Background(), first.Run.ID)
		Expect(err).NotTo(HaveOccurred())
		counted := 0
		for _, f := range fs {
			counted += f.Count
		}
		Expect(len(fs)).To(BeNumerically("<", counted), "findings that differ only in numbers share a fingerprint")
		Expect(counted).To(Equal(first.Run.Errors+first.Run.Warnings+first.Run.Infos), "each finding counted once under its fingerprint")
		second := runWith(2)
		Expect(second.Run.Warnings + second.Run.Errors).To(Equal(first.Run.Warnings + first.Run.Errors))
		Expect(second.Changes.Fixed).To(BeEmpty())
		Expect(second.Run.Fixed).To(BeZero())
		om, err := store.OmittedOf(context.Background(), second.Run.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(om).NotTo(BeEmpty(), "the counted findings are recorded")
		third := runWith(0) // kept again
		Expect(third.Run.New + third.Run.Fixed).To(BeZero())
	})
})

var _ = Describe("A Source's first run", func() {
	alerts := func() (*monitor.Alerter, func() []string) {
		dir := GinkgoT().TempDir()
		return &monitor.Alerter{Command: "cat > " + dir + "/$$.json"}, func() []string {
			files, err := filepath.Glob(dir + "/*.json")
			Expect(err).NotTo(HaveOccurred())
			return files
		}
	}

	It("records its findings as the baseline: none is new, none is alerted on", func() {
		srv := mockServer("wrong-hash")
		store, _ := openStore()
		alerter, sent := alerts()
		alerter.Store = store
		m, err := monitor.New(monitor.Config{Store: store, Alerts: alerter,
			Sources: []monitor.Source{source("a", srv.URL+"/", time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		first := m.RunOnce(context.Background())[0]
		Expect(first.Err).NotTo(HaveOccurred())
		Expect(first.FirstRun).To(BeTrue())
		Expect(first.Run.Errors).To(BeNumerically(">", 0))
		Expect(first.Run.New + first.Run.NewErrors + first.Run.Fixed).To(BeZero())
		Expect(first.Changes.New).To(BeEmpty())
		Expect(first.Failing()).To(BeFalse())
		Expect(sent()).To(BeEmpty())
		fs, err := store.Findings(context.Background(), first.Run.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).NotTo(BeEmpty(), "the baseline is recorded")

		second := m.RunOnce(context.Background())[0]
		Expect(second.FirstRun).To(BeFalse())
		Expect(second.Run.Baseline).To(Equal(first.Run.ID))
		Expect(second.Run.New).To(BeZero())
	})

	It("reports an entry point unreachable from the first run on as unreachable, not as a new error", func() {
		srv := mockServer("baseline-resourcelist")
		url := srv.URL + "/"
		srv.Close()
		store, _ := openStore()
		alerter, sent := alerts()
		alerter.Store = store
		m, err := monitor.New(monitor.Config{Store: store, Alerts: alerter,
			Sources: []monitor.Source{source("a", url, time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		res := m.RunOnce(context.Background())[0]
		Expect(res.Run.Status).To(Equal(monitor.StatusUnreachable))
		Expect(res.NewlyUnreachable).To(BeFalse())
		Expect(res.NeverReached).To(BeTrue())
		Expect(res.FirstRun).To(BeFalse(), "no complete run yet")
		Expect(res.Failing()).To(BeFalse())
		Expect(res.Changes.New).To(BeEmpty())
		Expect(sent()).To(BeEmpty())
	})
})

var _ = Describe("Politeness", func() {
	It("keeps one rate per host across Sources, the smallest they ask for", func() {
		c := sourcehttp.NewStepClock(time.Unix(0, 0))
		waits := monitor.HostWaits(c, map[string][]float64{"a:80": {5, 2, 0}, "b:80": {0}},
			[]string{"a:80", "a:80", "a:80", "b:80", "b:80", "cdn:443", "cdn:443"}, 4)
		Expect(waits).To(Equal([]time.Duration{0, 500 * time.Millisecond, time.Second, 0, 250 * time.Millisecond, 0, 250 * time.Millisecond}))
	})
})

var _ = Describe("The store", func() {
	It("refuses a second monitor on one database", func() {
		_, path := openStore()
		_, err := monitor.Open(context.Background(), path)
		Expect(err).To(MatchError(monitor.ErrLocked))
	})

	It("refuses a database of a newer schema, and a SQLite file that is not a monitor's", func() {
		for _, setup := range []string{"PRAGMA user_version = 99", "CREATE TABLE t(x)"} {
			path := filepath.Join(GinkgoT().TempDir(), "other.db")
			db, err := sql.Open("sqlite3", path)
			Expect(err).NotTo(HaveOccurred())
			_, err = db.Exec(setup)
			Expect(err).NotTo(HaveOccurred())
			db.Close()
			_, err = monitor.Open(context.Background(), path)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(Or(ContainSubstring("newer than this rsconform's"), ContainSubstring("not a monitor's")))
		}
	})

	It("records, and logs, why a run's full report is not kept when it is over the store's bound", func() {
		srv := mockServer("wrong-hash")
		store, _ := openStore()
		monitor.SetMaxReportBytes(store, 1024)
		var logged []string
		m, err := monitor.New(monitor.Config{Store: store, Sources: []monitor.Source{source("a", srv.URL+"/", time.Hour)},
			Logf: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }})
		Expect(err).NotTo(HaveOccurred())
		res := m.RunOnce(context.Background())[0]
		Expect(res.Err).NotTo(HaveOccurred())
		Expect(res.Run.ReportNote).To(MatchRegexp(`^the json report is \d+ bytes, more than the 1024 bytes the monitor keeps of one report$`))
		run, err := store.Run(context.Background(), res.Run.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(run.HasReport).To(BeFalse())
		Expect(run.ReportNote).To(Equal(res.Run.ReportNote))
		Expect(logged).To(ContainElement(fmt.Sprintf("a: run %d: its full report is not kept: %s", run.ID, run.ReportNote)))
	})

	It("keeps the full reports of the last N runs of each Source, the findings of all", func() {
		srv := mockServer("wrong-hash")
		store, _ := openStore()
		m, err := monitor.New(monitor.Config{Store: store, KeepReports: 2,
			Sources: []monitor.Source{source("a", srv.URL+"/", time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		ctx := context.Background()
		for i := 0; i < 4; i++ {
			res := m.RunOnce(ctx)
			Expect(res[0].Err).NotTo(HaveOccurred())
		}
		runs, err := store.Runs(ctx, "a", 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(runs).To(HaveLen(4))
		var kept []bool
		for _, r := range runs {
			kept = append(kept, r.HasReport)
			f, err := store.Findings(ctx, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(f).NotTo(BeEmpty())
		}
		Expect(kept).To(Equal([]bool{true, true, false, false}))
		// The first run is the baseline: nothing new in any run.
		Expect(runs[3].Errors).To(BeNumerically(">", 0))
		Expect(runs[3].New + runs[2].New + runs[1].New + runs[0].New).To(BeZero())
		_, err = store.Report(ctx, runs[3].ID, "html")
		Expect(err).To(MatchError(monitor.ErrNotFound))
	})
})

var _ = Describe("The store's full reports", func() {
	// finish records a finished run of Source a with reports json and html.
	finish := func(store *monitor.Store, json, html string) int64 {
		ctx := context.Background()
		id, err := store.StartRun(ctx, "a", "http://a.test/", time.Now())
		Expect(err).NotTo(HaveOccurred())
		Expect(store.FinishRun(ctx, &monitor.Outcome{Run: monitor.Run{ID: id, Status: monitor.StatusOK},
			JSON: []byte(json), HTML: []byte(html)}, 10)).To(Succeed())
		return id
	}

	It("are read back within their bound; one that unzips to more (a crafted zip bomb) is refused, naming the run", func() {
		store, path := openStore()
		monitor.SetMaxReportBytes(store, 1<<20)
		ctx := context.Background()
		id := finish(store, "{}", strings.Repeat("h", 1<<20))
		b, err := store.Report(ctx, id, "html")
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(HaveLen(1 << 20))

		// 8 MiB of zeros (eight times the bound), 8 KiB zipped, put in the
		// database behind the store's back.
		var bomb bytes.Buffer
		zw := gzip.NewWriter(&bomb)
		_, err = zw.Write(make([]byte, 8<<20))
		Expect(err).NotTo(HaveOccurred())
		Expect(zw.Close()).To(Succeed())
		db, err := sql.Open("sqlite3", path)
		Expect(err).NotTo(HaveOccurred())
		defer db.Close()
		_, err = db.Exec(`UPDATE reports SET json = ? WHERE run_id = ?`, bomb.Bytes(), id)
		Expect(err).NotTo(HaveOccurred())
		b, err = store.Report(ctx, id, "json")
		Expect(len(b)).To(BeZero(), "the bytes read of a refused report")
		var le *safefile.LimitError
		Expect(errors.As(err, &le)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(Equal(fmt.Sprintf("run %d: the json report is larger than 1 MiB, more than any json report needs: refused", id)))
	})

	It("are not kept beyond their bound, which they could not be read back within", func() {
		store, _ := openStore()
		monitor.SetMaxReportBytes(store, 1<<20)
		id := finish(store, "{}", strings.Repeat("h", 1<<20+1))
		run, err := store.Run(context.Background(), id)
		Expect(err).NotTo(HaveOccurred())
		Expect(run.HasReport).To(BeFalse())
		_, err = store.Report(context.Background(), id, "json")
		Expect(err).To(MatchError(monitor.ErrNotFound))
		why := "the html report is 1048577 bytes, more than the 1 MiB the monitor keeps of one report"
		Expect(run.ReportNote).To(Equal(why), "the run says why it has no report")
		sources, err := store.Sources(context.Background(), 3)
		Expect(err).NotTo(HaveOccurred())
		Expect(sources).To(HaveLen(1))
		Expect(sources[0].Last.ReportNote).To(Equal(why))

		kept := finish(store, "{}", "<p>")
		run, err = store.Run(context.Background(), kept)
		Expect(err).NotTo(HaveOccurred())
		Expect(run.HasReport).To(BeTrue())
		Expect(run.ReportNote).To(BeEmpty())

		dash := httptest.NewServer(monitor.Dashboard(store, "test"))
		defer dash.Close()
		resp, err := http.Get(dash.URL + "/sources/a")
		Expect(err).NotTo(HaveOccurred())
		page, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(page)).To(ContainSubstring("not kept: " + why))
	})

	It("dropped for later runs (--keep-reports) say so on the dashboard and in the JSON; one over the bound keeps its reason", func() {
		store, _ := openStore()
		monitor.SetMaxReportBytes(store, 1<<20)
		ctx := context.Background()
		var ids []int64
		for _, html := range []string{strings.Repeat("h", 1<<20+1), "<p>1", "<p>2", "<p>3", "<p>4"} {
			id, err := store.StartRun(ctx, "a", "http://a.test/", time.Now())
			Expect(err).NotTo(HaveOccurred())
			Expect(store.FinishRun(ctx, &monitor.Outcome{Run: monitor.Run{ID: id, Status: monitor.StatusOK},
				JSON: []byte("{}"), HTML: []byte(html)}, 2)).To(Succeed())
			ids = append(ids, id)
		}
		tooLarge := "the html report is 1048577 bytes, more than the 1 MiB the monitor keeps of one report"
		dropped := "older than the last 2 runs of its Source, which keep their full reports (--keep-reports 2)"
		want := []string{tooLarge, dropped, dropped, "", ""}
		for i, id := range ids {
			run, err := store.Run(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(run.ReportNote).To(Equal(want[i]), "run %d", i+1)
			Expect(run.HasReport).To(Equal(want[i] == ""), "run %d", i+1)
		}

		dash := httptest.NewServer(monitor.Dashboard(store, "test"))
		defer dash.Close()
		get := func(path string) string {
			resp, err := http.Get(dash.URL + path)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return string(b)
		}
		Expect(get("/sources/a")).To(ContainSubstring("not kept: " + dropped))
		var api struct {
			Runs []struct {
				ID   int64  `json:"id"`
				Note string `json:"report_note"`
			} `json:"runs"`
		}
		Expect(json.Unmarshal([]byte(get("/api/sources/a/runs")), &api)).To(Succeed())
		notes := map[int64]string{}
		for _, r := range api.Runs {
			notes[r.ID] = r.Note
		}
		Expect(notes).To(Equal(map[int64]string{ids[0]: tooLarge, ids[1]: dropped, ids[2]: dropped, ids[3]: "", ids[4]: ""}))
	})
})

var _ = Describe("The dashboard's list of Sources", func() {
	It("has each Source's last run, number of runs and trend, in queries whose number does not grow with the Sources", func() {
		store, path := openStore()
		ctx := context.Background()
		const trend = 3
		// Source i has i runs: statuses and error counts vary.
		statuses := []string{monitor.StatusOK, monitor.StatusUnreachable, monitor.StatusOK, monitor.StatusInterrupted, monitor.StatusOK}
		var sources []monitor.Source
		for i := 0; i < 6; i++ {
			name := fmt.Sprintf("s%d", i)
			sources = append(sources, monitor.Source{Name: name, URL: "http://" + name + ".test/"})
			for j := 0; j < i; j++ {
				id, err := store.StartRun(ctx, name, "http://"+name+".test/", time.UnixMilli(int64(1000*(i*10+j))))
				Expect(err).NotTo(HaveOccurred())
				if i == 5 && j == i-1 {
					continue // in progress
				}
				Expect(store.FinishRun(ctx, &monitor.Outcome{Run: monitor.Run{ID: id, Status: statuses[(i+j)%len(statuses)],
					Errors: 10*i + j, Warnings: j, Documents: i + j}, JSON: []byte("{}")}, 2)).To(Succeed())
			}
		}
		Expect(store.Declare(ctx, sources)).To(Succeed())

		reader, queries := monitor.OpenCounting(path)
		DeferCleanup(reader.Close)
		list, err := reader.Sources(ctx, trend)
		Expect(err).NotTo(HaveOccurred())
		Expect(queries.Load()).To(Equal(int64(1)), "queries for %d Sources", len(sources))

		// What each Source's own runs say.
		Expect(list).To(HaveLen(len(sources)))
		for i, ss := range list {
			name := fmt.Sprintf("s%d", i)
			Expect(ss.Name).To(Equal(name))
			Expect(ss.URL).To(Equal("http://" + name + ".test/"))
			all, err := store.Runs(ctx, name, 100)
			Expect(err).NotTo(HaveOccurred())
			Expect(ss.Runs).To(Equal(len(all)), name)
			Expect(ss.Runs).To(Equal(i), name)
			if len(all) == 0 {
				Expect(ss.Last).To(BeNil(), name)
			} else {
				Expect(ss.Last).NotTo(BeNil(), name)
				Expect(*ss.Last).To(Equal(all[0]), name)
			}
			Expect(ss.Trend).To(Equal(monitor.TrendOf(all, trend)), name)
			Expect(ss.Trend).NotTo(BeNil(), "JSON [] when no run")
		}
		Expect(list[5].Last.Status).To(Equal(monitor.StatusRunning))
		Expect(list[4].Last.HasReport).To(BeTrue())
		Expect(list[4].Trend).To(Equal([]int{41, 43}))
	})

	It("reads each Source's last runs through runs_by_source, not every run, when Sources have many runs", func() {
		store, _ := openStore()
		ctx := context.Background()
		const trend, perSource = 4, 12
		var sources []monitor.Source
		for i := 0; i < 3; i++ {
			name := fmt.Sprintf("m%d", i)
			sources = append(sources, monitor.Source{Name: name, URL: "http://" + name + ".test/"})
		}
		Expect(store.Declare(ctx, sources)).To(Succeed())
		// Runs of the Sources interleaved, so a Source's last runs are not
		// the table's last rows.
		for j := 0; j < perSource; j++ {
			for _, src := range sources {
				id, err := store.StartRun(ctx, src.Name, src.URL, time.UnixMilli(int64(1000*j)))
				Expect(err).NotTo(HaveOccurred())
				Expect(store.FinishRun(ctx, &monitor.Outcome{Run: monitor.Run{ID: id, Status: monitor.StatusOK, Errors: j}, JSON: []byte("{}")}, 1)).To(Succeed())
			}
		}

		list, err := store.Sources(ctx, trend)
		Expect(err).NotTo(HaveOccurred())
		Expect(list).To(HaveLen(len(sources)))
		for _, ss := range list {
			Expect(ss.Runs).To(Equal(perSource), ss.Name)
			last, err := store.Runs(ctx, ss.Name, trend)
			Expect(err).NotTo(HaveOccurred())
			Expect(*ss.Last).To(Equal(last[0]), ss.Name)
			Expect(ss.Trend).To(Equal(monitor.TrendOf(last, trend)), ss.Name)
		}

		// The plan, not a wall clock (which flakes under load): every step
		// on runs goes through runs_by_source (the counts: a covering scan
		// of the index; the last runs: a search per Source) or its
		// primary key; none scans the table's rows or ranks them.
		plan, err := monitor.QueryPlan(ctx, store, monitor.SourcesQuery, trend)
		Expect(err).NotTo(HaveOccurred())
		text := strings.Join(plan, "\n")
		GinkgoWriter.Println(text)
		Expect(text).To(MatchRegexp(`SEARCH x USING COVERING INDEX runs_by_source \(source_id=\?\)`), text)
		for _, step := range plan {
			switch {
			case regexp.MustCompile(`^SCAN (runs|r|x)\b`).MatchString(step):
				Expect(step).To(ContainSubstring("USING COVERING INDEX runs_by_source"), text)
			case regexp.MustCompile(`^SEARCH (runs|r|x)\b`).MatchString(step):
				Expect(step).To(Or(ContainSubstring("USING COVERING INDEX runs_by_source"), ContainSubstring("USING INTEGER PRIMARY KEY")), text)
			}
		}
	})
})

var _ = Describe("Alerts", func() {
	It("posts a regression to the webhook, retrying a failure, once per regression", func() {
		mock, srv := steppedServer()
		var posts atomic.Int32
		var bodies []string
		var mu sync.Mutex
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if posts.Add(1) == 1 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
		}))
		defer hook.Close()
		store, _ := openStore()
		clock := sourcehttp.NewStepClock(time.Unix(0, 0))
		m, err := monitor.New(monitor.Config{Store: store, Clock: clock,
			Alerts:  &monitor.Alerter{Webhook: hook.URL, Retries: 2, Backoff: time.Second, Clock: clock, Store: store},
			Sources: []monitor.Source{source("a", srv.URL+"/", time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.RunOnce(context.Background())[0].FirstRun).To(BeTrue()) // clean: the baseline
		_, err = mock.Step()                                             // a wrong hash
		Expect(err).NotTo(HaveOccurred())
		m.RunOnce(context.Background())
		m.RunOnce(context.Background())
		Expect(posts.Load()).To(BeEquivalentTo(2), "one failure, one delivery; nothing for the third run")
		Expect(clock.Waits()).To(Equal([]time.Duration{time.Second}))
		Expect(bodies).To(HaveLen(1))
		var a monitor.Alert
		Expect(json.Unmarshal([]byte(bodies[0]), &a)).To(Succeed())
		Expect(a.Source).To(Equal("a"))
		Expect(a.Run).To(BeEquivalentTo(2))
		rules := map[string]bool{}
		for _, f := range a.New {
			rules[f.Rule] = true
			Expect(f.Severity).To(Equal("error"))
		}
		Expect(rules).To(HaveKey("RS-REP-HASH"))
	})

	It("alerts when an entry point stops answering, once", func() {
		srv := mockServer("baseline-resourcelist")
		store, _ := openStore()
		dir := GinkgoT().TempDir()
		src := source("a", srv.URL+"/", time.Hour)
		cfg := monitor.Config{Store: store, Sources: []monitor.Source{src},
			Alerts: &monitor.Alerter{Command: "cat > " + dir + "/$$.json", Store: store}}
		m, err := monitor.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.RunOnce(context.Background())[0].Failing()).To(BeFalse())
		srv.Close()
		for i := 0; i < 2; i++ {
			res := m.RunOnce(context.Background())[0]
			Expect(res.Run.Status).To(Equal(monitor.StatusUnreachable))
			Expect(res.NeverReached).To(BeFalse(), "reached by the first run")
			Expect(res.Failing()).To(Equal(i == 0))
		}
		files, _ := filepath.Glob(dir + "/*.json")
		Expect(files).To(HaveLen(1))
	})
})

var _ = Describe("Service mode", func() {
	It("runs each Source on its own period, with jitter, one crawl at a time", func() {
		srv := mockServer("baseline-resourcelist")
		store, _ := openStore()
		clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		m, err := monitor.New(monitor.Config{Store: store, Clock: clock, MaxCrawls: 1,
			Sources: []monitor.Source{source("hourly", srv.URL+"/", time.Hour), source("six-hourly", srv.URL+"/", 6*time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		var runs atomic.Int32
		var errs []error
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.Serve(ctx, func(r monitor.Result) {
				if r.Err != nil {
					errs = append(errs, r.Err)
				}
				runs.Add(1)
			})
		}()
		// Move the clock on whenever the scheduler waits, and nothing runs.
		last := int32(-1)
		for {
			Eventually(func() bool {
				n := runs.Load()
				return clock.waiting() == 1 && n != last
			}, 10*time.Second, time.Millisecond).Should(BeTrue())
			// Seven hours: the six-hourly Source's second run and the
			// hourly one's gaps, with every crawl under the race detector.
			if !clock.Now().Before(time.Date(2026, 1, 1, 7, 0, 0, 0, time.UTC)) {
				break
			}
			last = runs.Load()
			clock.next()
		}
		cancel()
		Eventually(done, 10*time.Second).Should(BeClosed())
		Expect(errs).To(BeEmpty())
		hourly, err := store.Runs(context.Background(), "hourly", 100)
		Expect(err).NotTo(HaveOccurred())
		sixHourly, err := store.Runs(context.Background(), "six-hourly", 100)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(sixHourly)).To(Equal(2))
		Expect(len(hourly)).To(BeNumerically(">=", 6))
		Expect(len(hourly)).To(BeNumerically("<=", 9))
		for i := 1; i < len(hourly); i++ {
			gap := hourly[i-1].Started.Sub(hourly[i].Started)
			Expect(gap).To(BeNumerically(">=", 54*time.Minute), "runs %d and %d", hourly[i].ID, hourly[i-1].ID)
			Expect(gap).To(BeNumerically("<=", 66*time.Minute), "runs %d and %d", hourly[i].ID, hourly[i-1].ID)
		}
		for _, r := range append(hourly, sixHourly...) {
			Expect(r.Status).To(Equal(monitor.StatusOK))
		}
	})

	It("on a stop, lets the run in progress finish within the grace, or records it as interrupted", func() {
		for _, grace := range []time.Duration{0, time.Minute} {
			sc, err := scenario.Load("baseline-resourcelist")
			Expect(err).NotTo(HaveOccurred())
			src, err := mocksource.New(mocksource.Options{Scenario: sc})
			Expect(err).NotTo(HaveOccurred())
			arrived := make(chan struct{}, 100)
			release := make(chan struct{})
			h := src.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/res/") {
					arrived <- struct{}{}
					select {
					case <-release:
					case <-r.Context().Done():
						return
					}
				}
				h.ServeHTTP(w, r)
			}))
			store, _ := openStore()
			clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			m, err := monitor.New(monitor.Config{Store: store, Grace: grace, Clock: clock,
				Sources: []monitor.Source{source("a", srv.URL+"/", time.Hour)}})
			Expect(err).NotTo(HaveOccurred())
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				m.Serve(ctx, nil)
			}()
			Eventually(clock.waiting, 10*time.Second, time.Millisecond).Should(Equal(1))
			clock.next() // the first run
			Eventually(arrived, 10*time.Second).Should(Receive())
			cancel()
			if grace > 0 {
				Consistently(done, 50*time.Millisecond).ShouldNot(BeClosed(), "the run in progress was not given its grace")
				close(release)
			}
			Eventually(done, 10*time.Second).Should(BeClosed())
			if grace == 0 {
				close(release)
			}
			srv.Close()
			runs, err := store.Runs(context.Background(), "a", 10)
			Expect(err).NotTo(HaveOccurred())
			Expect(runs).To(HaveLen(1))
			want := monitor.StatusInterrupted
			if grace > 0 {
				want = monitor.StatusOK
			}
			Expect(runs[0].Status).To(Equal(want), "grace %s", grace)
		}
	})
})
