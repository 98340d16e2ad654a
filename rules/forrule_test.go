package rules_test

import (
	"io/fs"
	"reflect"
	"testing"

	"github.com/rsconform/rsconform/fixtures"
)

// TestForRuleReadsWhatAllHolds: fixtures.ForRule reads only a rule's
// folder (explain and the rule pages ask for one rule); it must give
// exactly the fixtures of All whose folder is the rule's, in the same
// order, for every folder, and nothing for names that are no folder.
func TestForRuleReadsWhatAllHolds(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	byDir := map[string][]fixtures.Fixture{}
	for _, f := range all {
		byDir[f.Dir] = append(byDir[f.Dir], f)
	}
	top, err := fs.ReadDir(fixtures.FS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range top {
		if !e.IsDir() {
			continue
		}
		got, err := fixtures.ForRule(e.Name())
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if want := byDir[e.Name()]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ForRule gives %d fixtures, All %d", e.Name(), len(got), len(want))
		}
		n += len(got)
	}
	if n == 0 {
		t.Fatal("no fixture read")
	}
	for _, id := range []string{"", ".", "..", "RS-NONE", "sites", "sites/RS-DISCOVERY-COVERED", "../fixtures", "RS-CL-ORDER/"} {
		got, err := fixtures.ForRule(id)
		if err != nil || len(got) != len(byDir[id]) {
			t.Errorf("ForRule(%q) = %d fixtures, %v; want %d", id, len(got), err, len(byDir[id]))
		}
	}
}
