package engine

import (
	"fmt"
	"path"
	"strings"

	"github.com/rsconform/rsconform/internal/suggest"
)

// Selector chooses rules by ID globs, as --rules takes them:
// "RS-CL-*,-RS-CL-ORDER" selects every RS-CL rule but RS-CL-ORDER. Without
// a positive pattern every rule is selected before removals. The zero
// Selector selects every rule.
type Selector struct {
	include []string
	exclude []string
}

// ParseSelector parses a comma-separated list of ID globs, each optionally
// preceded by '-' to remove. A pattern that matches no rule of the
// catalogue is an error, so that a typo does not silently select nothing.
func ParseSelector(spec string) (Selector, error) {
	ids := make([]string, 0, len(All()))
	for _, r := range All() {
		ids = append(ids, r.ID)
	}
	return ParseSelectorOf(spec, ids, "rule (see 'rsconform rules')")
}

// ParseSelectorOf parses ID globs as ParseSelector does, against another
// catalogue of IDs (the Destination requirements); what names the kind of
// thing selected in the error for a pattern that matches none of ids.
func ParseSelectorOf(spec string, ids []string, what string) (Selector, error) {
	var s Selector
	for _, raw := range strings.Split(spec, ",") {
		p := strings.ToUpper(strings.TrimSpace(raw))
		if p == "" {
			continue
		}
		neg := strings.HasPrefix(p, "-")
		p = strings.TrimPrefix(p, "-")
		if _, err := path.Match(p, ""); err != nil {
			return Selector{}, fmt.Errorf("--rules: bad pattern %q: %v", raw, err)
		}
		matched := false
		for _, id := range ids {
			if ok, _ := path.Match(p, id); ok {
				matched = true
				break
			}
		}
		if !matched {
			return Selector{}, fmt.Errorf("--rules: %q matches no %s%s", strings.TrimSpace(raw), what, suggest.DidYouMean(p, ids))
		}
		if neg {
			s.exclude = append(s.exclude, p)
		} else {
			s.include = append(s.include, p)
		}
	}
	return s, nil
}

// Selects reports whether the rule with this ID is selected.
func (s Selector) Selects(id string) bool {
	in := len(s.include) == 0
	for _, p := range s.include {
		if ok, _ := path.Match(p, id); ok {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	for _, p := range s.exclude {
		if ok, _ := path.Match(p, id); ok {
			return false
		}
	}
	return true
}
