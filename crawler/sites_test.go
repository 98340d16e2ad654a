package crawler_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules"
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

	for _, r := range rules.All() {
		if !r.IsGraph() {
			continue
		}
		r := r
		It("have a failing and a passing site for "+r.ID, func() {
			var pass, fail int
			for _, s := range sites {
				if s.Dir != r.ID {
					continue
				}
				wants := 0
				for _, w := range s.Want {
					if w.Rule == r.ID {
						wants++
					}
				}
				switch {
				case s.Pass():
					pass++
					Expect(wants).To(BeZero(), "%s is a passing site but wants %s", s.Path(), r.ID)
				case s.Fail():
					fail++
					Expect(wants).To(BeNumerically(">", 0), "%s is a failing site but wants no %s", s.Path(), r.ID)
				default:
					Fail(s.Path() + " is neither pass-* nor fail-*")
				}
			}
			Expect(fail).To(BeNumerically(">", 0), "no fixtures/sites/%s/fail-*", r.ID)
			Expect(pass).To(BeNumerically(">", 0), "no fixtures/sites/%s/pass-*", r.ID)
		})
	}

	It("name cross-document rules only", func() {
		for _, s := range sites {
			r := rules.Lookup(s.Dir)
			Expect(r).NotTo(BeNil(), "fixtures/sites/%s names no rule", s.Dir)
			Expect(r.IsGraph()).To(BeTrue(), "fixtures/sites/%s: %s is a document rule (use fixtures/%s/)", s.Dir, s.Dir, s.Dir)
			Expect(strings.HasPrefix(s.Dir, "RS-")).To(BeTrue())
		}
	})
})
