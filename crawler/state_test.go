package crawler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/rules/engine"
)

// countingTransport serves a handler in process and counts the requests
// per URL; with a limit, the request after the limit-th cancels the crawl
// instead of being served, so that the crawl stops between two requests.
type countingTransport struct {
	h      http.Handler
	mu     sync.Mutex
	counts map[string]int
	served int
	limit  int
	cancel context.CancelFunc
	// first, when set, runs at the first request.
	first func()
}

func newCounting(h http.Handler) *countingTransport {
	return &countingTransport{h: h, counts: map[string]int{}}
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	if t.limit > 0 && t.served >= t.limit {
		t.mu.Unlock()
		t.cancel()
		return nil, context.Canceled
	}
	t.served++
	t.counts[req.URL.String()]++
	first := t.first
	t.first = nil
	t.mu.Unlock()
	if first != nil {
		first()
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// answering refuses the connection to the URLs refused (no answer), and
// answers those of status with that status; rt serves the others.
type answering struct {
	rt      http.RoundTripper
	refused map[string]bool
	status  map[string]int
}

func (a *answering) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL.String()
	if a.refused[u] {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	if code := a.status[u]; code != 0 {
		rec := httptest.NewRecorder()
		rec.WriteHeader(code)
		resp := rec.Result()
		resp.Request = req
		return resp, nil
	}
	return a.rt.RoundTrip(req)
}

// pathCounts counts the requests a server got, per URL path.
type pathCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// servePathCounts serves h on 127.0.0.1, counting its requests.
func servePathCounts(h http.Handler) (*httptest.Server, *pathCounts) {
	c := &pathCounts{n: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[r.URL.Path]++
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	return srv, c
}

// take returns the counts since the last take.
func (c *pathCounts) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

const stateEntry = "http://source.test/"

// stateSource is the mock Source's showcase, played to its end: every
// kind of document, packages, open and closed Change Lists. It holds 24
// resources rather than 90, 10 entries to a list and 8 members to a
// package rather than 40 and 30: the same documents, indexes of three
// Resource Lists and Resource Dumps of three and four packages, and one
// Change List more, in 99 requests instead of 163 (the specs here and in
// order_test.go crawl it about forty times; user CPU of the 18 specs
// under -race 8.1-9.7 s -> 5.5-6.0 s).
func stateSource() http.Handler {
	sc, err := scenario.Load("showcase")
	Expect(err).NotTo(HaveOccurred())
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true, Resources: 24, MaxEntries: 10, PackageSize: 8})
	Expect(err).NotTo(HaveOccurred())
	Expect(src.PlayToEnd()).To(Succeed())
	return src.Handler()
}

// stateOpts crawls everything there is, one request at a time, with a
// revisit whose pause is counted, not waited.
func stateOpts(tr http.RoundTripper, state string, pauses *int) crawler.Options {
	opts := testOptions()
	opts.HTTP.Transport = tr
	opts.HTTP.Concurrency = 1
	opts.Packages = true
	opts.Sample, opts.SampleSet = crawler.SampleAll, true
	opts.Revisit = time.Minute
	opts.Pause = func(context.Context, time.Duration) error { *pauses++; return nil }
	opts.State = state
	return opts
}

// showcase is stateSource and its uninterrupted crawl, one request at a
// time: the Source, played to its end with faults ignored, serves the
// same bytes to every crawl, and its crawl is the same each time (the
// specs here and in order_test.go compare other crawls with it byte for
// byte): both are made once for the package, not for each spec (0.7 s
// each under -race).
var showcase struct {
	once   sync.Once
	h      http.Handler
	counts map[string]int
	want   string
}

func showcaseBaseline() (http.Handler, map[string]int, string) {
	showcase.once.Do(func() {
		h := stateSource()
		tr := newCounting(h)
		pauses := 0
		rep, err := crawler.Crawl(context.Background(), stateEntry, stateOpts(tr, "", &pauses))
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.EntryError).NotTo(HaveOccurred())
		Expect(rep.Stats.Packages).To(BeNumerically(">", 0))
		Expect(rep.Stats.Refetched).To(BeNumerically(">", 0))
		Expect(rep.Stats.Revisited).To(BeNumerically(">", 0))
		Expect(rep.Sampling.Resources).To(BeNumerically(">", 0))
		showcase.h, showcase.counts, showcase.want = h, tr.counts, reportJSON(rep)
	})
	Expect(showcase.want).NotTo(BeEmpty(), "the baseline crawl of the showcase failed (see the first spec that made it)")
	return showcase.h, showcase.counts, showcase.want
}

