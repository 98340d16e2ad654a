package rules_test

import (
	"bytes"
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/schema"
)

// Issue 12: one XML front end decides well-formedness whatever rules are
// selected; selection only filters findings.
var _ = Describe("The XML front end", func() {
	const open = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`
	notWellFormed := map[string]string{
		"a duplicate attribute":              open + `<url><loc>http://example.com/a</loc><rs:md length="1" length="2"/></url></urlset>`,
		"an XML declaration after a newline": "\n" + `<?xml version="1.0" encoding="UTF-8"?>` + open + `<url><loc>http://example.com/a</loc></url></urlset>`,
		"a surrogate character reference":    open + `<url><loc>http://example.com/&#xD800;</loc></url></urlset>`,
		"an unbound prefix":                  open + `<url><loc>http://example.com/a</loc><x:y/></url></urlset>`,
	}
	sv, err := schema.New()
	Expect(err).NotTo(HaveOccurred())
	for what, doc := range notWellFormed {
		for _, sel := range []string{"", "*", "*,-RS-XSD", "RS-XML-WELLFORMED", "RS-CL-*"} {
			It("refuses "+what+" under --rules '"+sel+"'", func() {
				cfg := rules.Config{}
				if sel != "" {
					s, err := rules.ParseSelector(sel)
					Expect(err).NotTo(HaveOccurred())
					cfg.Select = s
				}
				res, parsed := (&rules.Validator{Config: cfg, Schema: sv}).ValidateDoc(context.Background(), "t.xml", []byte(doc))
				Expect(res.Status).To(Equal(rules.StatusError), "%+v", res)
				Expect(res.Error).To(ContainSubstring("not a well-formed XML document"))
				Expect(parsed).To(BeNil())
			})
		}
	}
	It("reads a document without checking it (Parse) under the same verdict", func() {
		v := &rules.Validator{}
		for what, doc := range notWellFormed {
			_, err := v.Parse([]byte(doc))
			Expect(err).To(HaveOccurred(), what)
		}
		d, err := v.Parse([]byte(open + `<url><loc>http://example.com/a</loc></url></urlset>`))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(1))
	})
	It("gives the same findings on a valid document with and without RS-XSD, but for RS-XSD", func() {
		doc := []byte(open + `<url><loc>http://example.com/a</loc><rs:md bogus="1" length="x"/></url></urlset>`)
		all := (&rules.Validator{Schema: sv}).ValidateBytes(context.Background(), "t.xml", doc)
		sel, err := rules.ParseSelector("*,-RS-XSD")
		Expect(err).NotTo(HaveOccurred())
		some := (&rules.Validator{Config: rules.Config{Select: sel}, Schema: sv}).ValidateBytes(context.Background(), "t.xml", doc)
		var want []rules.Diagnostic
		for _, d := range all.Diagnostics {
			if d.Rule != rules.SchemaRuleID {
				want = append(want, d)
			}
		}
		Expect(len(want)).To(BeNumerically("<", len(all.Diagnostics)))
		Expect(some.Diagnostics).To(Equal(want))
	})
})

// Issue 13: positions on a one-line document are right to the byte at its
// end (they used to be found by scanning back to the line's start, which
// also made validation quadratic in the line's length).
var _ = Describe("Positions on a one-line document", func() {
	It("are right to the byte for findings at the end of a 50,000-entry list on one line", func() {
		data := bytes.ReplaceAll(benchdata.ResourceList(50000), []byte("\n"), nil)
		last := bytes.LastIndex(data, []byte("<url>"))
		entry := string(data[last:])
		entry = strings.Replace(entry, "<lastmod>2025-", "<lastmod>2025-13-", 1)
		entry = strings.Replace(entry, "<rs:md ", `<rs:md bogus="1" `, 1)
		data = append(data[:last:last], entry...)
		lastmod := bytes.LastIndex(data, []byte("<lastmod>"))
		md := bytes.LastIndex(data, []byte("<rs:md "))
		Expect(lastmod).To(BeNumerically(">", 13_000_000))

		sv, err := schema.New()
		Expect(err).NotTo(HaveOccurred())
		res := (&rules.Validator{Schema: sv}).ValidateBytes(context.Background(), "one-line.xml", data)
		Expect(res.Status).To(Equal(rules.StatusInvalid))
		at := map[string]int{}
		for _, d := range res.Diagnostics {
			Expect(d.Location.Line).To(Equal(1), "%+v", d)
			at[d.Rule] = d.Location.Column
		}
		Expect(at).To(HaveKeyWithValue(rules.SchemaRuleID, md+1))
		Expect(at).To(HaveKeyWithValue("RS-TIME-W3C", lastmod+1))
	})
})
