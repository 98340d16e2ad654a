package crawler_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/rules/graph"
)

// requestClock moves on by step each time the Source reads it, that is at
// every request: the Source changes during a crawl as a live one does,
// without a timer.
type requestClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *requestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

var liveStart = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// liveCrawl crawls a scenario in real-time mode, a change every 100 ms of
// a clock that moves 60 ms a request, with every resource sampled.
func liveCrawl(name string) (*crawler.Report, string, *mocksource.Source) {
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	return liveCrawlScenario(sc)
}

func liveCrawlScenario(sc *scenario.Scenario, revisit ...time.Duration) (*crawler.Report, string, *mocksource.Source) {
	return liveCrawlOptions(mocksource.Options{Scenario: sc}, revisit...)
}

// liveCrawlOptions is liveCrawlScenario with the mock's options (the
// real-time cadence and the clock are set here).
func liveCrawlOptions(mo mocksource.Options, revisit ...time.Duration) (*crawler.Report, string, *mocksource.Source) {
	clock := &requestClock{now: liveStart, step: 60 * time.Millisecond}
	mo.Realtime, mo.Clock = 100*time.Millisecond, clock.Now
	src, err := mocksource.New(mo)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(src.Handler())
	defer srv.Close()
	opts := testOptions()
	opts.Sample, opts.SampleSet = crawler.SampleAll, true
	if len(revisit) > 0 {
		// The pause moves the Source's clock: it changes meanwhile.
		opts.Revisit = revisit[0]
		opts.Pause = func(_ context.Context, d time.Duration) error {
			clock.mu.Lock()
			clock.now = clock.now.Add(d)
			clock.mu.Unlock()
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := crawler.Crawl(ctx, srv.URL+"/.well-known/resourcesync", opts)
	Expect(err).NotTo(HaveOccurred())
	return rep, srv.URL, src
}

var _ = Describe("Crawling a live Source (mock real-time mode)", func() {
	It("judges resources that change during the crawl against the Source's own history: no finding, run after run", func() {
		for run := 0; run < 3; run++ {
			rep, base, src := liveCrawl("realtime")
			Expect(rep.EntryError).NotTo(HaveOccurred())
			Expect(rep.Stats.Resources).To(BeNumerically(">=", 100))
			Expect(rep.Stats.Refetched).To(BeNumerically(">=", 1))
			// The Source did change while it was crawled: sampled resources
			// changed, some deleted (404), after the crawl started.
			changed, gone := 0, 0
			for _, n := range rep.Graph.Sorted() {
				if c := rep.Graph.History.Latest(n.URL).Last(); n.Role == graph.RoleResource && c != nil && c.Earliest.After(liveStart) {
					changed++
					if n.StatusCode == 404 {
						gone++
					}
				}
			}
			Expect(changed).To(BeNumerically(">=", 10), "run %d", run)
			Expect(gone).To(BeNumerically(">=", 1), "run %d", run)
			Expect(src.Now().After(liveStart.Add(5 * time.Second))).To(BeTrue())
			Expect(judged(rep, base)).To(BeEmpty(), "run %d:\n%s", run, describe(rep, base))
			// What differs is explained by a recorded change, and said.
			Expect(count(rep, "RS-REP-CHANGED")).To(BeNumerically(">=", 5), "run %d:\n%s", run, describe(rep, base))
		}
	})

	It("catches the wrong hash of a resource that never changed, run after run, and nothing else", func() {
		for run := 0; run < 3; run++ {
			rep, base, _ := liveCrawl("realtime-wrong-hash")
			var got []fixtures.SiteWant
			for _, w := range judged(rep, base) {
				w.Line = 0
				got = append(got, w)
			}
			Expect(got).To(ConsistOf(
				fixtures.SiteWant{Path: "/dataset1/resourcelist.xml", Rule: "RS-REP-HASH"},
				fixtures.SiteWant{Path: "/dataset1/resourcelist.xml", Rule: "RS-REP-HASH"}), "run %d:\n%s", run, describe(rep, base))
			Expect(describe(rep, base)).To(ContainSubstring("/res/0000003.txt"))
			Expect(strings.Count(describe(rep, base), "md5:")).To(BeNumerically(">=", 1))
		}
	})

	It("catches a listed resource gone without a recorded deletion, and the wrong hash, run after run", func() {
		data, err := os.ReadFile("testdata/realtime-misbehaving.yaml")
		Expect(err).NotTo(HaveOccurred())
		sc, err := scenario.Parse("testdata/realtime-misbehaving.yaml", data)
		Expect(err).NotTo(HaveOccurred())
		for run := 0; run < 3; run++ {
			rep, base, _ := liveCrawlScenario(sc)
			var got []string
			for _, w := range judged(rep, base) {
				got = append(got, w.Path+" "+w.Rule)
			}
			Expect(got).To(ConsistOf("/dataset1/resourcelist.xml RS-REP-HASH", "/dataset1/resourcelist.xml RS-REP-HASH",
				"/dataset1/resourcelist.xml RS-REP-GONE"), "run %d:\n%s", run, describe(rep, base))
			Expect(describe(rep, base)).To(ContainSubstring("/res/0000005.json answers HTTP 404"))
		}
	})

	// Most Sources write no datetime and send no Last-Modified: the
	// History then has <lastmod>, the order of the entries and the lists'
	// from and until to go by.
	lastmodOnly := func(name string, revisit ...time.Duration) (*crawler.Report, string) {
		sc, err := scenario.Load(name)
		Expect(err).NotTo(HaveOccurred())
		rep, base, _ := liveCrawlOptions(mocksource.Options{Scenario: sc, LastmodOnly: true}, revisit...)
		Expect(rep.EntryError).NotTo(HaveOccurred())
		// The profile is what it says.
		for _, n := range rep.Graph.Sorted() {
			Expect(n.Header.Get("Last-Modified")).To(BeEmpty(), n.URL)
		}
		changes := 0
		rep.Graph.History.Each(func(_ uint64, c *graph.RecordedChange) {
			for _, ch := range c.Series {
				Expect(ch.Clue).NotTo(Equal("datetime"), ch.List)
				changes++
			}
		})
		Expect(changes).To(BeNumerically(">=", 50))
		return rep, base
	}

	It("judges a lastmod-only live Source (no datetime, no Last-Modified) without a false error, run after run", func() {
		for run := 0; run < 5; run++ {
			rep, base := lastmodOnly("realtime")
			Expect(rep.Stats.Resources).To(BeNumerically(">=", 100))
			Expect(judged(rep, base)).To(BeEmpty(), "run %d:\n%s", run, describe(rep, base))
			Expect(count(rep, "RS-REP-CHANGED")).To(BeNumerically(">=", 5), "run %d:\n%s", run, describe(rep, base))
			// Deletions without a time were recorded and explain 404s.
			Expect(describe(rep, base)).To(ContainSubstring("answers HTTP 404"), "run %d", run)
		}
	})

	It("catches the wrong hash of a resource that never changed on a lastmod-only live Source, run after run, and nothing else", func() {
		for run := 0; run < 5; run++ {
			rep, base := lastmodOnly("realtime-wrong-hash")
			var got []fixtures.SiteWant
			for _, w := range judged(rep, base) {
				w.Line = 0
				got = append(got, w)
			}
			Expect(got).To(ConsistOf(
				fixtures.SiteWant{Path: "/dataset1/resourcelist.xml", Rule: "RS-REP-HASH"},
				fixtures.SiteWant{Path: "/dataset1/resourcelist.xml", Rule: "RS-REP-HASH"}), "run %d:\n%s", run, describe(rep, base))
			Expect(describe(rep, base)).To(ContainSubstring("/res/0000003.txt"))
		}
	})

	It("judges a lastmod-only live Source over time (--revisit) without a false error", func() {
		rep, base := lastmodOnly("realtime", time.Minute)
		Expect(rep.Stats.Revisited).To(BeNumerically(">=", 3))
		Expect(judged(rep, base)).To(BeEmpty(), describe(rep, base))
	})

	It("observes a live Source over time (--revisit): its Change List only grew, in order", func() {
		sc, err := scenario.Load("realtime")
		Expect(err).NotTo(HaveOccurred())
		rep, base, _ := liveCrawlScenario(sc, time.Minute)
		Expect(rep.Stats.Revisited).To(BeNumerically(">=", 3))
		cl := rep.Graph.Node(base + "/dataset1/changelist.xml")
		Expect(cl.Revisit).NotTo(BeNil())
		Expect(cl.Revisit.Entries).To(BeNumerically(">=", cl.Entries+600), "a minute of changes every 100 ms")
		Expect(judged(rep, base)).To(BeEmpty(), describe(rep, base))
	})
})