// reportJSON is what a report says, as JSON, for comparing two crawls.
func reportJSON(rep *crawler.Report) string {
	data, err := json.Marshal(struct {
		Results  any
		Sampling any
		Entry    string
		Packages []string
	}{rep.Results, rep.Sampling, errString(rep.EntryError), rep.UncheckedPackages})
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

// countDiff lists the URLs asked a different number of times.
func countDiff(got, want map[string]int) []string {
	var out []string
	for u, n := range got {
		if want[u] != n {
			out = append(out, fmt.Sprintf("%s: %d, want %d", u, n, want[u]))
		}
	}
	for u, n := range want {
		if _, ok := got[u]; !ok {
			out = append(out, fmt.Sprintf("%s: 0, want %d", u, n))
		}
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var _ = Describe("A crawl with a state file (--state)", func() {
	var (
		h        http.Handler
		baseline map[string]int
		want     string
		dir      string
	)
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		h, baseline, want = showcaseBaseline()
	})

	// resume crawls with the state file until it finishes, interrupted
	// after each of cuts requests; it returns the last report and the
	// requests made in all, per URL, and the pauses waited.
	resume := func(state string, cuts ...int) (*crawler.Report, map[string]int, int) {
		total := map[string]int{}
		pauses := 0
		for _, cut := range append(cuts, 0) {
			ctx, cancel := context.WithCancel(context.Background())
			tr := newCounting(h)
			tr.limit, tr.cancel = cut, cancel
			rep, err := crawler.Crawl(ctx, stateEntry, stateOpts(tr, state, &pauses))
			cancel()
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.State).NotTo(BeNil())
			Expect(rep.State.Err).NotTo(HaveOccurred())
			for u, n := range tr.counts {
				total[u] += n
			}
			if cut == 0 {
				return rep, total, pauses
			}
			Expect(tr.served).To(Equal(cut), "the crawl ended before its cut")
			Expect(rep.State.Recorded).To(BeNumerically(">", 0))
		}
		panic("unreachable")
	}

	It("resumes an interrupted crawl: nothing fetched twice, the same report as an uninterrupted crawl", func() {
		requests := 0
		for _, n := range baseline {
			requests += n
		}
		for i, cuts := range [][]int{{1}, {3}, {requests / 3}, {requests / 2}, {requests - 2}, {2, 5, requests / 4}} {
			state := filepath.Join(dir, fmt.Sprintf("state-%d.json", i))
			rep, total, pauses := resume(state, cuts...)
			Expect(countDiff(total, baseline)).To(BeEmpty(), "cuts %v: each URL asked as often as by one uninterrupted crawl", cuts)
			Expect(reportJSON(rep)).To(Equal(want), "cuts %v", cuts)
			Expect(pauses).To(Equal(1), "the revisit pause is waited once")
			Expect(rep.State.Resumed).To(BeTrue())
			Expect(rep.State.Finished).To(BeFalse())
		}
	})

	It("makes again only the requests in flight when it was interrupted (concurrency 4)", func() {
		state := filepath.Join(dir, "state.json")
		total := map[string]int{}
		var rep *crawler.Report
		for _, cut := range []int{30, 0} {
			ctx, cancel := context.WithCancel(context.Background())
			tr := newCounting(h)
			tr.limit, tr.cancel = cut, cancel
			opts := stateOpts(tr, state, new(int))
			opts.HTTP.Concurrency = 4
			var err error
			rep, err = crawler.Crawl(ctx, stateEntry, opts)
			cancel()
			Expect(err).NotTo(HaveOccurred())
			for u, n := range tr.counts {
				total[u] += n
			}
		}
		again := 0
		for u, n := range total {
			Expect(n).To(BeNumerically("<=", baseline[u]+1), u)
			again += n - baseline[u]
		}
		Expect(again).To(BeNumerically("<=", 4), "at most the requests in flight")
		Expect(reportJSON(rep)).To(Equal(want))
	})

	It("answers a finished crawl again from its state, fetching nothing", func() {
		state := filepath.Join(dir, "state.json")
		_, total, _ := resume(state)
		Expect(total).To(Equal(baseline))
		rep, total, pauses := resume(state)
		Expect(total).To(BeEmpty())
		Expect(pauses).To(BeZero())
		Expect(rep.State.Finished).To(BeTrue())
		Expect(rep.State.Recorded).To(BeZero())
		Expect(reportJSON(rep)).To(Equal(want))
	})

	It("counts the bytes and requests of what it replays: a resumed crawl's totals are an uninterrupted crawl's", func() {
		pauses := 0
		whole, err := crawler.Crawl(context.Background(), stateEntry, stateOpts(newCounting(h), "", &pauses))
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.Stats.Bytes).To(BeNumerically(">", 0))
		state := filepath.Join(dir, "state.json")
		rep, _, _ := resume(state, 10)
		Expect(rep.Stats.Bytes).To(Equal(whole.Stats.Bytes), "resumed after 10 requests")
		Expect(rep.Stats.Requests).To(Equal(whole.Stats.Requests), "resumed after 10 requests")
		// Answered from the state file alone, fetching nothing.
		rep, total, _ := resume(state)
		Expect(total).To(BeEmpty())
		Expect(rep.Stats.Bytes).To(Equal(whole.Stats.Bytes), "a finished crawl answered from its state")
		Expect(rep.Stats.Requests).To(Equal(whole.Stats.Requests), "a finished crawl answered from its state")
	})

	It("records answers of any status, not fetches without an answer: the next run makes those, and only those, again", func() {
		var resource, document, missing, failing string
		for _, u := range slices.Sorted(maps.Keys(baseline)) {
			switch {
			case resource == "" && strings.Contains(u, "/res/"):
				resource = u
			case document == "" && strings.HasSuffix(u, "/changelist.xml"):
				document = u
			case missing == "" && strings.Contains(u, "/res/") && u != resource:
				missing = u
			case failing == "" && strings.Contains(u, "/res/") && u != resource && u != missing:
				failing = u
			}
		}
		Expect([]string{resource, document, missing, failing}).NotTo(ContainElement(""), "URLs of the showcase: %v", slices.Sorted(maps.Keys(baseline)))
		state := filepath.Join(dir, "state.json")
		tr := newCounting(h)
		down := &answering{rt: tr, refused: map[string]bool{resource: true, document: true},
			status: map[string]int{missing: http.StatusNotFound, failing: http.StatusInternalServerError}}
		rep, err := crawler.Crawl(context.Background(), stateEntry, stateOpts(down, state, new(int)))
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.State.Err).NotTo(HaveOccurred())
		// The resource, and the Change List (read, and read again by
		// --revisit), got no answer.
		Expect(rep.State.Incomplete).To(BeNumerically(">=", 2))

		// The Source answers now: the two fetches without an answer are
		// made, nothing else (the 404 and the 500 are replayed).
		tr = newCounting(h)
		rep, err = crawler.Crawl(context.Background(), stateEntry, stateOpts(tr, state, new(int)))
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.State.Incomplete).To(BeZero())
		Expect(rep.State.Finished).To(BeFalse(), "the first run ended with fetches unanswered: not finished")
		Expect(tr.counts).To(HaveKey(resource))
		Expect(tr.counts).To(HaveKey(document))
		Expect(tr.counts).NotTo(HaveKey(missing))
		Expect(tr.counts).NotTo(HaveKey(failing))
		Expect(rep.Graph.Node(resource).FetchError).To(BeEmpty())
		Expect(rep.Graph.Node(missing).StatusCode).To(Equal(http.StatusNotFound))
		Expect(rep.Graph.Node(failing).StatusCode).To(Equal(http.StatusInternalServerError))
	})

	It("records with a huge --max-bytes (9e18): the default bound of its file saturates rather than overflows", func() {
		state := filepath.Join(dir, "state.json")
		pauses := 0
		opts := stateOpts(newCounting(h), state, &pauses)
		opts.MaxBytes = 9e18
		rep, err := crawler.Crawl(context.Background(), stateEntry, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.State.Err).NotTo(HaveOccurred())
		Expect(rep.State.Recorded).To(BeNumerically(">", 0))
		Expect(reportJSON(rep)).To(Equal(want))
	})

	It("drops a last line cut by a crawl killed while writing it, and fetches only that again", func() {
		state := filepath.Join(dir, "state.json")
		resume(state, 40)
		data, err := os.ReadFile(state)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(state, data[:len(data)-7], 0o600)).To(Succeed())
		rep, total, _ := resume(state)
		Expect(rep.State.Dropped).To(BeTrue())
		Expect(reportJSON(rep)).To(Equal(want))
		extra := 0
		for u, n := range total {
			Expect(n).To(BeNumerically("<=", baseline[u]+1), u)
			extra += n
		}
		for _, n := range baseline {
			extra -= n
		}
		Expect(extra).To(BeNumerically("<=", 40+1), "the first run's requests plus the one whose record was cut")
	})

	Context("refuses a state file it cannot trust, saying why, before fetching", func() {
		crawlWith := func(state string, change func(*crawler.Options)) (error, int) {
			tr := newCounting(h)
			pauses := 0
			opts := stateOpts(tr, state, &pauses)
			if change != nil {
				change(&opts)
			}
			_, err := crawler.Crawl(context.Background(), stateEntry, opts)
			return err, tr.served
		}
		stateErr := func(err error) *crawler.StateError {
			var se *crawler.StateError
			Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
			return se
		}

		It("of a crawl with other options, naming them", func() {
			state := filepath.Join(dir, "state.json")
			resume(state, 10)
			err, served := crawlWith(state, func(o *crawler.Options) { o.Sample = 3; o.Packages = false })
			Expect(served).To(BeZero())
			Expect(stateErr(err).Error()).To(ContainSubstring("--packages was true, is now false; --sample was all, is now 3"))
			// Options that do not change what is fetched may change.
			err, _ = crawlWith(state, func(o *crawler.Options) { o.HTTP.Rate = 100; o.HTTP.Timeout = time.Second })
			Expect(err).NotTo(HaveOccurred())
		})

		It("that another crawl is using", func() {
			state := filepath.Join(dir, "state.json")
			tr := newCounting(h)
			var second error
			tr.first = func() { second, _ = crawlWith(state, nil) }
			_, err := crawler.Crawl(context.Background(), stateEntry, stateOpts(tr, state, new(int)))
			Expect(err).NotTo(HaveOccurred())
			Expect(stateErr(second).Msg).To(Equal("in use by another crawl (locked): two crawls cannot share a state file"))
		})

		It("of a crawl of another entry point", func() {
			state := filepath.Join(dir, "state.json")
			resume(state, 10)
			_, err := crawler.Crawl(context.Background(), "http://source.test/.well-known/resourcesync", stateOpts(newCounting(h), state, new(int)))
			Expect(stateErr(err).Error()).To(ContainSubstring("a crawl of http://source.test/, not of http://source.test/.well-known/resourcesync"))
		})

		It("of another format version", func() {
			state := filepath.Join(dir, "state.json")
			Expect(os.WriteFile(state, []byte(`{"format":"rsconform crawl state","version":0,"entry":"http://source.test/","options":{}}`+"\n"), 0o600)).To(Succeed())
			err, served := crawlWith(state, nil)
			Expect(served).To(BeZero())
			Expect(stateErr(err).Error()).To(ContainSubstring("state format version 0, and this rsconform reads version 2"))
		})

		It("that is not a regular file", func() {
			err, served := crawlWith(os.DevNull, nil)
			Expect(served).To(BeZero())
			Expect(stateErr(err).Error()).To(ContainSubstring(os.DevNull + ": the state file is a character device, not a regular file"))
		})

		It("with a line longer than any record of a crawl with its options, before reading it whole", func() {
			state := filepath.Join(dir, "long.json")
			small := func(o *crawler.Options) {
				v := *o.Validator
				v.Config.Limits.MaxBytes = 1 << 20 // a record holds at most ~2.7 MiB of body (an HTML page's 2 MiB)
				o.Validator = &v
			}
			err, _ := crawlWith(state, small)
			Expect(err).NotTo(HaveOccurred())
			data, err := os.ReadFile(state)
			Expect(err).NotTo(HaveOccurred())
			lines := strings.SplitAfter(string(data), "\n")
			long := `{"op":"get","url":"http://source.test/long","status":200,"body":"` + strings.Repeat("A", 12<<20) + `"}` + "\n"
			lines = append(lines[:2], append([]string{long}, lines[2:]...)...)
			Expect(os.WriteFile(state, []byte(strings.Join(lines, "")), 0o600)).To(Succeed())
			err, served := crawlWith(state, small)
			Expect(served).To(BeZero())
			se := stateErr(err)
			Expect(se.Line).To(Equal(3))
			Expect(se.Msg).To(ContainSubstring("a line longer than 11184812 bytes"))
		})

		It("larger than its bound (Options.MaxStateBytes), before reading it", func() {
			state := filepath.Join(dir, "state.json")
			resume(state, 10)
			st, err := os.Stat(state)
			Expect(err).NotTo(HaveOccurred())
			bound := func(n int64) func(*crawler.Options) {
				return func(o *crawler.Options) { o.MaxStateBytes = n }
			}
			err, served := crawlWith(state, bound(st.Size()-1))
			Expect(served).To(BeZero())
			se := stateErr(err)
			Expect(se.Line).To(BeZero())
			Expect(se.Error()).To(HavePrefix(fmt.Sprintf("state file %s: larger than %d bytes, more than a crawl with these options records", state, st.Size()-1)))
			// At its bound, the file is read, and the finished crawl
			// answered from it.
			err, served = crawlWith(state, bound(st.Size()))
			Expect(err).NotTo(HaveOccurred())
			Expect(served).To(BeZero())
		})

		It("that would grow beyond its bound: records up to it, says so, and resumes from it", func() {
			state := filepath.Join(dir, "state.json")
			const limit = 16 << 10
			tr := newCounting(h)
			opts := stateOpts(tr, state, new(int))
			opts.MaxStateBytes = limit
			rep, err := crawler.Crawl(context.Background(), stateEntry, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.State.Recorded).To(BeNumerically(">", 0))
			Expect(rep.State.Err).To(MatchError(ContainSubstring("reached its bound of 16384 bytes: the fetches after it are not recorded")))
			st, err := os.Stat(state)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Size()).To(BeNumerically("<=", limit))
			err, _ = crawlWith(state, func(o *crawler.Options) { o.MaxStateBytes = limit })
			Expect(err).NotTo(HaveOccurred())
		})

		It("that is not a state file, or is damaged", func() {
			for name, content := range map[string]string{
				"not JSON":       "<urlset/>\n",
				"other JSON":     `{"a":1}` + "\n",
				"cut header":     `{"format":"rsconform crawl st`,
				"damaged record": "", // filled below
				"unknown record": "",
			} {
				state := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
				if content == "" {
					resume(state, 10)
					data, err := os.ReadFile(state)
					Expect(err).NotTo(HaveOccurred())
					lines := strings.SplitAfter(string(data), "\n")
					if name == "damaged record" {
						lines[2] = lines[2][:len(lines[2])/2] + "\n"
					} else {
						lines[2] = `{"op":"teleport","url":"http://source.test/"}` + "\n"
					}
					Expect(os.WriteFile(state, []byte(strings.Join(lines, "")), 0o600)).To(Succeed())
				} else {
					Expect(os.WriteFile(state, []byte(content), 0o600)).To(Succeed())
				}
				err, served := crawlWith(state, nil)
				Expect(served).To(BeZero(), name)
				se := stateErr(err)
				switch name {
				case "damaged record", "unknown record":
					Expect(se.Line).To(Equal(3), name)
				default:
					Expect(se.Msg).To(ContainSubstring("not an rsconform crawl state file"), name)
				}
			}
		})
	})
})

