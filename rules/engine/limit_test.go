package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("RS-LIMIT-SIZE", func() {
	It("says the configured limit in the message", func() {
		res := engine.Run("big.xml", engine.Input{TooLarge: &rs.LimitError{What: "document", Limit: 52428800}}, engine.Config{})
		Expect(res.Diagnostics).To(HaveLen(1))
		Expect(res.Diagnostics[0].Rule).To(Equal("RS-LIMIT-SIZE"))
		Expect(res.Diagnostics[0].Message).To(ContainSubstring("larger than the size limit of 52,428,800 bytes (--max-size"))
	})
})
