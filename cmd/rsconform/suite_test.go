package main

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("rsconform suite, before any work", func() {
	DescribeTable("refuses a label filter that does not parse or selects nothing (exit 2, nothing crawled)",
		func(which, filter, want string) {
			args := []string{"suite", which, "--label-filter", filter}
			if which == "source" {
				args = append(args, "http://127.0.0.1:1/")
			} else {
				args = append(args, "--", "true")
			}
			code, _, errs := cli(args...)
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring(want))
			Expect(errs).NotTo(ContainSubstring("crawling"))
			Expect(errs).NotTo(ContainSubstring("\x1b["))
		},
		Entry("a typo in a label", "source", "Levl:MUST", `selects no spec (Levl:MUST: did you mean Level:MUST?)`),
		Entry("a value no spec has", "source", "Section:99", "selects no spec"),
		Entry("a syntax error", "source", "Level:MUST &&", "does not parse: Syntax Error Parsing Label Filter"),
		Entry("an unknown scenario", "destination", "Scenario:nope", "selects no spec"),
	)

	It("prints its help once, on stdout", func() {
		for _, args := range [][]string{{"suite", "source", "--help"}, {"suite", "--help"}, {"suite", "destination", "-h"}} {
			code, out, errs := cli(args...)
			Expect(code).To(Equal(0))
			Expect(strings.Count(out, "Usage:")).To(Equal(1), "%v", args)
			Expect(errs).To(BeEmpty())
		}
	})

	It("uses colour only on a terminal without NO_COLOR, and takes --color and --no-color", func() {
		on, err := suiteColor("auto", false)
		Expect(err).NotTo(HaveOccurred())
		Expect(on).To(BeFalse(), "standard output is not a terminal under go test")
		DeferCleanup(os.Setenv, "NO_COLOR", os.Getenv("NO_COLOR"))
		Expect(os.Setenv("NO_COLOR", "1")).To(Succeed())
		on, _ = suiteColor("auto", false)
		Expect(on).To(BeFalse())
		on, _ = suiteColor("always", false)
		Expect(on).To(BeTrue())
		on, _ = suiteColor("always", true)
		Expect(on).To(BeFalse(), "--no-color wins")
		_, err = suiteColor("sometimes", false)
		Expect(err).To(HaveOccurred())
	})
})
