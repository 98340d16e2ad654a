package reporter_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
)

// A document whose findings beyond --max-findings-per-rule were only
// counted (engine.Result.Omitted): two RS-CL-ORDER findings listed,
// 49,000 more counted, and 5 RS-TIME-UTC warnings beyond one listed.
func cappedResult() engine.Result {
	at := func(line int, rule string, sev engine.Severity, sec string) engine.Diagnostic {
		return engine.Diagnostic{Rule: rule, Severity: sev, Section: sec, Message: "out of order",
			Location: engine.Location{File: "cl.xml", Line: line, Column: 3}}
	}
	return engine.Result{Location: "cl.xml", Kind: "changelist", Status: engine.StatusInvalid,
		Applied: []string{"RS-CL-ORDER", "RS-TIME-UTC"},
		Diagnostics: []engine.Diagnostic{
			at(5, "RS-CL-ORDER", engine.SeverityError, "12.1"),
			at(6, "RS-CL-ORDER", engine.SeverityError, "12.1"),
			at(6, "RS-TIME-UTC", engine.SeverityWarning, "4.3"),
		},
		Omitted: []engine.Omitted{
			{Rule: "RS-CL-ORDER", Severity: engine.SeverityError, Section: "12.1", Count: 49000},
			{Rule: "RS-TIME-UTC", Severity: engine.SeverityWarning, Section: "4.3", Count: 5},
		}}
}

func reportOf(format string, o reporter.Options, results ...engine.Result) string {
	var b bytes.Buffer
	o.Color = reporter.ColorNever
	rep, err := reporter.New(format, &b, o)
	Expect(err).NotTo(HaveOccurred())
	for _, r := range results {
		Expect(rep.Write(r)).To(Succeed())
	}
	Expect(rep.Flush()).To(Succeed())
	return b.String()
}

var _ = Describe("Findings beyond --max-findings-per-rule", func() {
	It("count in the summary and the exit code like the findings listed", func() {
		var t reporter.Tally
		t.Add(cappedResult())
		s := t.Summary()
		Expect([]int{s.ErrorFindings, s.Warnings, s.Infos}).To(Equal([]int{49002, 6, 0}))
		Expect(reporter.ExitCode(s, false)).To(Equal(reporter.ExitFailures))
		warnOnly := engine.Result{Location: "w.xml", Kind: "changelist", Status: engine.StatusValid,
			Diagnostics: cappedResult().Diagnostics[2:], Omitted: cappedResult().Omitted[1:]}
		var w reporter.Tally
		w.Add(warnOnly)
		Expect(w.Summary().Warnings).To(Equal(6))
		Expect(reporter.ExitCode(w.Summary(), false)).To(Equal(reporter.ExitOK))
		Expect(reporter.ExitCode(w.Summary(), true)).To(Equal(reporter.ExitFailures))
	})

	It("json: an optional omitted member per rule; the summary counts them", func() {
		var rep reporter.JSONReport
		Expect(json.Unmarshal([]byte(reportOf("json", reporter.Options{}, cappedResult())), &rep)).To(Succeed())
		Expect(rep.Documents[0].Findings).To(HaveLen(3))
		Expect(rep.Documents[0].Omitted).To(Equal([]reporter.JSONOmitted{
			{Rule: "RS-CL-ORDER", Severity: "error", Section: "12.1", Count: 49000},
			{Rule: "RS-TIME-UTC", Severity: "warning", Section: "4.3", Count: 5},
		}))
		Expect(rep.Summary.Errors).To(Equal(49002))
		Expect(rep.Summary.Warnings).To(Equal(6))
		// A document without omitted findings has no such member.
		plain := cappedResult()
		plain.Omitted = nil
		Expect(reportOf("json", reporter.Options{}, plain)).NotTo(ContainSubstring(`"omitted"`))
	})

	It("text: the rule's line says how many more, and that they are beyond the cap", func() {
		out := reportOf("text", reporter.Options{}, cappedResult())
		Expect(out).To(ContainSubstring("and 49,000 more RS-CL-ORDER error findings in this document, not listed (beyond --max-findings-per-rule)"))
		Expect(out).To(ContainSubstring("and 5 more RS-TIME-UTC warning findings in this document"))
		Expect(out).To(ContainSubstring("49002 errors, 6 warnings"))
	})

	It("text: a grouped rule's line counts the omitted findings too", func() {
		r := cappedResult()
		for l := 7; l < 12; l++ {
			d := r.Diagnostics[0]
			d.Location.Line = l
			r.Diagnostics = append(r.Diagnostics, d)
		}
		out := reportOf("text", reporter.Options{}, r)
		Expect(out).To(ContainSubstring("and 49,006 more like this (RS-CL-ORDER; 7 listed with -v, --format json or sarif; the rest beyond --max-findings-per-rule)"))
		Expect(out).To(ContainSubstring("49007 errors"))
		Expect(strings.Count(out, "RS-CL-ORDER")).To(Equal(2), out) // the finding and its count
	})

	It("junit: the rule's failure counts them and says so", func() {
		out := reportOf("junit", reporter.Options{}, cappedResult())
		Expect(out).To(ContainSubstring(`message="49002 findings; first: 5:3 error: out of order"`))
		Expect(out).To(ContainSubstring("and 49,000 more RS-CL-ORDER error findings in this document, not listed"))
		Expect(out).To(ContainSubstring("and 5 more RS-TIME-UTC warning findings in this document, not listed"))
	})

	It("sarif: a note per rule among the tool's notifications", func() {
		var log struct {
			Runs []struct {
				Results     []json.RawMessage `json:"results"`
				Invocations []struct {
					Notes []struct {
						Level   string `json:"level"`
						Message struct {
							Text string `json:"text"`
						} `json:"message"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		Expect(json.Unmarshal([]byte(reportOf("sarif", reporter.Options{}, cappedResult())), &log)).To(Succeed())
		run := log.Runs[0]
		Expect(run.Results).To(HaveLen(3))
		notes := run.Invocations[0].Notes
		Expect(notes).To(HaveLen(2))
		Expect(notes[0].Level).To(Equal("note"))
		Expect(notes[0].Message.Text).To(Equal("cl.xml: and 49,000 more RS-CL-ORDER error findings in this document, not listed (beyond --max-findings-per-rule)"))
	})

	It("html: the document's note says so, and the rule's count includes them", func() {
		out := reportOf("html", reporter.Options{}, cappedResult())
		Expect(out).To(ContainSubstring("And 49,000 more RS-CL-ORDER error findings in this document, not listed (beyond --max-findings-per-rule)."))
		Expect(out).To(ContainSubstring("49002 errors"))
		Expect(out).To(ContainSubstring("RS-CL-ORDER (49002)"))
	})
})
