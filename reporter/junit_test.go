package reporter_test

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lestrrat-go/libxml2/parser"
	"github.com/lestrrat-go/libxml2/xsd"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules/engine"
)

// The JUnit schema is compiled once: xsd.Parse leaks a little per call.
var junitSchema = sync.OnceValues(func() (*xsd.Schema, error) {
	data, err := os.ReadFile(filepath.Join("testdata", "junit-10.xsd"))
	if err != nil {
		return nil, err
	}
	return xsd.Parse(data)
})

// validateJUnit checks a report against testdata/junit-10.xsd with
// libxml2. The parser's defaults are acceptable here only because the input
// is our own output; documents from outside go through package schema.
func validateJUnit(report []byte) {
	schema, err := junitSchema()
	Expect(err).NotTo(HaveOccurred())
	doc, err := parser.New().Parse(report)
	Expect(err).NotTo(HaveOccurred(), "the report is not well-formed XML:\n%s", report)
	defer doc.Free()
	if err := schema.Validate(doc); err != nil {
		var sve xsd.SchemaValidationError
		if errors.As(err, &sve) {
			Fail("the report is not valid against junit-10.xsd: " + errors.Join(sve.Errors()...).Error() + "\n" + string(report))
		}
		Fail("validating the report: " + err.Error())
	}
}

// The report as encoding/xml reads it back.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []junitTestcase `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitTestcase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Skipped   *string        `xml:"skipped"`
	Errors    []junitOutcome `xml:"error"`
	Failures  []junitOutcome `xml:"failure"`
	SystemOut []string       `xml:"system-out"`
}

type junitOutcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func decodeJUnit(data []byte) junitDoc {
	var doc junitDoc
	Expect(xml.Unmarshal(data, &doc)).To(Succeed())
	return doc
}

