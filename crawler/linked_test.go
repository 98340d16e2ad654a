package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("describedby targets", func() {
	// crawlCounting crawls the site through wrap, counting the requests
	// per method and path.
	crawlCounting := func(site string, wrap func(http.Handler) http.Handler) (*crawler.Report, map[string]int) {
		s, err := fixtures.LoadSite("RS-DESCRIBEDBY-TARGET", site)
		Expect(err).NotTo(HaveOccurred())
		var mu sync.Mutex
		seen := map[string]int{}
		h := wrap(s.Handler())
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Method+" "+r.URL.Path]++
			mu.Unlock()
			h.ServeHTTP(w, r)
		}))
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = s.Sample, true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rep, err := crawler.Crawl(ctx, srv.URL+s.Entry, opts)
		Expect(err).NotTo(HaveOccurred())
		return rep, seen
	}
	same := func(h http.Handler) http.Handler { return h }

	It("are asked once each with HEAD, and a 404 is a warning at every link, naming status and method", func() {
		rep, seen := crawlCounting("fail-dead-target", same)
		// Two links lead to /about-dataset1.html: one request.
		Expect(seen).To(HaveKeyWithValue("HEAD /about-dataset1.html", 1))
		Expect(seen).To(HaveKeyWithValue("HEAD /about.html", 1))
		Expect(seen).NotTo(HaveKey("GET /about-dataset1.html"))
		ds := findingsOf(rep, "RS-DESCRIBEDBY-TARGET")
		Expect(ds).To(HaveLen(2))
		for _, d := range ds {
			Expect(d.Severity).To(Equal(engine.SeverityWarning))
			Expect(d.Message).To(ContainSubstring("answered HTTP 404 Not Found to HEAD"))
		}
	})

	It("are asked with GET when HEAD answers 405, and the GET's answer is judged", func() {
		rep, seen := crawlCounting("fail-no-head-then-gone", same)
		Expect(seen).To(HaveKeyWithValue("HEAD /about.html", 1))
		Expect(seen).To(HaveKeyWithValue("GET /about.html", 1))
		ds := findingsOf(rep, "RS-DESCRIBEDBY-TARGET")
		Expect(ds).To(HaveLen(1))
		Expect(ds[0].Severity).To(Equal(engine.SeverityWarning))
		Expect(ds[0].Message).To(ContainSubstring("answered HTTP 410 Gone to GET (earlier answers: 405)"))

		rep, seen = crawlCounting("pass-no-head", same)
		Expect(seen).To(HaveKeyWithValue("GET /about-dataset1.html", 1))
		Expect(findingsOf(rep, "RS-DESCRIBEDBY-TARGET")).To(BeEmpty())
	})

	It("that give no answer are info, not a warning: that is no evidence the document is missing", func() {
		rep, _ := crawlCounting("pass-good", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/about.html" {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				h.ServeHTTP(w, r)
			})
		})
		ds := findingsOf(rep, "RS-DESCRIBEDBY-TARGET")
		Expect(ds).To(HaveLen(1))
		Expect(ds[0].Severity).To(Equal(engine.SeverityInfo))
		Expect(ds[0].Message).To(ContainSubstring("gave no answer"))
	})

	It("on an origin the crawl does not leave for are neither asked nor judged", func() {
		rep, _ := crawlCounting("pass-other-origin", same)
		Expect(findingsOf(rep, "RS-DESCRIBEDBY-TARGET")).To(BeEmpty())
		n := rep.Graph.Node("http://other.invalid/about.html")
		Expect(n).NotTo(BeNil())
		Expect(n.Skipped).NotTo(BeEmpty())
		Expect(n.StatusCode).To(BeZero())
	})
})
