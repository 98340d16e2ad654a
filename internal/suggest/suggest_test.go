package suggest

import (
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestClosest(t *testing.T) {
	names := []string{"validate", "crawl", "version", "strict", "RS-CL-ORDER", "RS-CLI-ORDER"}
	for _, c := range []struct{ in, want string }{
		{"valdate", "validate"},
		{"strcit", "strict"},
		{"rs-cl-ordr", "RS-CL-ORDER"},
		{"RS-CLI-ORDR", "RS-CLI-ORDER"},
		{"crwal", "crawl"},
		{"zzzzzz", ""},
		{"x", ""},
	} {
		if got := Closest(c.in, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ got, want string }{
		{DidYouMean("valdate", names), " (did you mean validate?)"},
		{DidYouMean("zzzzzz", names), ""},
		{DidYouMeanQuoted("valdate", names), ` (did you mean "validate"?)`},
		{DidYouMeanQuoted("zzzzzz", names), ""},
		{Hint("--strict"), " (did you mean --strict?)"},
		{Hint(""), ""},
		{Phrase("Level:MUST"), "did you mean Level:MUST?"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
