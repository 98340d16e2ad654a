// Package suite holds rsconform's Ginkgo conformance suites: suite/source
// for Sources and suite/destination for Destinations. They present what the
// rule engine, the crawler and the mock Source check as named requirements
// with typed labels (Section:12.1, Level:MUST, Kind:changelist,
// Scenario:...), runnable with `go test ./suite/... -args ...` or
// `rsconform suite source|destination`, and filterable with
// --label-filter.
package suite

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/rsconform/rsconform/harness"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

// Label kinds and their prefixes.
const (
	SectionLabel  = "Section:"
	LevelLabel    = "Level:"
	KindLabel     = "Kind:"
	ScenarioLabel = "Scenario:"
	ScopeLabel    = "Scope:"
)

// RuleLabels are the typed labels of a rule's spec: its section, level,
// the kinds it applies to (Kind:any when all) and its scope (Scope:document
// or Scope:crawl).
func RuleLabels(r *engine.Rule) ginkgo.Labels {
	ls := ginkgo.Labels{SectionLabel + r.Section, LevelLabel + r.Level.String()}
	if len(r.Applies) == 0 || len(r.Applies) >= len(rs.Kinds)/2 {
		ls = append(ls, KindLabel+"any")
	} else {
		for _, k := range r.Applies {
			ls = append(ls, KindLabel+string(k))
		}
	}
	if r.IsGraph() {
		ls = append(ls, ScopeLabel+"crawl")
	} else {
		ls = append(ls, ScopeLabel+"document")
	}
	return ls
}

// CheckLabels reports a label that names no known section, level, kind,
// scope or scenario; scenarios lists the known scenario names.
func CheckLabels(labels []string, scenarios []string) error {
	for _, l := range labels {
		switch {
		case strings.HasPrefix(l, SectionLabel):
			if rules.Section(strings.TrimPrefix(l, SectionLabel)) == nil {
				return fmt.Errorf("label %q names no section of rules.Sections", l)
			}
		case strings.HasPrefix(l, LevelLabel):
			switch strings.TrimPrefix(l, LevelLabel) {
			case engine.Must.String(), engine.Should.String(), engine.Info.String(), string(harness.Policy):
			default:
				return fmt.Errorf("label %q names no level", l)
			}
		case strings.HasPrefix(l, KindLabel):
			k := strings.TrimPrefix(l, KindLabel)
			if k != "any" && !knownKind(k) {
				return fmt.Errorf("label %q names no document kind", l)
			}
		case strings.HasPrefix(l, ScopeLabel):
			if s := strings.TrimPrefix(l, ScopeLabel); s != "document" && s != "crawl" && s != "step" {
				return fmt.Errorf("label %q names no scope", l)
			}
		case strings.HasPrefix(l, ScenarioLabel):
			name := strings.TrimPrefix(l, ScenarioLabel)
			found := false
			for _, s := range scenarios {
				found = found || s == name
			}
			if !found {
				return fmt.Errorf("label %q names no scenario", l)
			}
		default:
			return fmt.Errorf("label %q is not a typed label (Section:, Level:, Kind:, Scope:, Scenario:)", l)
		}
	}
	return nil
}

func knownKind(k string) bool {
	for _, x := range rs.Kinds {
		if string(x) == k {
			return true
		}
	}
	return false
}
