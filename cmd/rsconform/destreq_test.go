package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
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
