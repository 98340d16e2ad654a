package scenario

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Resource names that test how a Destination maps URIs to files (issue
// 24): a scenario path may hold percent-escapes (/res/a%2Fb.txt, another
// resource than /res/a/b.txt), a query (/res/q.txt?page=2), characters
// beyond ASCII (/res/café.txt: an IRI, RFC 3987) and letters that differ
// only in case. Documents write a path as the scenario gives it; the
// Source finds resources, and its log and expected state name them, by
// the path's URI key: RFC 3986 6.2.2 normalisation (escapes of
// unreserved characters decoded, hex digits in upper case) after mapping
// the IRI to a URI (RFC 3987 3.1: each byte beyond ASCII of the UTF-8
// encoding escaped). Scenario paths are written normalised but for
// characters beyond ASCII, so a request as any HTTP client sends it
// finds its resource, and two distinct paths never share a key.

// URIKey is the URI key of a path (and query), as the Source looks it up
// and its log and expected state name resources. Plain ASCII paths
// without escapes are their own key.
func URIKey(p string) string {
	plain := true
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '%' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= utf8.RuneSelf:
			fmt.Fprintf(&b, "%%%02X", c)
		case c == '%' && i+2 < len(p) && ishex(p[i+1]) && ishex(p[i+2]):
			d := unhex(p[i+1])<<4 | unhex(p[i+2])
			if unreserved(d) {
				b.WriteByte(d)
			} else {
				fmt.Fprintf(&b, "%%%02X", d)
			}
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func ishex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// unreserved is RFC 3986's unreserved set.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// checkNameChars says what is wrong with the characters of a scenario
// resource path (the part before any query), or "" (checkChars).
func checkNameChars(p string) string { return checkChars("path", p, "/._-~") }

// checkQuery says what is wrong with the query of a scenario resource
// path, or "": name=value pairs joined by &, written as a path is
// (checkChars) but for their punctuation.
func checkQuery(q string) string {
	if q == "" {
		return "an empty query: leave out the ?"
	}
	return checkChars("query", q, "._-~=&")
}

// checkChars is the one rule for the characters of a scenario path and of
// its query (what, s): letters (any script), digits, the ASCII punctuation
// punct, and escapes of characters that need one (upper case hex; an
// escape of an unreserved character is written plain), so that no two
// paths share a URI key. A path and a query differ only in punct: / parts
// a path's segments, = and & a query's pairs.
func checkChars(what, s, punct string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2]) {
				return fmt.Sprintf("%s %q has a %% that does not start an escape (%%XX)", what, s)
			}
			if strings.ToUpper(s[i+1:i+3]) != s[i+1:i+3] {
				return fmt.Sprintf("%s %q: write the escape %s in upper case", what, s, s[i:i+3])
			}
			if d := unhex(s[i+1])<<4 | unhex(s[i+2]); unreserved(d) {
				return fmt.Sprintf("%s %q: %s escapes %q, which is written plain", what, s, s[i:i+3], d)
			}
			i += 3
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return fmt.Sprintf("%s %q has %q: beyond ASCII, use letters and digits", what, s, r)
			}
			i += n
			continue
		}
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(punct, c) >= 0
		if !ok {
			return fmt.Sprintf("%s %q has %q: use letters, digits, %s and %%XX escapes", what, s, c, strings.Join(strings.Split(punct, ""), " "))
		}
		i++
	}
	return ""
}

// reservedPrefixes are paths the Source serves itself.
var reservedPrefixes = []string{"/_rsconform/", "/.well-known/", "/dataset1/", "/info/", "/moved/"}

// checkResourcePath says what is wrong with a resource path, or "".
func checkResourcePath(p string) string {
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return fmt.Sprintf("path %q must start with / and name a resource", p)
	}
	for _, r := range reservedPrefixes {
		if strings.HasPrefix(p, r) {
			return fmt.Sprintf("path %q is under %s, which the Source reserves", p, r)
		}
	}
	if p == "/robots.txt" || p == "/_rsconform" || strings.HasSuffix(p, "/") || strings.Contains(p, "//") || strings.Contains(p, "/./") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") || strings.HasSuffix(p, "/.") {
		return fmt.Sprintf("path %q is not a plain resource path", p)
	}
	name, query, hasQuery := strings.Cut(p, "?")
	if msg := checkNameChars(name); msg != "" {
		return msg
	}
	if hasQuery {
		if msg := checkQuery(query); msg != "" {
			return fmt.Sprintf("path %q: %s", p, msg)
		}
	}
	return ""
}
