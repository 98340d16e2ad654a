package main

import (
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
)

var _ = Describe("crawl progress", func() {
	It("says the phase and fits one line of the terminal", func() {
		s := crawler.Stats{Documents: 27, Entries: 1000000, Findings: 3}
		Expect(progressLine(s, 200)).To(Equal("reading documents: 27 documents, 1000000 entries, 0 resources, 0 packages, 3 findings"))
		s.Resources = 10
		Expect(progressLine(s, 200)).To(HavePrefix("sampling resources: "))
		s.Refetched = 1
		Expect(progressLine(s, 200)).To(HavePrefix("re-reading open Change Lists: "))
		for _, width := range []int{60, 40, 20} {
			line := progressLine(s, width)
			Expect(utf8.RuneCountInString(line)+progressBarRoom).To(BeNumerically("<=", max(width, 10+progressBarRoom)), "width %d: %q", width, line)
		}
		Expect(progressLine(s, 60)).To(HaveSuffix("…"))
		Expect(progressLine(s, 100)).To(And(ContainSubstring("27 documents, 1000000 entries, "), HaveSuffix("…")), "the entries read come before what is cut")
	})
})
