package crawldiscovery

import (
	"slices"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		raw       string
		want, not []string
	}{
		{"http://Example.COM:80", []string{"http://Example.COM:80", "http://example.com", "http://example.com/"}, nil},
		{"https://example.com:443/", []string{"https://example.com/", "https://example.com"}, nil},
		{"http://example.com:8080/", []string{"http://example.com:8080", "http://example.com:8080/"}, []string{"http://example.com/"}},
		{"http://example.com/a/", []string{"http://example.com/a/"}, []string{"http://example.com/a", "http://example.com/"}},
		{"%zz", []string{"%zz"}, nil},
	} {
		got := spellings(tc.raw)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("spellings(%q) = %q, want it to hold %q", tc.raw, got, w)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(got, n) {
				t.Errorf("spellings(%q) = %q, want it not to hold %q", tc.raw, got, n)
			}
		}
	}
}