var _ = Describe("A crawl with --revisit resumed from its state file", func() {
	It("compares the second visit with what the first read before the interruption (RS-REVISIT-LASTMOD)", func() {
		site := func() *fixtures.Site {
			s, err := fixtures.LoadSite("RS-REVISIT-LASTMOD", "fail-lastmod-now")
			Expect(err).NotTo(HaveOccurred())
			return s
		}
		// Uninterrupted, the crawl finds the moves.
		want, _ := crawlSite(site())
		Expect(findingsOf(want, "RS-REVISIT-LASTMOD")).NotTo(BeEmpty())

		s := site()
		srv, gets := servePathCounts(s.Handler())
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = s.Sample, true
		opts.Revisit = time.Hour
		opts.State = filepath.Join(GinkgoT().TempDir(), "crawl.state")
		// Interrupted at the end of the pause: every first visit is
		// recorded, and the pause.
		ctx, cancel := context.WithCancel(context.Background())
		opts.Pause = func(context.Context, time.Duration) error { s.Revisit(); cancel(); return nil }
		rep, err := crawler.Crawl(ctx, srv.URL+s.Entry, opts)
		cancel()
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Stats.Revisited).To(BeZero())
		Expect(findingsOf(rep, "RS-REVISIT-LASTMOD")).To(BeEmpty())
		// Resumed: the first visits come from the file, the second from
		// the Source, which has moved its <lastmod>s meanwhile.
		Expect(gets.take()["/dataset1/resourcelist2.xml"]).To(Equal(1))
		opts.Pause = func(context.Context, time.Duration) error { return nil }
		rep, err = crawler.Crawl(context.Background(), srv.URL+s.Entry, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.State.Resumed).To(BeTrue())
		Expect(gets.take()["/dataset1/resourcelist2.xml"]).To(Equal(1), "the first visit read from the file, the second fetched")
		Expect(rep.Stats.Revisited).To(BeNumerically(">", 0))
		Expect(findingsOf(rep, "RS-REVISIT-LASTMOD")).To(HaveLen(len(findingsOf(want, "RS-REVISIT-LASTMOD"))))
		// Run again once finished: both visits from the file, nothing
		// fetched, the same findings.
		again, err := crawler.Crawl(context.Background(), srv.URL+s.Entry, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(gets.take()).To(BeEmpty())
		Expect(findingsOf(again, "RS-REVISIT-LASTMOD")).To(Equal(findingsOf(rep, "RS-REVISIT-LASTMOD")))
	})
})

