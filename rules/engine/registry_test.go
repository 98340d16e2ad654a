package engine_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rsconform/rsconform/rules/engine"
)

// Rules lists a registry's rules by ID whatever order they were added in,
// and a caller changing that list changes nothing in the registry.
func TestRegistryRulesByID(t *testing.T) {
	reg := engine.NewRegistry()
	rule := func(id string) *engine.Rule {
		return &engine.Rule{ID: id, Title: "t", Section: "1", Level: engine.Must, Check: func(*engine.Pass) error { return nil }}
	}
	if err := reg.Add(rule("RS-B-X"), rule("RS-C-X")); err != nil {
		t.Fatal(err)
	}
	if err := reg.Add(rule("RS-A-X"), rule("RS-B-A")); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		var out []string
		for _, r := range reg.Rules() {
			out = append(out, r.ID)
		}
		return out
	}
	want := []string{"RS-A-X", "RS-B-A", "RS-B-X", "RS-C-X"}
	if got := ids(); !slices.Equal(got, want) {
		t.Fatalf("Rules: %v, want %v", got, want)
	}
	reg.Rules()[0] = rule("RS-Z-Z")
	if got := ids(); !slices.Equal(got, want) {
		t.Fatalf("Rules after a caller changed its list: %v, want %v", got, want)
	}
	if !slices.IsSortedFunc(engine.All(), func(a, b *engine.Rule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatal("All is not ordered by ID")
	}
}

// WellFormedID is the regular expression ^PREFIX-[A-Z0-9]+(-[A-Z0-9]+)*$.
func TestWellFormedID(t *testing.T) {
	re := map[string]*regexp.Regexp{
		"RS":   regexp.MustCompile(`^RS-[A-Z0-9]+(-[A-Z0-9]+)*$`),
		"DEST": regexp.MustCompile(`^DEST-[A-Z0-9]+(-[A-Z0-9]+)*$`),
	}
	for _, id := range []string{
		"RS-CL-ORDER", "RS-A", "RS-0", "RS-A1-B2-C3", "DEST-PRESENT", "DEST-RATE-LIMIT",
		"", "RS", "RS-", "RS--A", "RS-A-", "RS-A--B", "-RS-A", "RS-a", "rs-A", "RS-6.3/1",
		"RS-A_B", "RS-A B", "XRS-A", "RS-ÄB", "RS-A\n", "DEST", "DEST-", "DEST-x", "RS-DEST-A",
	} {
		for prefix, want := range re {
			if got := engine.WellFormedID(id, prefix); got != want.MatchString(id) {
				t.Errorf("WellFormedID(%q, %q) = %v, want %v", id, prefix, got, !got)
			}
		}
	}
}
