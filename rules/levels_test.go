package rules_test

import (
	"regexp"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

// A rule's level comes from the keyword of the sentence it quotes: an
// error needs a must-class word (must, shall, mandatory, "is required" as
// in "the use of <until> is required" but not "If multiple documents are
// required"; なければならない in the Archives draft), a warning a
// should-class word (should, recommended, recommends, ought to; すべき,
// 推奨). An info is a hint and needs no keyword, but a hint whose sentence
// says must has to say why it is only a hint. The reviewed exceptions are
// levelReasons (levels.go).
//
// The specifications do not use RFC 2119 capitals: the keywords are read
// in any case. The Archives draft is read in its Japanese original (Quote),
// not in rsconform's English rendering.
var (
	mustWord   = regexp.MustCompile(`(?i)\b(must|shall|mandatory|is required)\b|なければなりません|なければならない|必須`)
	shouldWord = regexp.MustCompile(`(?i)\b(should|recommended|recommends|ought to)\b|すべき|べきで|推奨`)
	mayWord    = regexp.MustCompile(`(?i)\b(may|optional|can)\b|できます|してもよい|任意`)
)

// sentenceKeyword names the strongest class of keyword a sentence
// carries: "must", "should", "may" or "none".
func sentenceKeyword(quote string) string {
	switch {
	case mustWord.MatchString(quote):
		return "must"
	case shouldWord.MatchString(quote):
		return "should"
	case mayWord.MatchString(quote):
		return "may"
	}
	return "none"
}

// levelAgrees reports whether the sentence carries the keyword of the level.
func levelAgrees(l engine.Level, quote string) bool {
	switch l {
	case engine.Must:
		return mustWord.MatchString(quote)
	case engine.Should:
		return shouldWord.MatchString(quote)
	case engine.Info:
		return !mustWord.MatchString(quote) || shouldWord.MatchString(quote) || mayWord.MatchString(quote)
	}
	return false
}

var _ = Describe("The levels of the rules", func() {
	It("reads the keyword classes of sentences", func() {
		for quote, want := range map[string]string{
			"A Capability List must only contain one entry per capability.":            "must",
			"This attribute is mandatory in Source Descriptions and Capability Lists.": "must",
			"If the Change List is closed the use of <until> is required.":             "must",
			"it should be published at the well-known URI":                             "should",
			"The ResourceSync framework recommends the use of the ZIP file format":     "should",
			"This attribute may be used in Change Lists":                               "may",
			"pri – An optional attribute used to express a priority":                   "may",
			"If required, the inter-relationship between the resources is expressed":   "none",
			"Valid values range from 0.0 to 1.0.":                                      "none",
			"「Change Dump Archive」のポインタは、時系列でなければなりません。":                               "must",
			"「Resource List Archive Index」が存在する場合には、<rs:ln>が強く推奨され":                    "should",
			"対応するアーカイブへのリンクを提供することができます":                                               "may",
			"The mustard is yellow; the shoulder hurts; a canal.":                      "none",
		} {
			Expect(sentenceKeyword(quote)).To(Equal(want), quote)
		}
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
				missing = append(missing, r.ID+" ("+r.Level.String()+", sentence says "+sentenceKeyword(r.Quote)+")")
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
