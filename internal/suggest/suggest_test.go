package suggest

import "testing"

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
	if got := DidYouMean("valdate", names); got != " (did you mean validate?)" {
		t.Errorf("DidYouMean = %q", got)
	}
}
