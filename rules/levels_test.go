package rules_test

import (
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/speckeyword"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

// A rule's level comes from the keyword of the sentence it quotes
// (internal/speckeyword reads them): an error needs a must-class word, a
// warning a should-class word. An info is a hint and needs no keyword, but
// a hint whose sentence says must has to say why it is only a hint. The
// reviewed exceptions are levelReasons (levels.go). The Archives draft is
// read in its Japanese original (Quote), not in rsconform's English
// rendering.

// levelAgrees reports whether the sentence carries the keyword of the level.
func levelAgrees(l engine.Level, quote string) bool {
	switch l {
	case engine.Must:
		return speckeyword.Carries(quote, speckeyword.Must)
	case engine.Should:
		return speckeyword.Carries(quote, speckeyword.Should)
	case engine.Info:
		return !speckeyword.Carries(quote, speckeyword.Must) || speckeyword.Carries(quote, speckeyword.Should) ||
			speckeyword.Carries(quote, speckeyword.May)
	}
	return false
}

var _ = Describe("The levels of the rules", func() {
	It("agrees a level with the keyword class of its sentence", func() {
		Expect(levelAgrees(engine.Must, "Valid values range from 0.0 to 1.0.")).To(BeFalse())
		Expect(levelAgrees(engine.Should, "A Source must publish a Source Description")).To(BeFalse())
		Expect(levelAgrees(engine.Should, "A Source must publish ..., and it should be published at")).To(BeTrue())
		Expect(levelAgrees(engine.Info, "the element must also have a path attribute")).To(BeFalse())
		Expect(levelAgrees(engine.Info, "Valid values range from 0.0 to 1.0.")).To(BeTrue())
	})

	It("gives each rule a level its sentence's keyword carries, or a reviewed reason", func() {
		var missing, stale []string
		for _, r := range engine.All() {
			reason := rules.LevelReason(r.ID)
			listed := reason != ""
			agrees := levelAgrees(r.Level, r.Quote)
			switch {
			case !agrees && !listed:
				missing = append(missing, r.ID+" ("+r.Level.String()+", sentence says "+speckeyword.Strongest(r.Quote).String()+")")
			case agrees && listed:
				stale = append(stale, r.ID+" ("+r.Level.String()+" agrees with its sentence: remove its reason)")
			}
		}
		for _, id := range rules.LevelReasonIDs() {
			reason := rules.LevelReason(id)
			Expect(strings.TrimSpace(reason)).NotTo(BeEmpty(), "%s: empty reason", id)
			Expect(reason).NotTo(ContainSubstring("\n"), "%s: the reason is one line", id)
			if engine.Lookup(id) == nil {
				stale = append(stale, id+" (no such rule)")
			}
		}
		sort.Strings(missing)
		sort.Strings(stale)
		Expect(missing).To(BeEmpty(), "these rules' levels are not carried by their sentences' keywords: quote the sentence that carries the level, lower the level, or write the reason in levelReasons (rules/levels.go)")
		Expect(stale).To(BeEmpty(), "levelReasons (rules/levels.go) lists rules that need no reason")
	})
})
