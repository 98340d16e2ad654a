package main

import (
	"fmt"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
)

// bogusChangeList is a Change List of n entries in reverse order, each
// with a change value the spec does not know: n RS-CHANGE-VALUE and n-1
// RS-CL-ORDER errors. extra goes before the end.
func bogusChangeList(n int, extra string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  <url><loc>http://example.com/r%d</loc><rs:md change=\"bogus\" datetime=\"2013-01-03T12:%02d:00Z\"/></url>\n", i, 59-i)
	}
	b.WriteString(extra + "</urlset>\n")
	return []byte(b.String())
}

func findingsByRule(d reporter.JSONDocument) map[string]int {
	n := map[string]int{}
	for _, f := range d.Findings {
		n[f.Rule]++
	}
	return n
}

var _ = Describe("--max-findings-per-rule", func() {
	var dir, cl string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		cl = write(dir, "cl.xml", bogusChangeList(40, ""))
	})

	It("lists the first N findings of each rule, counts the rest, and fails as before", func() {
		code, rep := jsonReport("--rules", "RS-CHANGE-VALUE,RS-CL-ORDER", "--max-findings-per-rule", "5", cl)
		Expect(code).To(Equal(1))
		doc := rep.Documents[0]
		Expect(findingsByRule(doc)).To(Equal(map[string]int{"RS-CHANGE-VALUE": 5, "RS-CL-ORDER": 5}))
		Expect(doc.Omitted).To(ConsistOf(
			reporter.JSONOmitted{Rule: "RS-CHANGE-VALUE", Severity: "error", Section: doc.Findings[0].Section, Count: 35},
			reporter.JSONOmitted{Rule: "RS-CL-ORDER", Severity: "error", Section: "12.1", Count: 34}))
		Expect(rep.Summary.Errors).To(Equal(79))

		code, rep = jsonReport("--rules", "RS-CHANGE-VALUE,RS-CL-ORDER", "--max-findings-per-rule", "0", cl)
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings).To(HaveLen(79))
		Expect(rep.Documents[0].Omitted).To(BeEmpty())

		code, _, errs := cli("validate", "--max-findings-per-rule", "-1", cl)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--max-findings-per-rule must not be negative"))
	})

	It("works with --baseline: written whole, then known findings do not push new ones out", func() {
		base := filepath.Join(dir, "baseline.json")
		code, _, errs := cli("validate", "--rules", "RS-CHANGE-VALUE,RS-CL-ORDER", "--max-findings-per-rule", "5", "--baseline", base, cl)
		Expect(code).To(Equal(0), errs)
		Expect(errs).To(ContainSubstring("wrote 79 findings to the baseline"))

		code, rep := jsonReport("--rules", "RS-CHANGE-VALUE,RS-CL-ORDER", "--max-findings-per-rule", "5", "--baseline", base, cl)
		Expect(code).To(Equal(0))
		Expect(rep.Documents[0].Findings).To(BeEmpty())
		Expect(rep.Documents[0].Omitted).To(BeEmpty())
		Expect(rep.Summary.Errors).To(Equal(0))

		// One more entry out of order, at the end: one new finding.
		write(dir, "cl.xml", bogusChangeList(40, `  <url><loc>http://example.com/new</loc><rs:md change="updated" datetime="2013-01-03T10:00:00Z"/></url>
`))
		code, rep = jsonReport("--rules", "RS-CHANGE-VALUE,RS-CL-ORDER", "--max-findings-per-rule", "5", "--baseline", base, cl)
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings).To(HaveLen(1))
		Expect(rep.Documents[0].Findings[0].Line).To(Equal(45))
		Expect(rep.Summary.Errors).To(Equal(1))
	})
})
