package rules_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("The catalogue", func() {
	all, err := fixtures.All()
	It("has fixtures", func() { Expect(err).NotTo(HaveOccurred()) })

	It("has well-formed, unique IDs and complete rule values", func() {
		reg := engine.NewRegistry()
		for _, r := range engine.All() {
			Expect(engine.CheckRule(r)).To(Succeed())
			Expect(reg.Add(r)).To(Succeed())
		}
	})

	// A document rule of ScopeDocument would make every document it
	// applies to be checked as a whole, with all its entries in memory
	// (issue 13): the catalogue streams every kind of document.
	It("has only document rules that read the header, or the entries once (Scope)", func() {
		for _, r := range engine.All() {
			if r.IsGraph() || r.Input {
				continue // crawl rules, and rules on the input's facts, which run at the end
			}
			Expect(r.Scope).To(BeElementOf(engine.ScopeHeader, engine.ScopeEntries),
				"%s reads the whole model (ScopeDocument): make it read the header only (ScopeHeader) or the entries once through Pass.Entries (ScopeEntries)", r.ID)
		}
	})

	// Section 7's opening sentence says the Sitemap formats are used: it
	// states no requirement, so no rule's level rests on it.
	It("quotes above each rule the sentence its level rests on, not section 7's opening", func() {
		const opening = "In order to convey information pertaining to resources in the ResourceSync framework"
		for _, r := range engine.All() {
			Expect(r.Quote).NotTo(HavePrefix(opening), "%s quotes section 7's opening sentence", r.ID)
		}
		for id, want := range map[string]string{
			// The Sitemap protocol's definition of the values (its schema:
			// xs:decimal from 0.0 to 1.0): outside them the document is no
			// valid Sitemap, an error.
			"RS-PRIORITY-VALUE": "Valid values range from 0.0 to 1.0.",
			// RFC 9110 section 8.3: SHOULD, a warning.
			"RS-HTTP-CONTENT-TYPE": "SHOULD generate a Content-Type header field",
		} {
			r := engine.Lookup(id)
			Expect(r).NotTo(BeNil(), id)
			Expect(r.Quote).To(ContainSubstring(want), id)
		}
	})

	It("refuses malformed and duplicate rules", func() {
		reg := engine.NewRegistry()
		ok := &engine.Rule{ID: "RS-TEST-OK", Section: "7", Level: engine.Must, Title: "t", Check: func(*engine.Pass) error { return nil }}
		Expect(reg.Add(ok)).To(Succeed())
		Expect(reg.Add(ok)).To(MatchError(ContainSubstring("twice")))
		for _, bad := range []*engine.Rule{
			{ID: "rs-lower", Section: "7", Level: engine.Must, Title: "t", Check: ok.Check},
			{ID: "RS-6.3/1", Section: "7", Level: engine.Must, Title: "t", Check: ok.Check},
			{ID: "RS-NO-TITLE", Section: "7", Level: engine.Must, Check: ok.Check},
			{ID: "RS-NO-SECTION", Level: engine.Must, Title: "t", Check: ok.Check},
			{ID: "RS-NO-CHECK", Section: "7", Level: engine.Must, Title: "t"},
			{ID: "RS-NO-LEVEL", Section: "7", Title: "t", Check: ok.Check},
		} {
			Expect(reg.Add(bad)).NotTo(Succeed(), bad.ID)
		}
	})

	sites, serr := fixtures.Sites()
	It("has fixture sites", func() { Expect(serr).NotTo(HaveOccurred()) })
	for _, r := range engine.All() {
		r := r
		if r.IsGraph() {
			// Cross-document rules are tested on fixture sites, crawled by
			// the crawler's tests (crawler/sites_test.go).
			It("has a failing and a passing fixture site for "+r.ID, func() {
				var pass, fail int
				for _, s := range sites {
					if s.Dir != r.ID {
						continue
					}
					wants := 0
					for _, w := range s.Want {
						if w.Rule == r.ID {
							wants++
						}
					}
					switch {
					case s.Pass():
						pass++
						Expect(wants).To(BeZero(), "%s is a passing site but wants %s", s.Path(), r.ID)
					case s.Fail():
						fail++
						Expect(wants).To(BeNumerically(">", 0), "%s is a failing site but wants no %s", s.Path(), r.ID)
					default:
						Fail(s.Path() + " is neither pass-* nor fail-*")
					}
				}
				Expect(fail).To(BeNumerically(">", 0), "no fixtures/sites/%s/fail-*", r.ID)
				Expect(pass).To(BeNumerically(">", 0), "no fixtures/sites/%s/pass-*", r.ID)
			})
			continue
		}
		It("has a failing and a passing fixture for "+r.ID, func() {
			var pass, fail int
			for _, f := range all {
				if f.Dir != r.ID {
					continue
				}
				wants := 0
				for _, w := range f.Want {
					if w.Rule == r.ID {
						wants++
					}
				}
				switch {
				case f.Pass():
					pass++
					Expect(wants).To(BeZero(), "%s is a passing fixture but wants %s", f.Path, r.ID)
				case f.Fail():
					fail++
					Expect(wants).To(BeNumerically(">", 0), "%s is a failing fixture but wants no %s", f.Path, r.ID)
				default:
					Fail(f.Path + " is neither pass-* nor fail-*")
				}
			}
			Expect(fail).To(BeNumerically(">", 0), "no fixtures/%s/fail-*.xml", r.ID)
			Expect(pass).To(BeNumerically(">", 0), "no fixtures/%s/pass-*.xml", r.ID)
		})
	}

	It("has no fixture folder for an unknown rule, nor document fixtures for a graph rule", func() {
		for _, f := range all {
			if strings.HasPrefix(f.Dir, "RS-") {
				r := engine.Lookup(f.Dir)
				Expect(r).NotTo(BeNil(), "fixtures/%s names no rule", f.Dir)
				Expect(r.IsGraph()).To(BeFalse(), "fixtures/%s holds documents for a cross-document rule: use fixtures/sites/%s", f.Dir, f.Dir)
			}
		}
		for _, s := range sites {
			r := engine.Lookup(s.Dir)
			Expect(r).NotTo(BeNil(), "%s names no rule", s.Path())
			Expect(r.IsGraph()).To(BeTrue(), "fixtures/sites/%s: %s is a document rule (use fixtures/%s/)", s.Dir, s.Dir, s.Dir)
		}
	})
})