var _ = Describe("An interrupted crawl", func() {
	It("reports no finding of the cross-document rules, which would judge part of the Source, and says so", func() {
		s, err := fixtures.LoadSite("RS-HTTP-CONTENT-TYPE", "fail-text-plain")
		Expect(err).NotTo(HaveOccurred())
		want, _ := crawlSite(s)
		Expect(findingsOf(want, "RS-HTTP-CONTENT-TYPE")).NotTo(BeEmpty(), "uninterrupted, the crawl finds it")

		srv := serveSite(s)
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = s.Sample, true
		// Interrupted once every document is read: in the --revisit pause.
		opts.Revisit = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		opts.Pause = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
		rep, err := crawler.Crawl(ctx, srv.URL+s.Entry, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Stats.Documents).To(Equal(want.Stats.Documents))
		for _, res := range rep.Results {
			for _, d := range res.Diagnostics {
				Expect(engine.Lookup(d.Rule).IsGraph()).To(BeFalse(), "%s on %s", d.Rule, res.Location)
			}
		}
		Expect(rep.Notes).To(ContainElement(ContainSubstring("the cross-document rules were stopped: context canceled")))
	})
})

var _ = Describe("A crawl resumed from a state file an older rsconform wrote (--state, version 2)", func() {
	It("makes again a fetch it recorded without an answer, and replays an answer of any status and a marked refusal", func() {
		s, err := fixtures.LoadSite("RS-CRAWL-REACH", "pass-good")
		Expect(err).NotTo(HaveOccurred())
		srv, gets := servePathCounts(s.Handler())
		defer srv.Close()
		entry := srv.URL + s.Entry
		refused, missing, marked := srv.URL+"/res/res1.txt", srv.URL+"/res/res2.txt", srv.URL+"/res/res3.txt"
		dir := GinkgoT().TempDir()
		crawl := func(state string) *crawler.Report {
			opts := testOptions()
			opts.Sample, opts.SampleSet = crawler.SampleAll, true
			opts.State = state
			rep, err := crawler.Crawl(context.Background(), entry, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.State.Err).NotTo(HaveOccurred())
			return rep
		}
		// A crawl of today gives the header, and shows the fetches the
		// records below stand for are made, one each.
		first := filepath.Join(dir, "first.json")
		crawl(first)
		data, err := os.ReadFile(first)
		Expect(err).NotTo(HaveOccurred())
		header, _, _ := strings.Cut(string(data), "\n")
		for _, key := range []string{`"op":"get","url":"` + entry + `"`, `"op":"resource","url":"` + refused + `"`,
			`"op":"resource","url":"` + missing + `"`, `"op":"resource","url":"` + marked + `"`} {
			Expect(string(data)).To(ContainSubstring(key))
		}
		made := gets.take()
		Expect(made).To(HaveKeyWithValue("/", 1))
		Expect(made).To(HaveKeyWithValue("/res/res2.txt", 1))

		// What an rsconform before 903b9f3 wrote of a crawl that found
		// the Source down at first (the entry point and a resource
		// refused), then a resource missing: a record of a refused
		// connection is one of an error, without a status; and it
		// recorded the crawl finished. A refusal of today's bears the
		// answered mark.
		dial := "dial tcp " + strings.TrimPrefix(srv.URL, "http://") + ": connect: connection refused"
		old := strings.Join([]string{header,
			`{"op":"get","url":"` + entry + `","err":"` + dial + `","requests":1}`,
			`{"op":"resource","url":"` + refused + `","err":"` + dial + `","requests":1}`,
			`{"op":"resource","url":"` + missing + `","status":404,"header":{"Content-Type":["text/plain"]},"requests":1}`,
			`{"op":"resource","url":"` + marked + `","err":"not the entry point's origin","requests":1,"answered":true}`,
			`{"op":"finished"}`, ""}, "\n")
		state := filepath.Join(dir, "state.json")
		Expect(os.WriteFile(state, []byte(old), 0o600)).To(Succeed())
		rep := crawl(state)
		Expect(rep.EntryError).NotTo(HaveOccurred(), "the entry point fetched again, not its old failure replayed")
		made = gets.take()
		Expect(made).To(HaveKeyWithValue("/", 1))
		Expect(made).To(HaveKeyWithValue("/res/res1.txt", 1))
		Expect(made).NotTo(HaveKey("/res/res2.txt"), "the 404 is replayed")
		Expect(made).NotTo(HaveKey("/res/res3.txt"), "the marked refusal is replayed")
		Expect(rep.Graph.Node(refused).FetchError).To(BeEmpty())
		Expect(rep.Graph.Node(refused).StatusCode).To(Equal(http.StatusOK))
		Expect(rep.Graph.Node(missing).StatusCode).To(Equal(http.StatusNotFound))
		Expect(rep.Graph.Node(marked).FetchError).To(Equal("not the entry point's origin"))
		Expect(rep.State.Replayed).To(Equal(2), "the 404 and the marked refusal, not the fetches without an answer")
		Expect(rep.State.Recorded).To(Equal(len(strings.Split(strings.TrimSpace(string(data)), "\n"))-1-1-2),
			"every fetch of the first crawl (its records, less its finished line) but the two replayed")
		Expect(rep.State.Resumed).To(BeTrue())
		Expect(rep.State.Finished).To(BeFalse(), "the older run left fetches without an answer")

		// Now finished: everything replayed, nothing fetched.
		rep = crawl(state)
		Expect(gets.take()).To(BeEmpty())
		Expect(rep.State.Finished).To(BeTrue())
		Expect(rep.EntryError).NotTo(HaveOccurred())
	})
})