var _ = Describe("The junit format", func() {
	It("is checked by a schema that refuses what it should", func() {
		schema, err := junitSchema()
		Expect(err).NotTo(HaveOccurred())
		for _, bad := range []string{
			`<testsuites><testsuite tests="1"/></testsuites>`,                                                                     // no name
			`<testsuites><testsuite name="x" tests="-1"/></testsuites>`,                                                           // negative count
			`<testsuites><testsuite name="x" tests="1"><testcase/></testsuite></testsuites>`,                                      // testcase without name
			`<testsuites><testsuite name="x" tests="1"><testcase name="t"><failure/><error/></testcase></testsuite></testsuites>`, // error after failure
			`<testsuites><testsuite name="x" tests="1"><testcase name="t"><skipped message="m"/></testcase></testsuite></testsuites>`,
		} {
			doc, err := parser.New().ParseString(bad)
			Expect(err).NotTo(HaveOccurred())
			Expect(schema.Validate(doc)).NotTo(Succeed(), bad)
			doc.Free()
		}
	})

	It("is valid against the junit-10 schema", func() {
		validateJUnit(render("junit", sampleOptions, sampleResults()...))
		validateJUnit(render("junit", sampleOptions))
	})

	It("has one testsuite per document and one testcase per rule that ran", func() {
		doc := decodeJUnit(render("junit", sampleOptions, sampleResults()...))
		Expect(doc.Name).To(Equal("rsconform"))
		Expect(doc.Suites).To(HaveLen(5))

		cl := doc.Suites[0]
		Expect(cl.Name).To(Equal("testdata/changelist.xml"))
		// The four rules that ran, and the one with a finding that the
		// catalogue does not know.
		Expect(cl.Cases).To(HaveLen(5))
		Expect(cl.Tests).To(Equal(5))
		Expect(cl.Failures).To(Equal(2))
		Expect(cl.Errors).To(Equal(0))
		title := engine.Lookup("RS-XSD").Title
		var xsdCase junitTestcase
		for _, c := range cl.Cases {
			Expect(c.Classname).To(Equal("changelist"))
			if strings.HasPrefix(c.Name, "RS-XSD:") {
				xsdCase = c
			}
		}
		Expect(xsdCase.Name).To(Equal("RS-XSD: " + title + " [7]"))
		Expect(xsdCase.Failures).To(HaveLen(1))
		Expect(xsdCase.Failures[0].Type).To(Equal("error"))
		Expect(xsdCase.Failures[0].Message).To(HavePrefix("12:3 error: Element '{http://www.sitemaps.org/schemas/sitemap/0.9}lastmod'"))
		Expect(xsdCase.Failures[0].Text).To(ContainSubstring("\n  related: testdata/other.xml:4"))
		Expect(xsdCase.SystemOut).To(ConsistOf("20 info: the rs:md element has no capability"))
		Expect(cl.Cases[4].Name).To(Equal("RS-TEST-NOT-IN-CATALOGUE [12.1]"))
		Expect(cl.Cases[4].Failures).To(HaveLen(1))

		props := map[string]string{}
		for _, p := range cl.Properties {
			props[p.Name] = p.Value
		}
		Expect(props).To(Equal(map[string]string{"kind": "changelist", "status": "invalid", "spec": "1.1",
			"parent": "https://example.com/capabilitylist.xml"}))

		missing := doc.Suites[3]
		Expect(missing.Cases).To(HaveLen(1))
		Expect(missing.Cases[0].Name).To(Equal("processing"))
		Expect(missing.Cases[0].Classname).To(Equal("rsconform"))
		Expect(missing.Cases[0].Errors).To(HaveLen(1))
		Expect(missing.Cases[0].Errors[0].Text).To(ContainSubstring("404 Not Found"))
		Expect(missing.Errors).To(Equal(1))

		broken := doc.Suites[2]
		Expect(broken.Cases[0].Name).To(Equal("processing"))
		Expect(broken.Errors).To(Equal(1))
		Expect(broken.Failures).To(Equal(1))

		skipped := doc.Suites[4]
		Expect(skipped.Skipped).To(Equal(1))
		Expect(skipped.Cases[0].Skipped).To(Equal(ptr("outside the crawl scope")))

		Expect(doc.Tests).To(Equal(5 + 4 + 4 + 1 + 1))
		Expect(doc.Failures).To(Equal(3))
		Expect(doc.Errors).To(Equal(2))
	})

	It("reports warnings in system-out, or as failures when strict", func() {
		sizeCase := func(doc junitDoc) junitTestcase {
			for _, c := range doc.Suites[0].Cases {
				if strings.HasPrefix(c.Name, "RS-LIMIT-SIZE:") {
					return c
				}
			}
			Fail("no RS-LIMIT-SIZE testcase")
			return junitTestcase{}
		}
		lax := sizeCase(decodeJUnit(render("junit", sampleOptions, sampleResults()[0])))
		Expect(lax.Failures).To(BeEmpty())
		Expect(lax.SystemOut).To(ConsistOf("- warning: the document is close to the size limit"))

		o := sampleOptions
		o.Strict = true
		report := render("junit", o, sampleResults()[0])
		validateJUnit(report)
		doc := decodeJUnit(report)
		strict := sizeCase(doc)
		Expect(strict.Failures).To(HaveLen(1))
		Expect(strict.Failures[0].Type).To(Equal("warning"))
		Expect(strict.Failures[0].Text).To(Equal("- warning: the document is close to the size limit"))
		Expect(strict.SystemOut).To(BeEmpty())
		Expect(doc.Suites[0].Failures).To(Equal(3))
	})

	It("stays well-formed and valid with hostile text anywhere", func() {
		r := sampleResults()[0]
		r.Location = "dir/" + hostile + ".xml"
		r.Parent = hostile
		r.Kind = "changelist"
		for i := range r.Diagnostics {
			r.Diagnostics[i].Message = hostile
			r.Diagnostics[i].Section = hostile
			r.Diagnostics[i].Location.File = r.Location
		}
		failed := sampleResults()[3]
		failed.Error = hostile
		skipped := sampleResults()[4]
		skipped.Error = hostile
		for _, strict := range []bool{false, true} {
			o := sampleOptions
			o.Strict = strict
			o.Tool = hostile
			report := render("junit", o, r, failed, skipped)
			validateJUnit(report)
			Expect(string(report)).NotTo(ContainSubstring("\x00"))
			Expect(string(report)).NotTo(ContainSubstring("\x1b"))

			doc := decodeJUnit(report)
			f := doc.Suites[0].Cases[3].Failures[0]
			Expect(f.Message).To(HavePrefix(`12:3 error: bad "quote" 'apos' <tag attr="x"> & &amp; ]]> [31mred`))
			Expect(f.Text).To(ContainSubstring(` end` + "\r\nsecond line\ttab"))
			Expect(f.Text).To(ContainSubstring("\uFFFD\uFFFD invalid \u202e reversed  end"), "illegal characters are dropped, invalid bytes become U+FFFD")
			Expect(doc.Suites[1].Cases[0].Errors[0].Text).To(HavePrefix(`bad "quote"`))
			Expect(doc.Suites[0].Name).To(HavePrefix(`dir/bad "quote"`))
		}
	})
})
