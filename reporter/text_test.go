package reporter_test

import (
	"bytes"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("The text format", func() {
	It("matches its golden file", func() {
		golden("report.txt.golden", render("text", sampleOptions, sampleResults()...))
	})

	It("groups findings under their document's header, in order", func() {
		out := string(render("text", sampleOptions, sampleResults()...))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		Expect(lines[0]).To(Equal("✗ testdata/changelist.xml (changelist) invalid"))
		Expect(lines[1]).To(MatchRegexp(`^  -     warning  RS-LIMIT-SIZE\s+\[7\]\s+the document is close`))
		Expect(lines[2]).To(MatchRegexp(`^  12:3  error    RS-XSD\s+\[7\]\s+Element`))
		Expect(lines[3]).To(MatchRegexp(`^\s+related: 10:3$`))
		Expect(lines[4]).To(MatchRegexp(`^\s+related: testdata/other.xml:4$`))
		Expect(lines[5]).To(MatchRegexp(`^  14:5  error    RS-TEST-NOT-IN-CATALOGUE  \[12.1\]  entry 14`))
		Expect(lines[6]).To(MatchRegexp(`^  20    info     RS-XSD\s+\[7\]\s+the rs:md`))
		Expect(lines[7]).To(Equal("✓ https://example.com/resourcelist.xml (resourcelist) valid"))
		Expect(lines[8]).To(Equal("! broken.xml (unknown) error"))
		Expect(lines[9]).To(Equal("  error: not a well-formed XML document: broken.xml:3:14: element <url> closed by </urlset>"))
		Expect(lines[10]).To(MatchRegexp(`^  3:14  error    RS-XML-WELLFORMED  \[7\]  element <url>`))
		Expect(lines[11]).To(Equal("! https://example.com/missing.xml (unknown) error"))
		Expect(lines[12]).To(Equal("  error: fetch https://example.com/missing.xml: 404 Not Found"))
		Expect(lines[13]).To(Equal("- https://other.example.org/sitemap.xml (unknown) skipped"))
		Expect(lines[15]).To(Equal("5 documents: 1 valid, 1 invalid, 2 unprocessed, 1 skipped; 3 errors, 1 warning, 1 info"))
		Expect(lines).To(HaveLen(16))
	})

	It("sums up repeated findings of one rule under the first, and lists them all with -v or in JSON", func() {
		r := engine.Result{Location: "rl.xml", Kind: "resourcelist", Status: engine.StatusInvalid}
		for i := 0; i < 669; i++ {
			r.Diagnostics = append(r.Diagnostics, engine.Diagnostic{Rule: "RS-HASH-SYNTAX", Severity: engine.SeverityError, Section: "7",
				Message: "hash value is not hex", Location: loc("rl.xml", 10+i, 5)})
		}
		for i := 0; i < 3; i++ {
			r.Diagnostics = append(r.Diagnostics, engine.Diagnostic{Rule: "RS-TIME-UTC", Severity: engine.SeverityWarning, Section: "7",
				Message: "not UTC", Location: loc("rl.xml", 700+i, 5)})
		}
		out := string(render("text", sampleOptions, r))
		Expect(strings.Count(out, "RS-HASH-SYNTAX")).To(Equal(2), "the first finding and the summing-up line")
		Expect(out).To(MatchRegexp(`(?m)^  10:5 +error +RS-HASH-SYNTAX +\[7\] +hash value is not hex\n +and 668 more like this \(RS-HASH-SYNTAX; all listed with -v, --format json or sarif\)$`))
		Expect(strings.Count(out, "RS-TIME-UTC")).To(Equal(3), "three are shown in full")
		Expect(out).To(ContainSubstring("669 errors, 3 warnings"))

		o := sampleOptions
		o.Verbose = true
		Expect(strings.Count(string(render("text", o, r)), "RS-HASH-SYNTAX")).To(Equal(669))
		Expect(strings.Count(string(render("json", sampleOptions, r)), `"RS-HASH-SYNTAX"`)).To(Equal(669))
	})

	It("aligns the messages of a document, and related locations under them", func() {
		lines := strings.Split(string(render("text", sampleOptions, sampleResults()[0])), "\n")
		col := strings.Index(lines[1], "the document is close")
		Expect(col).To(BeNumerically(">", 0))
		Expect(strings.Index(lines[2], "Element")).To(Equal(col))
		Expect(strings.Index(lines[3], "related:")).To(Equal(col))
		Expect(strings.Index(lines[4], "related:")).To(Equal(col))
		Expect(strings.Index(lines[5], "entry 14")).To(Equal(col))
		Expect(strings.Index(lines[6], "the rs:md")).To(Equal(col))
	})

	It("prints the summary at Flush, not before", func() {
		var buf bytes.Buffer
		rep, err := reporter.New("text", &buf, sampleOptions)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Write(sampleResults()[1])).To(Succeed())
		Expect(buf.String()).To(Equal("✓ https://example.com/resourcelist.xml (resourcelist) valid\n"))
		Expect(rep.Flush()).To(Succeed())
		Expect(buf.String()).To(HaveSuffix("1 document: 1 valid, 0 invalid, 0 unprocessed; 0 errors, 0 warnings, 0 infos\n"))
	})

	It("says when warnings fail", func() {
		o := sampleOptions
		o.Strict = true
		Expect(string(render("text", o))).To(Equal("0 documents: 0 valid, 0 invalid, 0 unprocessed; 0 errors, 0 warnings, 0 infos (strict: warnings fail)\n"))
	})

	It("lists parent, children and rules when verbose", func() {
		o := sampleOptions
		o.Verbose = true
		out := string(render("text", o, sampleResults()[0]))
		Expect(out).To(ContainSubstring("  parent:   https://example.com/capabilitylist.xml\n"))
		Expect(out).To(ContainSubstring("  children: https://example.com/a.xml, https://example.com/b.xml\n"))
		Expect(out).To(ContainSubstring("  rules:    RS-LIMIT-ENTRIES, RS-LIMIT-SIZE, RS-XML-WELLFORMED, RS-XSD\n"))
		Expect(string(render("text", sampleOptions, sampleResults()[0]))).NotTo(ContainSubstring("rules:"))
	})

	It("never lets a message drive the terminal", func() {
		r := sampleResults()[0]
		r.Diagnostics[0].Message = hostile
		r.Error = "line one\x1b]0;title\x07\nline two"
		out := string(render("text", sampleOptions, r))
		Expect(out).NotTo(ContainSubstring("\x1b"))
		Expect(out).NotTo(ContainSubstring("\x07"))
		Expect(out).NotTo(ContainSubstring("\u202e"))
		Expect(out).NotTo(ContainSubstring("\r"))
		Expect(out).To(ContainSubstring(`\x1b[31mred\x1b[0m`))
		Expect(out).To(ContainSubstring(`\u202e reversed`))
		Expect(out).To(ContainSubstring("\uFFFD\uFFFD invalid"))
		// A message's further lines are indented under its first.
		Expect(out).To(MatchRegexp(`\n {20,}second line tab\n`))
		Expect(out).To(ContainSubstring("  note: line one\\x1b]0;title\\x07\n        line two\n"))
	})

	Describe("colour", func() {
		It("is off in auto mode for a bytes.Buffer, even with NO_COLOR unset", func() {
			GinkgoT().Setenv("NO_COLOR", "")
			o := sampleOptions
			o.Color = "auto"
			Expect(string(render("text", o, sampleResults()...))).NotTo(ContainSubstring("\x1b["))
		})

		It("is off in auto mode for a file that is not a terminal", func() {
			GinkgoT().Setenv("NO_COLOR", "")
			f, err := os.CreateTemp(GinkgoT().TempDir(), "report")
			Expect(err).NotTo(HaveOccurred())
			rep, err := reporter.New("text", f, reporter.Options{Color: "auto"})
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.Write(sampleResults()[0])).To(Succeed())
			Expect(rep.Flush()).To(Succeed())
			Expect(f.Close()).To(Succeed())
			data, err := os.ReadFile(f.Name())
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).NotTo(ContainSubstring("\x1b["))
		})

		It("is on when always, even with NO_COLOR set, by severity and status", func() {
			GinkgoT().Setenv("NO_COLOR", "1")
			o := sampleOptions
			o.Color = "always"
			out := string(render("text", o, sampleResults()...))
			Expect(out).To(ContainSubstring("\x1b[31merror  \x1b[0m"))
			Expect(out).To(ContainSubstring("\x1b[33mwarning\x1b[0m"))
			Expect(out).To(ContainSubstring("\x1b[36minfo   \x1b[0m"))
			Expect(out).To(ContainSubstring("\x1b[32mvalid\x1b[0m"))
			Expect(out).To(ContainSubstring("\x1b[31;1minvalid\x1b[0;22m"))
		})

		It("is off when never", func() {
			o := sampleOptions
			o.Color = "never"
			Expect(string(render("text", o, sampleResults()...))).NotTo(ContainSubstring("\x1b["))
		})

		It("leaves fatih/color's global switch alone", func() {
			before := colorGlobalNoColor()
			o := sampleOptions
			for _, mode := range []string{"always", "never", "auto"} {
				o.Color = mode
				render("text", o, sampleResults()...)
			}
			Expect(colorGlobalNoColor()).To(Equal(before))
		})
	})

	It("shows a location that is not the document's own", func() {
		r := engine.Result{Location: "a.xml", Kind: "changelist", Status: engine.StatusInvalid,
			Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7",
				Message: "m", Location: loc("b.xml", 3, 4)}}}
		Expect(string(render("text", sampleOptions, r))).To(ContainSubstring("  b.xml:3:4  error"))
	})
})

