package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
)

// A live Source whose Resource List changes between two crawls: the
// sample (--sample 4, spread evenly over the list) then takes other
// resources, every one of them listed with a wrong hash, and the count in
// a grouped message grows.
var _ = Describe("--baseline on a live Source", func() {
	var version atomic.Int32
	var srv *httptest.Server
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		version.Store(1)
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/res/") {
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprintf(w, "body of %s", r.URL.Path)
				return
			}
			if r.URL.Path != "/rl.xml" {
				http.NotFound(w, r)
				return
			}
			// Version 1 lists 12 resources, version 2 has 3 more at its
			// head (the sample moves); version 3 gives one a wrong length
			// as well: a new kind of fault.
			v := version.Load()
			first, n := 0, 12
			if v >= 2 {
				first, n = -3, 15
			}
			var b strings.Builder
			b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
			for i := first; i < first+n; i++ {
				length := ""
				if v == 3 {
					length = ` length="1"`
				}
				fmt.Fprintf(&b, "  <url><loc>http://%s/res/%d.txt</loc><rs:md hash=\"md5:%032x\"%s/></url>\n", r.Host, i+3, i+3, length)
			}
			b.WriteString("</urlset>\n")
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, b.String())
		}))
	})
	AfterEach(func() { srv.Close() })

	crawlJSON := func(base string) (int, reporter.JSONReport) {
		code, out, errs := cli("crawl", "--sample", "4", "--rate", "0", "--format", "json", "--baseline", base, srv.URL+"/rl.xml")
		var rep reporter.JSONReport
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed(), "stdout: %s\nstderr: %s", out, errs)
		return code, rep
	}

	It("finds nothing new when other resources are sampled, and what is new when a new kind of fault appears", func() {
		base := filepath.Join(dir, "baseline.json")
		code, _, errs := cli("crawl", "--sample", "4", "--rate", "0", "--baseline", base, srv.URL+"/rl.xml")
		Expect(code).To(Equal(0), errs)
		Expect(errs).To(ContainSubstring("to the baseline"))

		version.Store(2)
		code, rep := crawlJSON(base)
		for _, d := range rep.Documents {
			Expect(d.Findings).To(BeEmpty(), "%s: other resources sampled, the same fault", d.Location)
		}
		Expect(code).To(Equal(0))

		version.Store(3)
		code, rep = crawlJSON(base)
		Expect(code).To(Equal(1))
		var rulesSeen []string
		for _, d := range rep.Documents {
			for _, f := range d.Findings {
				rulesSeen = append(rulesSeen, f.Rule)
			}
		}
		Expect(rulesSeen).NotTo(BeEmpty())
		for _, r := range rulesSeen {
			Expect(r).To(Equal("RS-REP-LENGTH"))
		}
	})
})
