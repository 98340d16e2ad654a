package crawler_test

import (
	"context"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// mockCrawl plays a built-in scenario of the mock Source to its end (or
// steps steps), serves it and crawls it with packages and every resource.
func mockCrawl(name string, steps int, ignoreFaults bool) (*crawler.Report, string) {
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: ignoreFaults})
	Expect(err).NotTo(HaveOccurred())
	for i := 0; i < steps; i++ {
		if _, err := src.Step(); err != nil {
			break
		}
	}
	srv := httptest.NewServer(src.Handler())
	defer srv.Close()
	opts := testOptions()
	opts.Packages = true
	opts.Sample, opts.SampleSet = 25, true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := crawler.Crawl(ctx, srv.URL+"/", opts)
	Expect(err).NotTo(HaveOccurred())
	return rep, srv.URL
}

var _ = Describe("Crawling the mock Source", func() {
	for _, name := range []string{"baseline-resourcelist", "baseline-resourcedump", "incremental-changelist", "incremental-changedump", "changelist-rollover", "catch-up-archive", "paged-resourcelist", "create-update-delete", "multiple-changes-one-resource"} {
		name := name
		It("finds nothing wrong with scenario "+name, func() {
			rep, base := mockCrawl(name, 100, true)
			Expect(rep.EntryError).NotTo(HaveOccurred(), describe(rep, base))
			Expect(judged(rep, base)).To(BeEmpty(), describe(rep, base))
		})
	}

	It("finds the wrong parent of scenario wrong-parent, and nothing else", func() {
		rep, base := mockCrawl("wrong-parent", 100, false)
		Expect(found(rep, base, false)).To(ConsistOf(fixtures.SiteWant{Path: "/dataset1/resourcelist.xml", Line: 3, Rule: "RS-UP-TARGET"}), describe(rep, base))
		var msg string
		for _, res := range rep.Results {
			for _, d := range res.Diagnostics {
				msg = d.Message
			}
		}
		Expect(msg).To(Equal("the up link leads to " + base + "/dataset2/capabilitylist.xml, but the document is listed by the Capability List " + base + "/dataset1/capabilitylist.xml"))
	})

	It("finds the wrong index of scenario wrong-index, and nothing else", func() {
		rep, base := mockCrawl("wrong-index", 100, false)
		Expect(found(rep, base, false)).To(ConsistOf(fixtures.SiteWant{Path: "/dataset1/resourcelist/2-1.xml", Line: 4, Rule: "RS-INDEX-TARGET"}), describe(rep, base))
	})

	It("finds the wrong hashes of scenario wrong-hash", func() {
		rep, base := mockCrawl("wrong-hash", 100, false)
		var ids []string
		for _, w := range found(rep, base, true) {
			ids = append(ids, w.Rule)
		}
		Expect(ids).To(ContainElement("RS-REP-HASH"), describe(rep, base))
	})
})