var _ = Describe("The text format of a crawl", func() {
	It("indents each document under its parent, as a tree", func() {
		var buf bytes.Buffer
		rep, err := reporter.New("text", &buf, reporter.Options{Color: "never"})
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []engine.Result{
			{Location: "http://x/sd.xml", Kind: "description", Status: engine.StatusValid},
			{Location: "http://x/cl.xml", Kind: "capabilitylist", Status: engine.StatusValid, Parent: "http://x/sd.xml"},
			{Location: "http://x/rl.xml", Kind: "resourcelist", Status: engine.StatusInvalid, Parent: "http://x/cl.xml",
				Diagnostics: []engine.Diagnostic{{Rule: "RS-LINK-UP", Severity: engine.SeverityError, Section: "6.2", Message: "m", Location: engine.Location{URL: "http://x/rl.xml", Line: 2, Column: 1}}}},
			{Location: "http://x/cd.xml", Kind: "changedump", Status: engine.StatusValid, Parent: "http://x/cl.xml"},
		} {
			Expect(rep.Write(r)).To(Succeed())
		}
		Expect(rep.Flush()).To(Succeed())
		lines := strings.Split(buf.String(), "\n")
		Expect(lines[0]).To(HavePrefix("✓ http://x/sd.xml"))
		Expect(lines[1]).To(HavePrefix("  ✓ http://x/cl.xml"))
		Expect(lines[2]).To(HavePrefix("    ✗ http://x/rl.xml"))
		Expect(lines[3]).To(HavePrefix("      2:1"), "a finding is indented with its document")
		Expect(lines[4]).To(HavePrefix("    ✓ http://x/cd.xml"))
	})
})
