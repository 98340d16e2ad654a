package reporter_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
)

var crawlSampling = &graph.Sampling{Resources: 12,
	Skipped: map[string]int{graph.SkipClosed: 40, graph.SkipLimit: 88, graph.SkipDeleted: 0},
	Lists: []graph.SampledList{
		{Location: "https://example.com/resourcelist.xml", Kind: rs.ResourceList, Entries: 100, Sampled: 10, Skipped: map[string]int{graph.SkipLimit: 88, graph.SkipBudget: 2}},
		{Location: "https://example.com/changelist1.xml", Kind: rs.ChangeList, Entries: 40, Skipped: map[string]int{graph.SkipClosed: 40}},
	}}

func renderSampling(format string) []byte {
	var buf bytes.Buffer
	rep, err := reporter.New(format, &buf, sampleOptions)
	Expect(err).NotTo(HaveOccurred())
	for _, r := range sampleResults() {
		Expect(rep.Write(r)).To(Succeed())
	}
	sr, ok := rep.(reporter.SamplingReporter)
	Expect(ok).To(BeTrue(), format)
	sr.SetSampling(crawlSampling)
	Expect(rep.Flush()).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("What a crawl sampled", func() {
	It("is the optional sampling member of the json format, reasons with no entry left out", func() {
		rep := decodeContract(renderSampling(reporter.FormatJSON))
		Expect(rep.Sampling).NotTo(BeNil())
		Expect(*rep.Sampling.Resources).To(Equal(12))
		Expect(rep.Sampling.Skipped).To(Equal(map[string]int{"closed": 40, "limit": 88}))
		Expect(rep.Sampling.Lists).To(HaveLen(2))
		l := rep.Sampling.Lists[0]
		Expect([]any{*l.Location, *l.Kind, *l.Entries, *l.Sampled}).To(Equal([]any{"https://example.com/resourcelist.xml", "resourcelist", 100, 10}))
		Expect(l.Skipped).To(Equal(map[string]int{"limit": 88, "budget": 2}))
		Expect(decodeContract(render(reporter.FormatJSON, sampleOptions, sampleResults()...)).Sampling).To(BeNil(), "absent when not a sampling crawl")
	})

	It("is a line after the text format's summary", func() {
		Expect(string(renderSampling(reporter.FormatText))).To(HaveSuffix(
			"sampled 12 resources from 1 list of 2 lists; 128 entries not sampled: 40 in closed Change Lists, 88 beyond --sample\n"))
	})
})
