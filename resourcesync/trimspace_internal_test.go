package resourcesync

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// trimSpace, which skips strings.TrimSpace when the ends of a text are not
// white space, trims as strings.TrimSpace does: every byte alone, and
// random texts over ASCII and Unicode white space (U+0085, U+00A0, U+2003,
// U+3000), letters, non-ASCII letters and broken UTF-8.
func TestTrimSpaceIsTrimSpace(t *testing.T) {
	var values []string
	for c := range 256 {
		values = append(values, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	pieces := []string{"a", "Z", "0", "/", " ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "\u3000", "é", "\xc2", "\x85", "\xff"}
	r := rand.New(rand.NewPCG(5, 17))
	for range 20_000 {
		var b strings.Builder
		for k := r.IntN(6); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		values = append(values, b.String())
	}
	for _, v := range values {
		if got, want := trimSpace(v), strings.TrimSpace(v); got != want {
			t.Fatalf("trimSpace(%q) = %q, want %q", v, got, want)
		}
	}
}
