package reporter_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
)

// notInCatalogue is a well-formed rule ID that no real rule will take:
// findings of rules the catalogue does not know must still be reported.
const notInCatalogue = "RS-TEST-NOT-IN-CATALOGUE"

// hostile is a message with everything that breaks naive writers: quotes,
// markup, entities, CDATA ends, control characters, a terminal escape,
// invalid UTF-8, a bidi override and non-characters.
const hostile = "bad \"quote\" 'apos' <tag attr=\"x\"> & &amp; ]]> \x00\x01\x08\x0b\x0c\x1b[31mred\x1b[0m \x7f \xff\xfe invalid \u202e reversed \uFFFE\uFFFF end\r\nsecond line\ttab"

func loc(name string, line, col int) engine.Location {
	if engine.IsURL(name) {
		return engine.Location{URL: name, Line: line, Column: col}
	}
	return engine.Location{File: name, Line: line, Column: col}
}

var inputRules = []string{"RS-LIMIT-ENTRIES", "RS-LIMIT-SIZE", "RS-XML-WELLFORMED", "RS-XSD"}

// sampleResults are five documents, one of each situation.
func sampleResults() []engine.Result {
	return []engine.Result{
		{
			Location: "testdata/changelist.xml", Kind: "changelist", Status: engine.StatusInvalid,
			Applied: inputRules,
			Diagnostics: []engine.Diagnostic{
				{Rule: "RS-LIMIT-SIZE", Severity: engine.SeverityWarning, Section: "7",
					Message: "the document is close to the size limit", Location: loc("testdata/changelist.xml", 0, 0)},
				{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7",
					Message:  "Element '{http://www.sitemaps.org/schemas/sitemap/0.9}lastmod': '2013-13-01' is not a valid value of the atomic type 'xs:dateTime'.",
					Location: loc("testdata/changelist.xml", 12, 3),
					Related:  []engine.Location{loc("testdata/changelist.xml", 10, 3), loc("testdata/other.xml", 4, 0)}},
				{Rule: notInCatalogue, Severity: engine.SeverityError, Section: "12.1",
					Message: "entry 14 is older than entry 13", Location: loc("testdata/changelist.xml", 14, 5)},
				{Rule: "RS-XSD", Severity: engine.SeverityInfo, Section: "7",
					Message: "the rs:md element has no capability", Location: loc("testdata/changelist.xml", 20, 0)},
			},
			Parent:   "https://example.com/capabilitylist.xml",
			Children: []string{"https://example.com/a.xml", "https://example.com/b.xml"},
		},
		{
			Location: "https://example.com/resourcelist.xml", Kind: "resourcelist", Status: engine.StatusValid,
			Applied: inputRules,
		},
		{
			Location: "broken.xml", Kind: "unknown", Status: engine.StatusError,
			Applied: []string{"RS-LIMIT-SIZE", "RS-XML-WELLFORMED", "RS-XSD"},
			Error:   "not a well-formed XML document: broken.xml:3:14: element <url> closed by </urlset>",
			Diagnostics: []engine.Diagnostic{
				{Rule: "RS-XML-WELLFORMED", Severity: engine.SeverityError, Section: "7",
					Message: "element <url> closed by </urlset>", Location: loc("broken.xml", 3, 14)},
			},
		},
		{
			Location: "https://example.com/missing.xml", Kind: "", Status: engine.StatusError,
			Error:  "fetch https://example.com/missing.xml: 404 Not Found",
			Parent: "https://example.com/capabilitylist.xml",
		},
		{
			Location: "https://other.example.org/sitemap.xml", Kind: "", Status: engine.StatusSkipped,
			Error: "outside the crawl scope",
		},
	}
}

// render writes results in a format and returns the report.
func render(format string, o reporter.Options, results ...engine.Result) []byte {
	var buf bytes.Buffer
	rep, err := reporter.New(format, &buf, o)
	Expect(err).NotTo(HaveOccurred())
	for _, r := range results {
		Expect(rep.Write(r)).To(Succeed())
	}
	Expect(rep.Flush()).To(Succeed())
	return buf.Bytes()
}

var sampleOptions = reporter.Options{Tool: "rsconform", Version: "0.0.0-test", Spec: "1.1", Color: "never"}

// golden compares got with testdata/name, rewriting it under -update.
func golden(name string, got []byte) {
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "golden file missing: run go test ./reporter -update")
	Expect(string(got)).To(Equal(string(want)), "output differs from %s; if the change is intended, run go test ./reporter -update and review the diff", path)
}
