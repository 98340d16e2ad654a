package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
)

var _ = Describe("The findings of a cross-document rule", func() {
	// Twelve entries move their <lastmod> between the two visits, their
	// hashes the same: twelve RS-REVISIT-LASTMOD findings on one list.
	It("are kept up to --max-findings-per-rule per document, the others counted (Result.Omitted), as a document rule's", func() {
		var revisited atomic.Bool
		list := func(lastmod string) string {
			var b strings.Builder
			b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
			for i := range 12 {
				fmt.Fprintf(&b, "  <url><loc>http://example.com/res/%d.txt</loc><lastmod>%s</lastmod><rs:md hash=\"md5:aa62cba149c51923916eff46f80fe74c\"/></url>\n", i, lastmod)
			}
			b.WriteString("</urlset>\n")
			return b.String()
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/resourcelist.xml" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/xml")
			if revisited.Load() {
				fmt.Fprint(w, list("2013-01-03T10:00:00Z"))
				return
			}
			fmt.Fprint(w, list("2013-01-02T10:00:00Z"))
		}))
		defer srv.Close()
		opts := testOptions()
		opts.Sample, opts.SampleSet = crawler.SampleNone, true
		opts.Revisit = time.Hour
		opts.Pause = func(context.Context, time.Duration) error { revisited.Store(true); return nil }
		opts.Validator.Config.MaxFindingsPerRule = 3
		rep, err := crawler.Crawl(context.Background(), srv.URL+"/resourcelist.xml", opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Stats.Revisited).To(Equal(1))
		res := result(rep, srv.URL+"/resourcelist.xml")
		Expect(findingsOf(rep, "RS-REVISIT-LASTMOD")).To(HaveLen(3), describe(rep, ""))
		Expect(res.OmittedOf("RS-REVISIT-LASTMOD")).To(Equal(9))
		_, warnings, _ := res.Count()
		Expect(warnings).To(BeNumerically(">=", 12))
		for _, d := range findingsOf(rep, "RS-REVISIT-LASTMOD") {
			Expect(d.Message).NotTo(ContainSubstring("more"), "the count is the report's (omitted), not the message's")
		}
	})
})
