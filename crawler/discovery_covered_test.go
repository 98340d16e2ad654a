package crawler_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("Discovery links must pertain to the resource that gives them (RS-DISCOVERY-COVERED, 6.3.3)", func() {
	crawlCovered := func(name string) (*crawler.Report, string, []engine.Diagnostic) {
		s, err := fixtures.LoadSite("RS-DISCOVERY-COVERED", name)
		Expect(err).NotTo(HaveOccurred())
		rep, base := crawlSite(s)
		Expect(rep.EntryError).NotTo(HaveOccurred(), describe(rep, base))
		return rep, base, findingsOf(rep, "RS-DISCOVERY-COVERED")
	}
	// linksTo reports whether the crawl found a discovery link of method
	// from the page at path to the Capability List: the rule had something
	// to judge.
	linksTo := func(rep *crawler.Report, base, path, method string) bool {
		for _, d := range rep.Graph.Discovery {
			if d.Method == method && d.From == base+path && d.Target == base+"/dataset1/capabilitylist.xml" {
				return true
			}
		}
		return false
	}

	It("is an error at the <link> of an HTML page that no list of the Capability List names, once every list was read", func() {
		rep, base, ds := crawlCovered("fail-html-link-not-listed")
		Expect(linksTo(rep, base, "/news.html", "html-link")).To(BeTrue())
		Expect(ds).To(HaveLen(1), describe(rep, base))
		Expect(ds[0].Severity).To(Equal(engine.SeverityError))
		Expect(ds[0].Location.Name()).To(Equal(base + "/news.html"))
		Expect(ds[0].Location.Line).To(Equal(6))
		Expect(strings.ReplaceAll(ds[0].Message, base, "")).To(ContainSubstring("it is in none of its 2 Resource Lists, 3 Change Lists and 1 dump manifest, all of which the crawl read"))
		Expect(ds[0].Related).To(HaveLen(1))
		Expect(ds[0].Related[0].Name()).To(Equal(base + "/dataset1/capabilitylist.xml"))
	})

	It("is an error on a plain-text resource whose Link header points to a Capability List that does not cover it", func() {
		rep, base, ds := crawlCovered("fail-link-header-not-listed")
		Expect(linksTo(rep, base, "/notes.txt", "http-link")).To(BeTrue())
		Expect(ds).To(HaveLen(1), describe(rep, base))
		Expect(ds[0].Severity).To(Equal(engine.SeverityError))
		Expect(ds[0].Location.Name()).To(Equal(base + "/notes.txt"))
		Expect(ds[0].Message).To(ContainSubstring("its Link header points to"))
	})

	DescribeTable("says nothing when a list of the Capability List names the resource",
		func(name, path, method string) {
			rep, base, ds := crawlCovered(name)
			Expect(linksTo(rep, base, path, method)).To(BeTrue(), describe(rep, base))
			Expect(ds).To(BeEmpty(), describe(rep, base))
		},
		Entry("the home page, listed by the Resource List and the Resource Dump (the template)", "pass-listed-in-resource-list", "/", "html-link"),
		Entry("the home page's Link header too", "pass-listed-in-resource-list", "/", "http-link"),
		Entry("a page only the open Change List records", "pass-change-list-only", "/news.html", "html-link"),
		Entry("a JSON resource giving a Link header, listed by a Resource List", "pass-json-link-header-listed", "/data.json", "http-link"),
		Entry("a URL that redirects to a listed page", "pass-redirect-to-listed", "/start", "html-link"),
	)

	It("is an info naming what was not read when a list it could be in is out of the crawl's reach, never an error", func() {
		rep, base, ds := crawlCovered("fail-info-archive-elsewhere")
		Expect(ds).To(HaveLen(1), describe(rep, base))
		Expect(ds[0].Severity).To(Equal(engine.SeverityInfo))
		Expect(ds[0].Location.Name()).To(Equal(base + "/news.html"))
		Expect(ds[0].Message).To(ContainSubstring("the crawl cannot tell"))
		Expect(ds[0].Message).To(ContainSubstring("did not read http://archive.example.org/dataset1/changelist-archive.xml"))
	})
})
