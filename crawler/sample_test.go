package crawler_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/graph"
)

var _ = Describe("What a crawl sampled", func() {
	crawlGood := func(sample int) (map[string]graph.SampledList, *graph.Sampling) {
		good, err := fixtures.Template("good")
		Expect(err).NotTo(HaveOccurred())
		good.Sample = sample
		rep, base := crawlSite(good)
		Expect(rep.Sampling).NotTo(BeNil())
		lists := map[string]graph.SampledList{}
		for _, l := range rep.Sampling.Lists {
			total, _ := graph.SkipTotal(l.Skipped)
			Expect(l.Sampled+total).To(Equal(l.Entries), "%s: every entry is sampled or skipped for a reason", l.Location)
			lists[l.Location[len(base):]] = l
		}
		return lists, rep.Sampling
	}

	It("counts every entry of every list as sampled or skipped, with the reason", func() {
		lists, s := crawlGood(-1)
		Expect(s.Resources).To(Equal(3))
		// resourcelist1.xml lists the home page /, the crawl's entry
		// point, read for discovery and not judged as a resource.
		rl := lists["/dataset1/resourcelist1.xml"]
		Expect([]int{rl.Entries, rl.Sampled}).To(Equal([]int{3, 2}))
		Expect(rl.Skipped).To(Equal(map[string]int{graph.SkipPage: 1}))
		Expect(lists["/dataset1/changelist1.xml"].Skipped).To(Equal(map[string]int{graph.SkipClosed: 1}))
		Expect(lists["/dataset1/changelist2.xml"].Sampled).To(Equal(1))
		Expect(s.Skipped[graph.SkipClosed]).To(BeNumerically(">=", 1))
	})

	It("skips both entries of a resource created then deleted in the open Change List, and fetches nothing of it", func() {
		s, err := fixtures.LoadSite("RS-REP-GONE", "pass-created-then-deleted")
		Expect(err).NotTo(HaveOccurred())
		rep, base := crawlSite(s)
		Expect(rep.Sampling).NotTo(BeNil())
		var cl *graph.SampledList
		for i, l := range rep.Sampling.Lists {
			if l.Location == base+"/dataset1/changelist2.xml" {
				cl = &rep.Sampling.Lists[i]
			}
		}
		Expect(cl).NotTo(BeNil())
		Expect([]int{cl.Entries, cl.Sampled}).To(Equal([]int{3, 1}))
		Expect(cl.Skipped).To(Equal(map[string]int{graph.SkipEarlier: 1, graph.SkipDeleted: 1}))
		Expect(rep.Graph.Node(base + "/res/res4.txt")).To(BeNil())
		Expect(rep.Graph.History.Latest(base + "/res/res4.txt").Series).To(HaveLen(2))
	})

	It("says how many entries --sample N left", func() {
		lists, _ := crawlGood(1)
		Expect(lists["/dataset1/resourcelist1.xml"].Sampled).To(Equal(1))
		Expect(lists["/dataset1/resourcelist1.xml"].Skipped).To(Equal(map[string]int{graph.SkipLimit: 2}))
	})
})

// Which lists an archive reaches is known only once every document is
// fetched: the archive here answers only after the Change List it lists
// has been read, and the list still counts as archived.
var _ = Describe("Sampling whatever order the fetches take", func() {
	It("counts a list an archive reaches as archived even when the archive is read after it", func() {
		served := make(chan struct{})
		var once sync.Once
		site := goodSite().Handler()
		h := newHostile(map[string]http.HandlerFunc{
			"/dataset1/changelist1.xml": func(w http.ResponseWriter, r *http.Request) {
				site.ServeHTTP(w, r)
				once.Do(func() { close(served) })
			},
			"/dataset1/changelist-archive.xml": func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-served:
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Second):
				}
				b := "http://" + r.Host
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="%[1]s/dataset1/capabilitylist.xml"/>
  <rs:md capability="changelist-archive"/>
  <url><loc>%[1]s/dataset1/changelist-old.xml</loc><rs:md from="2012-12-01T00:00:00Z" until="2013-01-01T00:00:00Z"/></url>
  <url><loc>%[1]s/dataset1/changelist1.xml</loc><rs:md from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/></url>
</urlset>`, b)
			},
		})
		opts := testOptions()
		opts.Sample, opts.SampleSet = -1, true
		rep := h.crawl("/", opts)
		Expect(rep.Sampling).NotTo(BeNil())
		var got map[string]int
		for _, l := range rep.Sampling.Lists {
			if strings.HasSuffix(l.Location, "/dataset1/changelist1.xml") {
				got = l.Skipped
			}
		}
		Expect(got).To(Equal(map[string]int{graph.SkipArchived: 1}))
	})
})
