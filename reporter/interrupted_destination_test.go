package reporter_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
)

// A scenario stopped before its last step (Ctrl-C, the mock failing) keeps
// the verdicts of the steps played, and every format says it stopped.
var _ = Describe("An interrupted scenario in the test-destination formats", func() {
	const why = "context canceled"
	write := func(format string) string {
		results := destinationResults()
		results[0].Interrupted = why
		var b bytes.Buffer
		Expect(reporter.WriteDestination(&b, format, results, reporter.Options{Version: "test"})).To(Succeed())
		return b.String()
	}

	It("text: a line after the steps played", func() {
		out := write(reporter.FormatText)
		Expect(out).To(ContainSubstring("  interrupted: context canceled: the later steps were not played\n"))
		Expect(out).To(ContainSubstring("every resource is present"), "the verdicts of the steps played stay")
	})

	It("json: the interrupted field", func() {
		var rep struct {
			Scenarios []struct {
				Interrupted string
				Steps       []json.RawMessage
			}
		}
		Expect(json.Unmarshal([]byte(write(reporter.FormatJSON)), &rep)).To(Succeed())
		Expect(rep.Scenarios[0].Interrupted).To(Equal(why))
		Expect(rep.Scenarios[0].Steps).To(HaveLen(3))

		var plain bytes.Buffer
		Expect(reporter.WriteDestination(&plain, reporter.FormatJSON, destinationResults(), reporter.Options{})).To(Succeed())
		Expect(plain.String()).NotTo(ContainSubstring(`"interrupted"`), "absent when the scenario ran to its end")
	})

	It("junit: an error testcase, counted in the suite's errors", func() {
		var suites reporter.JUnitSuites
		Expect(xml.Unmarshal([]byte(write(reporter.FormatJUnit)), &suites)).To(Succeed())
		s := suites.Suites[0]
		Expect(s.Errors).To(Equal(1))
		last := s.Cases[len(s.Cases)-1]
		Expect(last.Name).To(Equal("interrupted"))
		Expect(last.Errors).To(HaveLen(1))
		Expect(last.Errors[0].Message).To(Equal("context canceled: the later steps were not played"))
		Expect(s.Tests).To(Equal(len(s.Cases)))
		Expect(suites.Errors).To(Equal(1), "the total counts it too")
	})

	It("sarif: an error notification of the invocation", func() {
		var log struct {
			Runs []struct {
				Invocations []struct {
					ToolExecutionNotifications []struct {
						Level   string
						Message struct{ Text string }
					}
				}
			}
		}
		Expect(json.Unmarshal([]byte(write(reporter.FormatSARIF)), &log)).To(Succeed())
		notes := log.Runs[0].Invocations[0].ToolExecutionNotifications
		Expect(notes).To(HaveLen(1))
		Expect(notes[0].Level).To(Equal("error"))
		Expect(notes[0].Message.Text).To(Equal("scenario create-update-delete interrupted: context canceled: the later steps were not played"))
	})

	It("html: an alert in the scenario's section", func() {
		Expect(write(reporter.FormatHTML)).To(ContainSubstring(`<p class="refusal" role="alert">Interrupted: context canceled: the later steps were not played.</p>`))
	})
})
