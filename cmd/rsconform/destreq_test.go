package main

import (
	"bytes"
	"encoding/json"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/reporter"
)

var _ = Describe("Destination requirements on the command line", func() {
	It("explain knows every requirement: its sentence, level, why, what passes and what fails", func() {
		for _, r := range harness.Requirements {
			code, out, errs := cli("explain", r.ID)
			Expect(code).To(Equal(0), errs)
			Expect(out).To(HavePrefix(r.ID + ": " + r.Title))
			Expect(out).To(ContainSubstring("Level:    " + string(r.Level)))
			Expect(out).To(ContainSubstring("Passes:"))
			Expect(out).To(ContainSubstring("Fails:"))
			Expect(out).To(ContainSubstring("docs/destination.md#"))
			if r.Level != harness.Policy {
				Expect(out).To(ContainSubstring("The sentence its level rests on:"), r.ID)
			}
		}
		_, out, _ := cli("explain", "dest-fixity")
		Expect(out).To(ContainSubstring("coverage and accuracy"))
		code, _, errs := cli("explain", "DEST-FIXTY")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean DEST-FIXITY?)"))
	})

	It("suggests the scenario or suite meant, and takes --scenario and --scenarios alike", func() {
		code, _, errs := cli("test-destination", "--scenario", "incremental-changlist", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean incremental-changelist?)"))
		code, _, errs = cli("test-destination", "--scenarios", "incremental-changlist", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean incremental-changelist?)"))
		code, _, errs = cli("suite", "destinaton", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean destination?)"))
		code, _, errs = cli("suite", "destination", "--scenario", "baseline-resourcelst", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean baseline-resourcelist?)"))
	})
})

var _ = Describe("The README's test-destination JSON report", func() {
	It("is the report's shape: every member it shows is one the report has", func() {
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		dec := json.NewDecoder(bytes.NewReader([]byte(readmeBlock(string(readme), "### The test-destination JSON report", "json"))))
		dec.DisallowUnknownFields()
		var rep reporter.DestinationReport
		Expect(dec.Decode(&rep)).To(Succeed())
		Expect(rep.Scenarios).To(HaveLen(1))
		Expect(rep.Scenarios[0].Steps[0].Verdicts[0].ID).To(Equal(harness.AllCurrent.ID))
		Expect(rep.Summary.Failing).To(Equal(1))
	})
})

var _ = Describe("test-destination progress", func() {
	It("shows scenario and step on standard error when asked (auto: a terminal), never in the report", func() {
		code, out, errs := cli("test-destination", "--scenario", "baseline-resourcelist", "--progress", "always", "--", "true")
		Expect(code).To(Equal(1))
		Expect(errs).To(ContainSubstring("[1/1] baseline-resourcelist step 0/1 (initial state): running the Destination\n"))
		Expect(errs).To(MatchRegexp(`\[1/1\] baseline-resourcelist step 0/1 \(initial state\): exit 0 in [0-9.]+s, 0 requests, 1 failing\n`))
		Expect(out).NotTo(ContainSubstring("running the Destination"))
		_, _, errs = cli("test-destination", "--scenario", "baseline-resourcelist", "--", "true")
		Expect(errs).NotTo(ContainSubstring("running the Destination"), "standard error is no terminal here")
	})
})