var _ = Describe("A crawl with a state file whose Source cut a body (--state)", func() {
	It("does not record a document, a resource or a package whose body the transport cut: the next run fetches them, whole; a refusal over --max-size is replayed", func() {
		s, err := fixtures.LoadSite("RS-CRAWL-REACH", "pass-good")
		Expect(err).NotTo(HaveOccurred())
		site := s.Handler()
		const document, resource, pkg = "/dataset1/resourcelist2.xml", "/res/res1.txt", "/dataset1/part1.zip"
		const tooLarge = "/dataset1/resourcelist1.xml"
		// While cutting, the server sends the headers of the whole body
		// (its Content-Length) and half of it, then closes the
		// connection: the client reads io.ErrUnexpectedEOF.
		var cutting atomic.Bool
		cutting.Store(true)
		srv, gets := servePathCounts(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !cutting.Load() || (r.URL.Path != document && r.URL.Path != resource && r.URL.Path != pkg) {
				site.ServeHTTP(w, r)
				return
			}
			whole := httptest.NewRecorder()
			site.ServeHTTP(whole, r)
			maps.Copy(w.Header(), whole.Header())
			body := whole.Body.Bytes()
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(whole.Code)
			w.Write(body[:len(body)/2])
		}))
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = crawler.SampleAll, true
		opts.Packages = true
		opts.State = filepath.Join(GinkgoT().TempDir(), "crawl.state")
		v := *opts.Validator
		v.Config.Limits.MaxBytes = 1000 // resourcelist1.xml is 1037 bytes
		opts.Validator = &v
		crawl := func() *crawler.Report {
			rep, err := crawler.Crawl(context.Background(), srv.URL+"/", opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.EntryError).NotTo(HaveOccurred())
			Expect(rep.State.Err).NotTo(HaveOccurred())
			return rep
		}
		result := func(rep *crawler.Report, path string) engine.Result {
			for _, res := range rep.Results {
				if res.Location == srv.URL+path {
					return res
				}
			}
			Fail("no result for " + path)
			return engine.Result{}
		}
		tooLargeFindings := func(rep *crawler.Report) []engine.Diagnostic {
			return slices.DeleteFunc(slices.Clone(result(rep, tooLarge).Diagnostics), func(d engine.Diagnostic) bool {
				return d.Rule != "RS-LIMIT-SIZE"
			})
		}

		// Run 1: the live findings of the cuts are reported as before,
		// and none of the three fetches is recorded.
		rep := crawl()
		made := gets.take()
		Expect(made).To(HaveKeyWithValue(document, 1))
		Expect(made).To(HaveKeyWithValue(resource, 1))
		Expect(made).To(HaveKeyWithValue(pkg, 1))
		Expect(made).To(HaveKeyWithValue(tooLarge, 1))
		Expect(result(rep, document).Status).To(Equal(engine.StatusError))
		Expect(result(rep, document).Error).To(ContainSubstring("reading the body: unexpected EOF"))
		Expect(rep.Graph.Node(srv.URL + resource).Body.Truncated).To(BeTrue())
		Expect(result(rep, pkg).Error).To(ContainSubstring("not checked: the download failed: unexpected EOF"))
		Expect(rep.UncheckedPackages).To(ContainElement(srv.URL + pkg))
		Expect(tooLargeFindings(rep)).NotTo(BeEmpty(), "resourcelist1.xml is refused over --max-size: %v", result(rep, tooLarge))
		Expect(rep.State.Incomplete).To(Equal(3), "the document, the resource and the package whose bodies were cut")

		// Run 2, the Source serving whole: the three fetched again, their
		// findings gone; the refusal over --max-size replayed.
		cutting.Store(false)
		rep = crawl()
		made = gets.take()
		Expect(made).To(HaveKeyWithValue(document, 1))
		Expect(made).To(HaveKeyWithValue(resource, 1))
		Expect(made).To(HaveKeyWithValue(pkg, 1))
		Expect(made).NotTo(HaveKey(tooLarge), "a body the crawl stopped reading over --max-size is recorded")
		Expect(made).NotTo(HaveKey("/"), "what was whole is replayed")
		Expect(result(rep, document).Status).To(Equal(engine.StatusValid))
		Expect(rep.Graph.Node(srv.URL + resource).Body.Truncated).To(BeFalse())
		Expect(result(rep, pkg).Error).To(BeEmpty())
		Expect(rep.UncheckedPackages).To(BeEmpty())
		Expect(tooLargeFindings(rep)).NotTo(BeEmpty(), "the refusal over --max-size, replayed")
		Expect(rep.State.Incomplete).To(BeZero())
		Expect(rep.State.Finished).To(BeFalse(), "run 1 left fetches incomplete")

		// Run 3: finished, nothing fetched.
		rep = crawl()
		Expect(gets.take()).To(BeEmpty())
		Expect(rep.State.Finished).To(BeTrue())
	})
})
