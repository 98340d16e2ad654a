package engine_test

import (
	"testing"

	"github.com/rsconform/rsconform/rules/engine"
)

// AtLeast orders error, warning, info; an unknown severity ranks as info.
func TestSeverityAtLeast(t *testing.T) {
	e, w, i, u := engine.SeverityError, engine.SeverityWarning, engine.SeverityInfo, engine.Severity("fatal")
	for _, c := range []struct {
		s, level engine.Severity
		want     bool
	}{
		{e, e, true}, {e, w, true}, {e, i, true},
		{w, e, false}, {w, w, true}, {w, i, true},
		{i, e, false}, {i, w, false}, {i, i, true},
		{u, w, false}, {u, i, true}, {e, u, true}, {w, u, true},
	} {
		if got := c.s.AtLeast(c.level); got != c.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", c.s, c.level, got, c.want)
		}
	}
}
