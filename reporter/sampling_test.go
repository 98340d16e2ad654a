package reporter_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
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

	It("is in the run's properties of the sarif format, as the json member", func() {
		var log struct {
			Runs []struct {
				Properties struct {
					Sampling *struct {
						Resources int            `json:"resources"`
						Skipped   map[string]int `json:"skipped"`
						Lists     []any          `json:"lists"`
					} `json:"sampling"`
				} `json:"properties"`
			} `json:"runs"`
		}
		Expect(json.Unmarshal(renderSampling(reporter.FormatSARIF), &log)).To(Succeed())
		Expect(log.Runs).To(HaveLen(1))
		sm := log.Runs[0].Properties.Sampling
		Expect(sm).NotTo(BeNil())
		Expect(sm.Resources).To(Equal(12))
		Expect(sm.Skipped).To(Equal(map[string]int{"closed": 40, "limit": 88}))
		Expect(sm.Lists).To(HaveLen(2))
	})

	It("is a testsuite of properties in the junit format", func() {
		var suites struct {
			Suites []struct {
				Name       string `xml:"name,attr"`
				Tests      int    `xml:"tests,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(renderSampling(reporter.FormatJUnit), &suites)).To(Succeed())
		last := suites.Suites[len(suites.Suites)-1]
		Expect(last.Name).To(Equal("sampling"))
		Expect(last.Tests).To(Equal(0))
		props := map[string]string{}
		for _, p := range last.Properties {
			props[p.Name] = p.Value
		}
		Expect(props).To(Equal(map[string]string{"resources": "12", "lists": "2", "sampled-lists": "1", "skipped.closed": "40", "skipped.limit": "88"}))
	})

	It("is a line of the html format's summary", func() {
		Expect(string(renderSampling(reporter.FormatHTML))).To(ContainSubstring(
			`<p class="sampling">sampled 12 resources from 1 list of 2 lists; 128 entries not sampled: 40 in closed Change Lists, 88 beyond --sample</p>`))
	})
})

var _ = Describe("A sampled resource's result", func() {
	resource := engine.Result{Location: "https://example.com/res/a.txt", Kind: rs.KindResource, Status: engine.StatusValid,
		Diagnostics: []engine.Diagnostic{{Rule: "RS-HTTP-LASTMOD-DATE", Severity: engine.SeverityWarning, Section: "7", Message: "m",
			Location: engine.NewLocation("https://example.com/res/a.txt", rs.Pos{})}}}

	It("is not counted as a document, its findings are", func() {
		rep := decodeContract(render(reporter.FormatJSON, sampleOptions, append(sampleResults(), resource)...))
		without := decodeContract(render(reporter.FormatJSON, sampleOptions, sampleResults()...))
		Expect(*rep.Summary.Documents).To(Equal(*without.Summary.Documents))
		Expect(*rep.Summary.Warnings).To(Equal(*without.Summary.Warnings + 1))
		Expect(*rep.Summary.Resources).To(Equal(1))
		Expect(string(render(reporter.FormatText, sampleOptions, append(sampleResults(), resource)...))).To(ContainSubstring("(1 sampled resource with findings of their own)"))
	})

	It("does not make the html format say a text was too large when it was never kept", func() {
		o := sampleOptions
		o.Sources = reporter.NewSources(10)
		o.Sources.Keep("https://example.com/big.xml", []byte("more than ten bytes"))
		big := resource
		big.Location, big.Kind = "https://example.com/big.xml", rs.ResourceList
		out := string(render(reporter.FormatHTML, o, resource, big))
		Expect(strings.Count(out, "too large for the report")).To(Equal(1), "only the document offered and dropped")
	})
})
