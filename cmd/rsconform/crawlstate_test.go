package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// cuttingSource serves the mock Source's showcase, counting the requests
// per path; with a limit, the request after the limit-th interrupts the
// crawl (as Ctrl-C would) and is not answered.
type cuttingSource struct {
	h      http.Handler
	mu     sync.Mutex
	counts map[string]int
	served int
	limit  int
	cancel context.CancelFunc
}

func (s *cuttingSource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.limit > 0 && s.served >= s.limit {
		s.mu.Unlock()
		s.cancel()
		<-r.Context().Done()
		return
	}
	s.served++
	s.counts[r.URL.Path]++
	s.mu.Unlock()
	s.h.ServeHTTP(w, r)
}

// The specs share one Source (played to its end with faults ignored, it
// serves the same bytes to every crawl) and its uninterrupted crawl, made
// once (the report names the server's port): ContinueOnFailure, a failed
// spec does not skip the others.
var _ = Describe("rsconform crawl --state", Ordered, ContinueOnFailure, func() {
	var (
		src   *cuttingSource
		url   string
		state string
		// full is the uninterrupted crawl without a state file.
		full struct {
			done      bool
			code      int
			out, errs string
			counts    map[string]int
		}
	)
	BeforeAll(func() {
		sc, err := scenario.Load("showcase")
		Expect(err).NotTo(HaveOccurred())
		ms, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(ms.PlayToEnd()).To(Succeed())
		src = &cuttingSource{h: ms.Handler(), counts: map[string]int{}}
		srv := httptest.NewServer(src)
		DeferCleanup(srv.Close)
		url = srv.URL + "/"
	})
	BeforeEach(func() {
		src.mu.Lock()
		src.counts = map[string]int{} // what an earlier spec fetched
		src.mu.Unlock()
		state = filepath.Join(GinkgoT().TempDir(), "crawl.state")
	})

	// crawl runs the command, interrupted after limit requests (0: not).
	crawl := func(limit int, extra ...string) (int, string, string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		src.mu.Lock()
		src.served, src.limit, src.cancel = 0, limit, cancel
		src.mu.Unlock()
		args := append([]string{"crawl", "--sample", "all", "--packages", "--rate", "0", "--concurrency", "1", "--retries", "0", "--format", "json"}, extra...)
		var out, errb bytes.Buffer
		code := run(ctx, append(args, url), &out, &errb)
		return code, out.String(), errb.String()
	}
	counts := func() map[string]int {
		src.mu.Lock()
		defer src.mu.Unlock()
		c := src.counts
		src.counts = map[string]int{}
		return c
	}
	uninterrupted := func() (int, string, string, map[string]int) {
		if !full.done {
			full.code, full.out, full.errs = crawl(0)
			full.counts = counts()
			full.done = true
		}
		return full.code, full.out, full.errs, full.counts
	}

	It("resumes an interrupted crawl: nothing fetched twice, the same report as an uninterrupted crawl", func() {
		wantCode, want, errs, wantCounts := uninterrupted()
		Expect(wantCode).NotTo(Equal(2), errs)

		code, _, errs := crawl(25, "--state", state)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("interrupted; " + state + " records 25 fetches of this run: run the same command again to resume"))
		code, _, errs = crawl(40, "--state", state)
		Expect(code).To(Equal(2), errs)
		Expect(errs).To(ContainSubstring("resumed from " + state + ": 25 fetches read from it, 40 made now"))
		code, got, errs := crawl(0, "--state", state)
		Expect(code).To(Equal(wantCode), errs)
		Expect(got).To(MatchJSON(want))
		Expect(counts()).To(Equal(wantCounts), "each URL asked as often as by the uninterrupted crawl")

		// Finished: the same report again, nothing fetched.
		code, got, errs = crawl(0, "--state", state)
		Expect(code).To(Equal(wantCode), errs)
		Expect(got).To(MatchJSON(want))
		Expect(counts()).To(BeEmpty())
		Expect(errs).To(MatchRegexp(`resumed from .*: \d+ fetch(es)? read from it, 0 made now`))
	})

	It("refuses a state file that is a symbolic link, dangling or not, as sync does, and creates nothing", func() {
		outside := filepath.Join(GinkgoT().TempDir(), "outside.state")
		Expect(os.Symlink(outside, state)).To(Succeed())
		code, _, errs := crawl(0, "--state", state)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("a symbolic link, not followed"))
		_, err := os.Lstat(outside)
		Expect(os.IsNotExist(err)).To(BeTrue(), "the link's target was created")
		Expect(counts()).To(BeEmpty(), "nothing is fetched")
	})

	It("has no verdict when interrupted without a state file: exit 2, the report of what was fetched", func() {
		wantCode, _, errs, _ := uninterrupted()
		Expect(wantCode).To(Equal(0), errs)
		code, out, errs := crawl(25)
		Expect(code).To(Equal(2), "an interrupted crawl of a valid Source passed: %s", errs)
		Expect(errs).To(ContainSubstring("rsconform crawl: interrupted: the report covers what was fetched before; no verdict"))
		Expect(out).To(ContainSubstring(`"documents"`), "the report is written")
	})

	It("refuses, with exit code 2 and before fetching, a state file of other options or a damaged one", func() {
		code, _, _ := crawl(10, "--state", state)
		Expect(code).To(Equal(2))
		counts()
		code, _, errs := crawl(0, "--state", state, "--sample", "5")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("a crawl with other options, which decide what is fetched (--sample was all, is now 5)"))
		Expect(counts()).To(BeEmpty())

		// A file over its bound (--max-bytes 3000, one document of at most
		// 1000 bytes decoded: a few KiB of bodies, and 1 GiB of HTTP facts)
		// is refused before it is read: 2 GiB, sparse, so that it takes no
		// room.
		big := filepath.Join(filepath.Dir(state), "big.state")
		Expect(os.WriteFile(big, nil, 0o600)).To(Succeed())
		Expect(os.Truncate(big, 2<<30)).To(Succeed())
		code, _, errs = crawl(0, "--state", big, "--max-bytes", "3000", "--max-documents", "1", "--max-size", "1000")
		Expect(code).To(Equal(2))
		Expect(errs).To(MatchRegexp(`rsconform crawl: state file %s: larger than \d+ bytes, more than a crawl with these options records`, regexp.QuoteMeta(big)))
		Expect(counts()).To(BeEmpty())

		Expect(os.WriteFile(state, []byte("\x00\x01garbage\n"), 0o600)).To(Succeed())
		code, _, errs = crawl(0, "--state", state)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("state file " + state + ":1: not an rsconform crawl state file"))
		Expect(counts()).To(BeEmpty())

		code, _, errs = crawl(0, "--state", filepath.Join(state, "no", "such", "dir"))
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("the state file"))

		code, _, errs = cli("crawl", "--mock", "--state", state)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--mock starts a new one on another port each run"))
	})
})

