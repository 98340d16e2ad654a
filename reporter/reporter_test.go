package reporter_test

import (
	"bytes"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("New", func() {
	It("knows text, json, junit, sarif and html, text first", func() {
		Expect(reporter.Formats()).To(Equal([]string{"text", "json", "junit", "sarif", "html"}))
		for _, f := range reporter.Formats() {
			rep, err := reporter.New(f, &bytes.Buffer{}, reporter.Options{})
			Expect(err).NotTo(HaveOccurred(), f)
			Expect(rep).NotTo(BeNil())
		}
	})

	It("refuses an unknown format, listing the valid ones", func() {
		_, err := reporter.New("yaml", &bytes.Buffer{}, reporter.Options{})
		Expect(err).To(MatchError(And(ContainSubstring(`"yaml"`), ContainSubstring("text, json, junit, sarif, html"))))
	})

	It("refuses an unknown colour mode", func() {
		_, err := reporter.New("text", &bytes.Buffer{}, reporter.Options{Color: "sometimes"})
		Expect(err).To(MatchError(ContainSubstring("auto, always, never")))
	})

	It("refuses a nil writer", func() {
		_, err := reporter.New("json", nil, reporter.Options{})
		Expect(err).To(HaveOccurred())
	})

	DescribeTable("enforces Write then one Flush",
		func(format string) {
			rep, err := reporter.New(format, &bytes.Buffer{}, sampleOptions)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.Write(sampleResults()[0])).To(Succeed())
			Expect(rep.Flush()).To(Succeed())
			Expect(rep.Write(sampleResults()[1])).To(MatchError(ContainSubstring("already flushed")))
			Expect(rep.Flush()).To(MatchError(ContainSubstring("already flushed")))
		},
		Entry("text", "text"), Entry("json", "json"), Entry("junit", "junit"), Entry("sarif", "sarif"), Entry("html", "html"),
	)

	DescribeTable("is safe for concurrent Writes",
		func(format string) {
			var buf bytes.Buffer
			rep, err := reporter.New(format, &buf, sampleOptions)
			Expect(err).NotTo(HaveOccurred())
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer GinkgoRecover()
					for _, r := range sampleResults() {
						Expect(rep.Write(r)).To(Succeed())
					}
				}()
			}
			wg.Wait()
			Expect(rep.Flush()).To(Succeed())
			Expect(buf.Len()).To(BeNumerically(">", 0))
		},
		Entry("text", "text"), Entry("json", "json"), Entry("junit", "junit"), Entry("sarif", "sarif"), Entry("html", "html"),
	)
})

var _ = Describe("Tally", func() {
	It("counts documents by status and findings by severity", func() {
		var t reporter.Tally
		for _, r := range sampleResults() {
			Expect(t.Write(r)).To(Succeed())
		}
		Expect(t.Flush()).To(Succeed())
		Expect(t.Summary()).To(Equal(reporter.Summary{
			Documents: 5, Valid: 1, Invalid: 1, Errors: 2, Skipped: 1, Unread: 1,
			ErrorFindings: 3, Warnings: 1, Infos: 1,
		}))
	})

	It("derives the status of an unfinished Result from its findings", func() {
		var t reporter.Tally
		t.Add(engine.Result{Location: "a.xml", Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError}}})
		t.Add(engine.Result{Location: "b.xml", Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityWarning}}})
		Expect(t.Summary()).To(Equal(reporter.Summary{Documents: 2, Valid: 1, Invalid: 1, ErrorFindings: 1, Warnings: 1}))
	})

	It("is safe for concurrent use", func() {
		var t reporter.Tally
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, r := range sampleResults() {
					t.Add(r)
				}
			}()
		}
		wg.Wait()
		Expect(t.Summary().Documents).To(Equal(50))
	})
})

var _ = Describe("ExitCode", func() {
	DescribeTable("decides 0, 1 or 2",
		func(s reporter.Summary, strict bool, want int) {
			Expect(reporter.ExitCode(s, strict)).To(Equal(want))
		},
		Entry("all valid", reporter.Summary{Documents: 2, Valid: 2}, false, 0),
		Entry("all valid, strict", reporter.Summary{Documents: 2, Valid: 2}, true, 0),
		Entry("infos never fail", reporter.Summary{Documents: 1, Valid: 1, Infos: 3}, true, 0),
		Entry("warnings pass", reporter.Summary{Documents: 1, Valid: 1, Warnings: 2}, false, 0),
		Entry("warnings fail under strict", reporter.Summary{Documents: 1, Valid: 1, Warnings: 2}, true, 1),
		Entry("an error finding fails", reporter.Summary{Documents: 2, Valid: 1, Invalid: 1, ErrorFindings: 1}, false, 1),
		Entry("skipped documents pass", reporter.Summary{Documents: 2, Valid: 1, Skipped: 1}, false, 0),
		Entry("only skipped documents pass", reporter.Summary{Documents: 1, Skipped: 1}, false, 0),
		Entry("a document that could not be processed: no verdict",
			reporter.Summary{Documents: 2, Valid: 1, Errors: 1}, false, 2),
		Entry("a document that could not be processed, with warnings, not strict",
			reporter.Summary{Documents: 2, Valid: 1, Errors: 1, Warnings: 1}, false, 2),
		Entry("a malformed document (status error with RS-XML-WELLFORMED) fails",
			reporter.Summary{Documents: 1, Errors: 1, ErrorFindings: 1}, false, 1),
		Entry("failing findings win over unprocessed documents",
			reporter.Summary{Documents: 3, Invalid: 1, Errors: 2, ErrorFindings: 4}, false, 1),
		Entry("strict warnings win over unprocessed documents",
			reporter.Summary{Documents: 2, Valid: 1, Errors: 1, Warnings: 1}, true, 1),
		Entry("nothing checked: no verdict", reporter.Summary{}, false, 2),
	)

	DescribeTable("fails at the given level (--fail-level)",
		func(s reporter.Summary, level engine.Severity, want int) {
			Expect(reporter.ExitCodeAt(s, level)).To(Equal(want))
		},
		Entry("infos pass at error", reporter.Summary{Documents: 1, Valid: 1, Infos: 1, Warnings: 1}, engine.SeverityError, 0),
		Entry("warnings fail at warning", reporter.Summary{Documents: 1, Valid: 1, Warnings: 1}, engine.SeverityWarning, 1),
		Entry("infos pass at warning", reporter.Summary{Documents: 1, Valid: 1, Infos: 1}, engine.SeverityWarning, 0),
		Entry("infos fail at info", reporter.Summary{Documents: 1, Valid: 1, Infos: 1}, engine.SeverityInfo, 1),
		Entry("errors fail at any level", reporter.Summary{Documents: 1, Invalid: 1, ErrorFindings: 1}, engine.SeverityError, 1),
	)

	It("counts documents that could not be read apart from malformed ones", func() {
		var s reporter.Summary
		s.Add(engine.ErrorResult("missing.xml", "cannot read"))
		s.Add(engine.Result{Location: "bad.xml", Status: engine.StatusError,
			Diagnostics: []engine.Diagnostic{{Rule: "RS-XML-WELLFORMED", Severity: engine.SeverityError}}})
		Expect(s.Errors).To(Equal(2))
		Expect(s.Unread).To(Equal(1))
	})

	It("gives 1 for the sample documents, as the Tally counts them", func() {
		var t reporter.Tally
		for _, r := range sampleResults() {
			t.Add(r)
		}
		Expect(reporter.ExitCode(t.Summary(), false)).To(Equal(reporter.ExitFailures))
	})
})
