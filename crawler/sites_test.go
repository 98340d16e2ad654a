package crawler_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
)

var _ = Describe("Fixture sites", func() {
	sites, err := fixtures.Sites()
	It("load", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(sites).NotTo(BeEmpty())
	})
	for _, s := range sites {
		It("report exactly the cross-document findings "+s.Path()+" wants", func() {
			rep, base := crawlSite(s)
			Expect(rep.EntryError).NotTo(HaveOccurred(), describe(rep, base))
			missing, unexpected := compare(s.Want, found(rep, base, true))
			Expect(missing).To(BeEmpty(), "missing findings in %s; got:\n%s", s.Path(), describe(rep, base))
			Expect(unexpected).To(BeEmpty(), "unexpected findings in %s; got:\n%s", s.Path(), describe(rep, base))
		})
	}

	It("include a conforming template that gives no finding at all", func() {
		good, err := fixtures.Template("good")
		Expect(err).NotTo(HaveOccurred())
		good.Packages = true
		rep, base := crawlSite(good)
		Expect(rep.EntryError).NotTo(HaveOccurred())
		Expect(found(rep, base, false)).To(BeEmpty(), describe(rep, base))
		Expect(rep.Discovered()).To(HaveLen(3), describe(rep, base))
	})

	// That every cross-document rule has a failing and a passing site, and
	// that sites name only such rules, is the catalogue's self-test
	// (rules/fixtures_test.go).
})
