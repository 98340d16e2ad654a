package rules_test

import (
	"bytes"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("docs/rules.md", func() {
	It("is up to date with the catalogue (run 'go generate ./rules' after changing a rule)", func() {
		var b bytes.Buffer
		Expect(rules.WriteMarkdown(&b)).To(Succeed())
		onDisk, err := os.ReadFile("../docs/rules.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(onDisk)).To(Equal(b.String()), "docs/rules.md is stale: run 'go generate ./rules'")
	})

	It("cites only sections of the section map, and every section has rules or a note", func() {
		for _, r := range engine.All() {
			Expect(rules.Section(r.Section)).NotTo(BeNil(), "%s cites section %q, which is not in rules.Sections", r.ID, r.Section)
		}
	})
})
