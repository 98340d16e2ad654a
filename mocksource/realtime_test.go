package mocksource_test

import (
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var _ = Describe("Real-time mode", func() {
	var (
		clock *fakeClock
		m     *mock
	)
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	openChangeList := func() *rs.Document {
		GinkgoHelper()
		r, body := m.get("/dataset1/changelist.xml")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Kind()).To(Equal(rs.ChangeList))
		return d
	}
	BeforeEach(func() {
		clock = &fakeClock{now: start}
		m = startScenario("realtime-wrong-hash", mocksource.Options{Realtime: 100 * time.Millisecond, Clock: clock.Now})
	})

	// Issue 26: the mock's memory grew over the steps of a scenario (47 to
	// 246 MB over 112 steps under -race): each change made new versions of
	// the documents that list it, and the cache kept every version served,
	// which no request could ask for again, up to its 256 MiB budget.
	It("keeps one version of each document in its cache, however many changes are served", func() {
		paths := []string{"/dataset1/changelist.xml", "/dataset1/resourcelist.xml", "/dataset1/capabilitylist.xml"}
		// 30 rounds: the cache once kept every one of the 90 versions.
		for i := 0; i < 30; i++ {
			clock.Advance(100 * time.Millisecond)
			for _, p := range paths {
				r, _ := m.get(p)
				Expect(r.StatusCode).To(Equal(http.StatusOK), p)
			}
		}
		entries, bytes := m.src.CacheStats()
		GinkgoWriter.Printf("CACHE %d entries, %d bytes\n", entries, bytes)
		Expect(entries).To(BeNumerically("<=", len(paths)))
	})

	It("plays the scenario's steps at once, then nothing until a tick is due", func() {
		in := m.src.Info()
		Expect(in.Done).To(BeTrue())
		Expect(in.Time).To(Equal(start))
		before := len(openChangeList().Entries)
		clock.Advance(99 * time.Millisecond)
		Expect(openChangeList().Entries).To(HaveLen(before))
	})

	It("records every change in the open Change List at its instant, as served", func() {
		before := len(openChangeList().Entries)
		clock.Advance(time.Second + 50*time.Millisecond)
		d := openChangeList()
		Expect(d.Entries).To(HaveLen(before + 10))
		kinds := map[string]int{}
		last := map[string]*rs.Entry{}
		for i, e := range d.Entries[before:] {
			want := start.Add(time.Duration(i+1) * 100 * time.Millisecond)
			Expect(e.Md.Datetime).To(Equal(rs.FormatDatetime(want)), "change %d", i)
			kinds[e.Md.Change]++
			last[m.pathOf(e.Loc)] = e
		}
		Expect(kinds).To(Equal(map[string]int{"updated": 8, "created": 1, "deleted": 1}))
		for p, e := range last {
			r, body := m.get(p)
			if e.Md.Change == "deleted" {
				Expect(r.StatusCode).To(Equal(http.StatusNotFound), p)
				continue
			}
			Expect(r.StatusCode).To(Equal(http.StatusOK), p)
			Expect(e.Md.Hash).To(Equal(hashAttr(body)), p)
			Expect(r.Header.Get("Last-Modified")).To(Equal(mustInstant(e.Md.Datetime).Format(http.TimeFormat)), p)
		}
		Expect(m.src.Now()).To(Equal(start.Add(time.Second + 50*time.Millisecond)))
	})

	It("never changes a resource a fault is armed for", func() {
		clock.Advance(time.Minute) // 600 changes, about 540 of them picking a resource
		for _, e := range openChangeList().Entries {
			Expect(m.pathOf(e.Loc)).NotTo(Equal("/res/0000003.txt"))
		}
		_, body := m.get("/res/0000003.txt")
		_, rl := m.get("/dataset1/resourcelist.xml")
		d, err := rs.ParseBytes(rl)
		Expect(err).NotTo(HaveOccurred())
		found := false
		for _, e := range d.Entries {
			if m.pathOf(e.Loc) == "/res/0000003.txt" {
				found = true
				Expect(e.Md.Hash).NotTo(Equal(hashAttr(body)))
			}
		}
		Expect(found).To(BeTrue())
	})

	It("refuses a clock before the scenario's end", func() {
		sc, err := scenario.Load("realtime")
		Expect(err).NotTo(HaveOccurred())
		_, err = mocksource.New(mocksource.Options{Scenario: sc, Realtime: time.Second,
			Clock: func() time.Time { return sc.Start }})
		Expect(err).To(MatchError(ContainSubstring("after the clock's now")))
	})
})

func mustInstant(s string) time.Time {
	GinkgoHelper()
	d, err := rs.ParseDatetime(s)
	Expect(err).NotTo(HaveOccurred())
	return d.Time.Truncate(time.Second)
}
