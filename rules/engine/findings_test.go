package engine_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// changeListBreaking is a Change List of n entries, each with a change
// value the spec does not know (RS-CHANGE-VALUE) and a datetime not in
// UTC (RS-TIME-UTC, a warning), in reverse order (RS-CL-ORDER).
func changeListBreaking(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<url><loc>http://example.com/r%d</loc><rs:md change=\"bogus\" datetime=\"2013-01-03T12:%02d:%02d+01:00\"/></url>\n",
			i, 59-i/60%60, 59-i%60)
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

var _ = Describe("MaxFindingsPerRule", func() {
	const entries, max = 300, 7
	doc := changeListBreaking(entries)
	sv, err := frontend.New()
	It("loads the front end", func() { Expect(err).NotTo(HaveOccurred()) })

	count := func(res engine.Result) map[string]int {
		n := map[string]int{}
		for _, d := range res.Diagnostics {
			n[d.Rule]++
		}
		return n
	}
	for _, how := range []string{"streamed", "whole"} {
		It("keeps the first of each rule, counts the rest exactly ("+how+")", func() {
			all := validate(sv, engine.Config{}, how, doc)
			capped := validate(sv, engine.Config{MaxFindingsPerRule: max}, how, doc)
			Expect(count(all)).To(Equal(map[string]int{"RS-CHANGE-VALUE": entries, "RS-TIME-UTC": entries, "RS-CL-ORDER": entries - 1}))
			Expect(all.Omitted).To(BeEmpty())

			Expect(count(capped)).To(Equal(map[string]int{"RS-CHANGE-VALUE": max, "RS-TIME-UTC": max, "RS-CL-ORDER": max}))
			Expect(capped.Omitted).To(Equal([]engine.Omitted{
				{Rule: "RS-CHANGE-VALUE", Severity: engine.SeverityError, Section: all.Diagnostics[0].Section, Count: entries - max},
				{Rule: "RS-CL-ORDER", Severity: engine.SeverityError, Section: "12.1", Count: entries - 1 - max},
				{Rule: "RS-TIME-UTC", Severity: engine.SeverityWarning, Section: sectionOf(all, "RS-TIME-UTC"), Count: entries - max},
			}))
			// The findings kept are the first in the document.
			Expect(capped.Diagnostics[len(capped.Diagnostics)-1].Location.Line).To(BeNumerically("<=", 4+max+1))
			// Counts and status are those of every finding.
			e1, w1, i1 := all.Count()
			e2, w2, i2 := capped.Count()
			Expect([]int{e2, w2, i2}).To(Equal([]int{e1, w1, i1}))
			Expect(capped.Status).To(Equal(engine.StatusInvalid))
		})
	}

	It("keeps what Keep keeps without counting it towards the cap", func() {
		keep := func(_ string, _ rs.Kind, d engine.Diagnostic) bool {
			return d.Rule == "RS-TIME-UTC"
		}
		res := validate(sv, engine.Config{MaxFindingsPerRule: max, Keep: keep}, "streamed", doc)
		Expect(count(res)).To(Equal(map[string]int{"RS-CHANGE-VALUE": max, "RS-TIME-UTC": entries, "RS-CL-ORDER": max}))
	})
})

func validate(sv engine.FrontEnd, cfg engine.Config, how string, doc []byte) engine.Result {
	v := &engine.Validator{Config: cfg, Schema: sv}
	if how == "whole" {
		res, _ := v.ValidateDoc(context.Background(), "cl.xml", doc)
		return res
	}
	return v.ValidateBytes(context.Background(), "cl.xml", doc)
}

func sectionOf(res engine.Result, rule string) string {
	for _, d := range res.Diagnostics {
		if d.Rule == rule {
			return d.Section
		}
	}
	return ""
}

var _ = Describe("Findings added after a document's rules (Result.AddFindings)", func() {
	It("keep MaxFindingsPerRule of a rule, those it already has counting, and count the others", func() {
		diag := func(rule string, sev engine.Severity) engine.Diagnostic {
			return engine.Diagnostic{Rule: rule, Severity: sev, Section: "7"}
		}
		res := engine.Result{Location: "http://example.com/rl.xml", Kind: rs.ResourceList,
			Diagnostics: []engine.Diagnostic{diag("RS-X", engine.SeverityWarning)}}
		cfg := engine.Config{MaxFindingsPerRule: 2}
		var more []engine.Diagnostic
		for range 5 {
			more = append(more, diag("RS-X", engine.SeverityWarning), diag("RS-Y", engine.SeverityError))
		}
		res.AddFindings(cfg, more)
		res.AddFindings(cfg, more[:2])
		kept := map[string]int{}
		for _, d := range res.Diagnostics {
			kept[d.Rule]++
		}
		Expect(kept).To(Equal(map[string]int{"RS-X": 2, "RS-Y": 2}))
		Expect(res.OmittedOf("RS-X")).To(Equal(5))
		Expect(res.OmittedOf("RS-Y")).To(Equal(4))
		Expect(res.Omitted).To(HaveLen(2), "one count per rule and severity")
		errors, warnings, _ := res.Count()
		Expect([]int{errors, warnings}).To(Equal([]int{6, 7}))

		all := engine.Result{}
		all.AddFindings(engine.Config{}, more)
		Expect(all.Diagnostics).To(HaveLen(10), "no cap: all kept")
	})
})
