package engine

import (
	"context"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Once ctx is done no further rule starts, and a rule reading the whole
// model's entries stops within ctxEvery of them.
func TestRunChecksStopsWhenCancelled(t *testing.T) {
	doc := &rs.Document{}
	// Under parallelEntries: the rules run in turn, on one goroutine.
	for range parallelEntries - 1 {
		doc.Entries = append(doc.Entries, &rs.Entry{Loc: "http://example.com/a"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen, ran := 0, false
	rules := []*Rule{
		{ID: "RS-TEST-CANCELS", Scope: ScopeDocument, Check: func(p *Pass) error {
			for range p.Entries() {
				if seen++; seen == 10 {
					cancel()
				}
			}
			return nil
		}},
		{ID: "RS-TEST-AFTER", Scope: ScopeDocument, Check: func(p *Pass) error {
			ran = true
			p.Reportf(rs.Pos{}, "ran after the cancellation")
			return nil
		}},
	}
	cfg := Config{}.WithDefaults()
	found := newFindings("x.xml", rs.KindUnknown, cfg)
	errs := runChecks(ctx, "x.xml", &Input{Doc: doc}, cfg, rules, found)
	diags := found.kept
	if seen > ctxEvery {
		t.Errorf("the rule read %d entries after the cancellation at the 10th, want at most %d", seen, ctxEvery)
	}
	if ran || len(diags) > 0 || len(errs) > 0 {
		t.Errorf("a rule ran after the cancellation: %v %v", diags, errs)
	}
	// Not cancelled, both run to their end.
	seen, ran = 0, false
	rules[0].Check = func(p *Pass) error {
		for range p.Entries() {
			seen++
		}
		return nil
	}
	runChecks(context.Background(), "x.xml", &Input{Doc: doc}, cfg, rules, newFindings("x.xml", rs.KindUnknown, cfg))
	if seen != len(doc.Entries) || !ran {
		t.Errorf("not cancelled: read %d of %d entries, second rule ran %v", seen, len(doc.Entries), ran)
	}
}