var _ = Describe("rsconform crawl --state, a Source that did not answer", func() {
	It("does not record a fetch without an answer: once the Source answers, the same command fetches and reports it", func() {
		// A port of 127.0.0.1 nothing listens on: the Source is down.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		url := "http://" + addr + "/"
		state := filepath.Join(GinkgoT().TempDir(), "crawl.state")
		crawl := func() (int, string, string) {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"crawl", "--sample", "all", "--rate", "0", "--retries", "0",
				"--format", "json", "--state", state, url}, &out, &errb)
			return code, out.String(), errb.String()
		}

		code, _, errs := crawl()
		Expect(code).To(Equal(2), errs)
		Expect(errs).To(ContainSubstring("the entry point is unusable"))
		Expect(errs).To(ContainSubstring("1 fetch did not complete (no answer, or a body cut short: a transport failure): " + state + " does not record it, the same command run again makes it again"))

		// The Source is up, on the same port.
		sc, err := scenario.Load("showcase")
		Expect(err).NotTo(HaveOccurred())
		ms, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(ms.PlayToEnd()).To(Succeed())
		var asked atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			ms.Handler().ServeHTTP(w, r)
		}))
		srv.Listener, err = net.Listen("tcp", addr)
		Expect(err).NotTo(HaveOccurred(), "the port was taken meanwhile")
		srv.Start()
		DeferCleanup(srv.Close)

		code, out, errs := crawl()
		Expect(code).NotTo(Equal(2), errs)
		Expect(errs).NotTo(ContainSubstring("the entry point is unusable"))
		Expect(errs).NotTo(ContainSubstring("read from it"), "nothing was recorded to resume from")
		Expect(asked.Load()).To(BeNumerically(">", 1))
		var report struct {
			Documents []struct{ Location, Status string }
		}
		Expect(json.Unmarshal([]byte(out), &report)).To(Succeed(), out)
		Expect(report.Documents).NotTo(BeEmpty())
		Expect(report.Documents[0].Location).To(HavePrefix(url))
		Expect(report.Documents[0].Status).NotTo(Equal("error"))

		// Recorded now: the same command reads it all from the file.
		asked.Store(0)
		code, _, errs = crawl()
		Expect(code).NotTo(Equal(2), errs)
		Expect(errs).To(MatchRegexp(`resumed from .*: \d+ fetch(es)? read from it, 0 made now`))
		Expect(asked.Load()).To(BeZero())
	})
})
