package graph

import (
	"context"
	"errors"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Once ctx is done no further cross-document rule starts, and Run gives
// ctx's error and no finding: no verdict on part of the rules.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := false
	rules := []*engine.Rule{
		{ID: "RS-TEST-CANCELS", CheckGraph: Check(func(p *Pass) error {
			p.Reportf("http://example.com/a", rs.Pos{}, "found before the cancellation")
			cancel()
			return nil
		})},
		{ID: "RS-TEST-AFTER", CheckGraph: Check(func(p *Pass) error {
			ran = true
			return nil
		})},
	}
	findings, _, errs, err := runRules(ctx, New(), engine.Config{}.WithDefaults(), rules)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if ran || len(findings) > 0 || len(errs) > 0 {
		t.Errorf("after the cancellation: second rule ran %v, findings %v, errors %v", ran, findings, errs)
	}
	// The catalogue's rules on a cancelled context: none runs.
	findings, applied, _, err := Run(ctx, New(), engine.Config{})
	if !errors.Is(err, context.Canceled) || len(findings) > 0 || len(applied) > 0 {
		t.Errorf("Run on a cancelled context: %v, %v, %v", err, findings, applied)
	}
	// Not cancelled, both run.
	findings, applied, _, err = runRules(context.Background(), New(), engine.Config{}.WithDefaults(), rules)
	if err != nil || !ran || len(findings) != 1 || len(applied) != 2 {
		t.Errorf("not cancelled: %v, second rule ran %v, findings %v, applied %v", err, ran, findings, applied)
	}
}
