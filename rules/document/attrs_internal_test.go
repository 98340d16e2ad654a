package document

import (
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Table tests for the value grammars of the attribute rules; the fixtures
// under fixtures/RS-*/ cover the rules end to end.

func TestAttrMediaType(t *testing.T) {
	for _, tc := range []struct {
		in  string
		top string // "" when the value must be refused
	}{
		{"text/html", "text"},
		{"text/html; charset=UTF-8", "text"},
		{"text/html;charset=\"utf-8\"", "text"},
		{`application/xml; profile="a;b\"c"`, "application"},
		{"application/vnd.ms-excel", "application"},
		{"image/svg+xml", "image"},
		{"application/x-tiff-diff", "application"},
		{"", ""},
		{"html", ""},
		{"text/", ""},
		{"/html", ""},
		{"text/html;", ""},
		{"text/html; charset", ""},
		{"text/html; charset=", ""},
		{"text/html; charset=\"utf-8", ""},
		{"text /html", ""},
		{"text/html text/plain", ""},
		{"text/html, text/plain", ""},
		{"text/html/x", ""},
	} {
		top, problem := attrMediaType(tc.in)
		if tc.top == "" && problem == "" {
			t.Errorf("attrMediaType(%q) accepted the value", tc.in)
		}
		if tc.top != "" && (problem != "" || top != tc.top) {
			t.Errorf("attrMediaType(%q) = %q, %q; want top %q and no problem", tc.in, top, problem, tc.top)
		}
	}
}

func TestAttrValueGrammars(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(string) string
		ok    []string
		bad   []string
	}{
		{"length", attrLengthProblem, []string{"0", "8876", "9788456778", "007"}, []string{"", "-1", "+1", "1.0", "8,876", " 1", "1e3"}},
		{"encoding", attrEncodingProblem, []string{"gzip", "deflate, gzip", "br,zstd", "x-gzip", "gzip,"}, []string{"", ",", "gzip deflate", "gzip;q=1", "a/b"}},
		{"pri", attrPriProblem, []string{"1", "02", "999999", "0999999"}, []string{"", "0", "000", "1000000", "99999999999999999999", "1.5", "-1", "high"}},
		{"priority", attrPriorityProblem, []string{"0", "0.0", "1", "1.0", ".5", "0.", "+0.3", "-0"}, []string{"", ".", "1.01", "2", "-0.1", "high", "1e-1", "0,5", "50%"}},
		{"rel", attrRelProblem, []string{"up", "UP", "describedby", "archives", "latest-version", "resourcesync", "http://www.openarchives.org/rs/terms/patch", "urn:x:y", "tag:example.com,2013:rel"}, []string{"", "mirror", "patch", " up", "up index", "http:///x", "rels/x"}},
	} {
		for _, v := range tc.ok {
			if msg := tc.check(v); msg != "" {
				t.Errorf("%s %q refused: %s", tc.name, v, msg)
			}
		}
		for _, v := range tc.bad {
			if tc.check(v) == "" {
				t.Errorf("%s %q accepted", tc.name, v)
			}
		}
	}
}

func TestAttrHashSuggestion(t *testing.T) {
	for in, want := range map[string]string{"sha256": "sha-256", "SHA1": "sha-1", "md-5": "md5", "sha_512": "sha-512", "crc32": ""} {
		if got := attrHashSuggestion(in); got != want {
			t.Errorf("attrHashSuggestion(%q) = %q, want %q", in, got, want)
		}
	}
}

// engine.Pos32 keeps positions of the rules' per-entry state in 8 bytes.
func TestPos32(t *testing.T) {
	for _, tc := range []struct{ in, want rs.Pos }{
		{rs.Pos{Line: 1, Column: 1}, rs.Pos{Line: 1, Column: 1}},
		{rs.Pos{Line: 53356, Column: 19}, rs.Pos{Line: 53356, Column: 19}},
		{rs.Pos{Line: 1, Column: 3_000_000_000}, rs.Pos{Line: 1, Column: 2147483647}},
		{rs.Pos{}, rs.Pos{}},
	} {
		if got := engine.NewPos32(tc.in).Pos(); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.in, got, tc.want)
		}
	}
}

// plainHTTPURL, the fast path of RS-LOC-URI, accepts only what the slow
// path (url.Parse) accepts.
func TestPlainHTTPURL(t *testing.T) {
	alphabet := []byte("ab09-._~:/?#[]@!$&'()*+,;=% \"<>\\^`{|}\x7f\xc3\xa9\t")
	rng := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for i := 0; i < 100_000; i++ {
		v := []byte("http://example.org/res/0000001.txt")
		for k := rng.IntN(3); k >= 0; k-- {
			v[7+rng.IntN(len(v)-7)] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(v)
		if !plainHTTPURL(s) {
			continue
		}
		accepted++
		if msg := uriProblem(s); msg != "" {
			t.Fatalf("%q: accepted by the fast path, but it %s", s, msg)
		}
	}
	if accepted < 10_000 {
		t.Fatalf("only %d accepted", accepted)
	}
	for _, s := range []string{"http://example.org/a b", "http://example.org/%zz", "http://exa mple.org/", "http://[::1]/", "http://example.org/é", "http://example.org:8o/"} {
		if plainHTTPURL(s) {
			t.Errorf("%q: accepted", s)
		}
	}
}

// TestHashRegisteredIsTheList holds attrHashRegistered (a switch) to
// attrHashAlgorithms: every name, and every name with a byte changed,
// dropped or added, in lower and upper case.
func TestHashRegisteredIsTheList(t *testing.T) {
	inList := func(s string) bool {
		for _, n := range attrHashAlgorithms {
			if n == s {
				return true
			}
		}
		return false
	}
	var tokens []string
	for _, n := range attrHashAlgorithms {
		tokens = append(tokens, n, n[1:], n[:len(n)-1], n+"0", strings.ToUpper(n))
		for i := range len(n) {
			tokens = append(tokens, n[:i]+"x"+n[i+1:])
		}
	}
	for _, tok := range tokens {
		if got, want := attrHashRegistered(tok), inList(tok); got != want {
			t.Errorf("attrHashRegistered(%q) = %v, the list says %v", tok, got, want)
		}
	}
}
