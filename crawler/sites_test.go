package crawler_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
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
	// (rules/catalogue_test.go).
})

var _ = Describe("Crawl statistics", func() {
	It("count the entries of every document read, packages' manifests included", func() {
		good, err := fixtures.Template("good")
		Expect(err).NotTo(HaveOccurred())
		good.Packages = true
		rep, base := crawlSite(good)
		Expect(rep.EntryError).NotTo(HaveOccurred())
		// Count the entries of the documents the crawl reports, from the
		// site's own bytes.
		want, docs := 0, 0
		for _, res := range rep.Results {
			if res.Kind == rs.KindUnknown || res.Status == engine.StatusError {
				continue
			}
			if res.Kind == rs.KindPackage {
				continue
			}
			// A package's manifest is reported at PACKAGE#manifest.xml.
			path := strings.Replace(strings.TrimPrefix(res.Location, base), "#", "/", 1)
			data, err := os.ReadFile(filepath.Join("..", "fixtures", good.Path(), filepath.FromSlash(path)))
			Expect(err).NotTo(HaveOccurred())
			doc, err := rs.ParseBytes(data)
			Expect(err).NotTo(HaveOccurred(), path)
			want += len(doc.Entries)
			docs++
		}
		Expect(docs).To(BeNumerically(">=", 10))
		Expect(rep.Stats.Entries).To(Equal(want))
	})
})
