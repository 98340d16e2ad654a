package crawler_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules"
)

var _ = Describe("What a crawl sampled", func() {
	crawlGood := func(sample int) (map[string]rules.SampledList, *rules.Sampling) {
		good, err := fixtures.Template("good")
		Expect(err).NotTo(HaveOccurred())
		good.Sample = sample
		rep, base := crawlSite(good)
		Expect(rep.Sampling).NotTo(BeNil())
		lists := map[string]rules.SampledList{}
		for _, l := range rep.Sampling.Lists {
			total, _ := rules.SkipTotal(l.Skipped)
			Expect(l.Sampled+total).To(Equal(l.Entries), "%s: every entry is sampled or skipped for a reason", l.Location)
			lists[l.Location[len(base):]] = l
		}
		return lists, rep.Sampling
	}

	It("counts every entry of every list as sampled or skipped, with the reason", func() {
		lists, s := crawlGood(-1)
		Expect(s.Resources).To(Equal(3))
		rl := lists["/dataset1/resourcelist1.xml"]
		Expect([]int{rl.Entries, rl.Sampled, len(rl.Skipped)}).To(Equal([]int{2, 2, 0}))
		Expect(lists["/dataset1/changelist1.xml"].Skipped).To(Equal(map[string]int{rules.SkipClosed: 1}))
		Expect(lists["/dataset1/changelist2.xml"].Sampled).To(Equal(1))
		Expect(s.Skipped[rules.SkipClosed]).To(BeNumerically(">=", 1))
	})

	It("says how many entries --sample N left", func() {
		lists, _ := crawlGood(1)
		Expect(lists["/dataset1/resourcelist1.xml"].Sampled).To(Equal(1))
		Expect(lists["/dataset1/resourcelist1.xml"].Skipped).To(Equal(map[string]int{rules.SkipLimit: 1}))
	})
})
