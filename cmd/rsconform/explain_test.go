package main

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("explain RULE", func() {
	// A level its sentence's keyword does not carry has a reviewed reason
	// (rules/levels.go); explain prints it, and nothing where the keyword
	// speaks for itself.
	It("says why a rule's level stands where its sentence has no keyword for it", func() {
		for _, id := range rules.LevelReasonIDs() {
			r := engine.Lookup(id)
			var b strings.Builder
			explainRule(&b, r)
			Expect(b.String()).To(ContainSubstring("\nWhy "+r.Level.String()+":\n"), id)
			Expect(b.String()).To(ContainSubstring(rules.LevelReason(id)[:40]), id)
		}
		code, out, errs := cli("explain", "RS-PRIORITY-VALUE")
		Expect(code).To(Equal(0), errs)
		Expect(out).To(ContainSubstring("\nWhy MUST:\n  Sitemap protocol: its schema defines <priority>"))
		code, out, errs = cli("explain", "RS-CL-ORDER")
		Expect(code).To(Equal(0), errs)
		Expect(out).To(ContainSubstring("All entries in a Change List must be provided"))
		Expect(out).NotTo(ContainSubstring("\nWhy "))
	})
})
