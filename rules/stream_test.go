package rules_test

import (
	"context"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules"
)

// Checking a document while it is read (ValidateBytes: rules of
// ScopeEntries see the entries window by window, then the entries are
// dropped) must say exactly what checking the whole model says
// (ValidateDoc), whatever the window: a rule whose Scope is wrong shows
// here on the fixture that exercises it.
var _ = Describe("Streaming", func() {
	all, err := fixtures.All()
	It("has fixtures", func() { Expect(err).NotTo(HaveOccurred()) })
	for _, window := range []int{1, 3} {
		It("gives the whole model's result on every fixture, in windows of "+strconv.Itoa(window)+" entries", func() {
			defer rules.SetStreamWindow(window)()
			for _, f := range all {
				v := validatorFor(f)
				streamed := v.ValidateBytes(context.Background(), f.Path, f.Data)
				whole, _ := v.ValidateDoc(context.Background(), f.Path, f.Data)
				Expect(describe(streamed)).To(Equal(describe(whole)), "%s, streamed (actual) and whole (expected)", f.Path)
				Expect(streamed).To(Equal(whole), f.Path)
			}
		})
	}
})
