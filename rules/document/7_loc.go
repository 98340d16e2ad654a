package document

import (
	"net/url"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
)

// 7: "<loc> – A mandatory element that conveys the URI of the resource that
// plays a role in the ResourceSync framework." The Sitemap protocol requires
// the full URL, with protocol.
var LocAbsolute = &engine.Rule{
	ID: "RS-LOC-URI", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "Every <loc> holds an absolute URI",
	Quote: "<loc> – A mandatory element that conveys the URI of the resource that plays a role in the ResourceSync framework.",
	Doc: "The Sitemap protocol, on which section 7 builds, requires a fully qualified URL (with scheme); relative references cannot be dereferenced by a Destination. " +
		"A missing <loc> is reported by RS-XSD (the schema requires it), so that it is reported once.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if !e.HasLoc() {
				continue
			}
			if msg := absoluteURIProblem(e.Loc); msg != "" {
				p.Reportf(e.LocPos, "<loc> %q %s", truncateValue(e.Loc), msg)
			}
		}
		return nil
	},
}

// absoluteURIProblem returns why s is not an absolute URI, or "".
func absoluteURIProblem(s string) string {
	if s == "" {
		return "is empty"
	}
	if plainHTTPURL(s) {
		return ""
	}
	return uriProblem(s)
}

// uriProblem is absoluteURIProblem without its fast path.
func uriProblem(s string) string {
	if strings.ContainsAny(s, " \t\r\n") {
		return "contains white space (escape it as %20)"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "is not a URI: " + strings.TrimPrefix(err.Error(), "parse "+`"`+s+`": `)
	}
	if !u.IsAbs() {
		return "is a relative reference: an absolute URI with scheme and host is required"
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "has no host"
	}
	return ""
}

// plainHTTPURL is the fast path of absoluteURIProblem for the common case:
// http(s)://host/path with only unreserved, reserved and valid
// percent-encoded characters. Anything else goes through url.Parse. One
// pass over the bytes, a table lookup each (strings.IndexAny and
// ContainsAny built their byte sets at every <loc>: a tenth of the rules'
// time on a 50,000-entry list): the host's in a loop of its own, the
// path's 8 at a time.
func plainHTTPURL(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, "http://"):
		rest = s[len("http://"):]
	case strings.HasPrefix(s, "https://"):
		rest = s[len("https://"):]
	default:
		return false
	}
	// The host, up to the first '/', '?' or '#': no '@', '[', ']' or '%',
	// and only digits after a ':' (a port; url.Parse decides the rest).
	i := 0
	for i < len(rest) && hostChar[rest[i]] {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(rest) && rest[i] == ':' {
		for i++; i < len(rest) && '0' <= rest[i] && rest[i] <= '9'; i++ {
		}
	}
	if i < len(rest) && rest[i] != '/' && rest[i] != '?' && rest[i] != '#' {
		return false
	}
	for {
		// Runs of plain characters, most of a path: 8 lookups and'ed,
		// then one at a time.
		for ; i+8 <= len(rest); i += 8 {
			r := rest[i : i+8]
			if uriByte[r[0]]&uriByte[r[1]]&uriByte[r[2]]&uriByte[r[3]]&
				uriByte[r[4]]&uriByte[r[5]]&uriByte[r[6]]&uriByte[r[7]] == 0 {
				break
			}
		}
		for i < len(rest) && uriChar[rest[i]] {
			i++
		}
		if i == len(rest) {
			return true
		}
		if rest[i] != '%' || i+2 >= len(rest) || !isHex[rest[i+1]] || !isHex[rest[i+2]] {
			return false
		}
		i += 3
	}
}

// hostChar are the characters of uriChar the fast path takes in a host
// before its port or its end: not ':', '/', '?' or '#', which end it, nor
// '@' (user information), '[' and ']' (IP literals), which are
// url.Parse's.
var hostChar = func() (t [256]bool) {
	t = uriChar
	for _, c := range ":/?#@[]" {
		t[c] = false
	}
	return
}()

// uriByte is uriChar as 1 and 0, for plainHTTPURL to and 8 lookups.
var uriByte = func() (t [256]uint8) {
	for c, ok := range uriChar {
		if ok {
			t[c] = 1
		}
	}
	return
}()

// uriChar are the unreserved and reserved characters of RFC 3986 (every
// character of a URI but '%'), one lookup a character of every <loc>.
var uriChar = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for _, c := range "-._~:/?#@!$&'()*+,;=" {
		t[c] = true
	}
	return
}()

func truncateValue(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

func init() { engine.Register(LocAbsolute) }

var isHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return
}()
