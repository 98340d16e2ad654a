package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
)

// A Source whose only Change List carries until (it says it is closed) but
// goes on recording changes, as the Python resync-simulator does: a
// resource it deletes while the crawl samples is recorded in the list read
// again, and its 404 is explained. The crawl must judge it the same way
// every run, whether the deletion happened before or after the first read.
var _ = Describe("A Change List named by the Capability List, read again after sampling", func() {
	const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`
	serve := func() (*httptest.Server, map[string]int) {
		var mu sync.Mutex
		counts := map[string]int{}
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			counts[r.URL.Path]++
			n := counts[r.URL.Path]
			mu.Unlock()
			b := srv.URL
			w.Header().Set("Content-Type", "application/xml")
			switch r.URL.Path {
			case "/capabilitylist.xml":
				w.Write([]byte(head + `<rs:md capability="capabilitylist"/>
<url><loc>` + b + `/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>
<url><loc>` + b + `/changelist.xml</loc><rs:md capability="changelist"/></url>
</urlset>`))
			case "/resourcelist.xml":
				w.Write([]byte(head + `<rs:ln rel="up" href="` + b + `/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2026-01-01T00:00:00Z"/>
<url><loc>` + b + `/res/a.txt</loc></url>
<url><loc>` + b + `/res/b.txt</loc></url>
</urlset>`))
			case "/changelist.xml":
				if n == 1 { // what the Source recorded when the crawl began
					w.Write([]byte(head + `<rs:ln rel="up" href="` + b + `/capabilitylist.xml"/>
<rs:md capability="changelist" from="2026-01-01T00:00:00Z" until="2026-01-01T00:01:00Z"/>
<url><loc>` + b + `/res/b.txt</loc><rs:md change="updated" datetime="2026-01-01T00:00:30Z"/></url>
</urlset>`))
					return
				}
				w.Write([]byte(head + `<rs:ln rel="up" href="` + b + `/capabilitylist.xml"/>
<rs:md capability="changelist" from="2026-01-01T00:00:00Z" until="2026-01-01T00:02:00Z"/>
<url><loc>` + b + `/res/b.txt</loc><rs:md change="updated" datetime="2026-01-01T00:00:30Z"/></url>
<url><loc>` + b + `/res/a.txt</loc><rs:md change="deleted" datetime="2026-01-01T00:01:30Z"/></url>
</urlset>`))
			case "/res/a.txt": // deleted while the crawl ran
				http.NotFound(w, r)
			case "/res/b.txt":
				w.Header().Set("Content-Type", "text/plain")
				w.Write([]byte("b"))
			default:
				http.NotFound(w, r)
			}
		}))
		return srv, counts
	}

	It("records the deletion it now lists and reports no RS-REP-* finding", func() {
		srv, counts := serve()
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = -1, true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rep, err := crawler.Crawl(ctx, srv.URL+"/capabilitylist.xml", opts)
		Expect(err).NotTo(HaveOccurred())
		for _, f := range judged(rep, srv.URL) {
			Expect(strings.HasPrefix(f.Rule, "RS-REP-")).To(BeFalse(), "%s\n%s", f, describe(rep, srv.URL))
		}
		Expect(counts["/changelist.xml"]).To(Equal(2), "the Change List the Capability List names is read once more")
		Expect(counts["/res/a.txt"]).To(Equal(1))
	})
})
