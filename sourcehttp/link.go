package sourcehttp

import (
	"net/http"
	"strings"
)

// Link is one link of a Link header (RFC 8288): its target as written
// (relative or not) and its relation types.
type Link struct {
	Target string
	Rels   []string
}

// HasRel reports whether the link has the relation type rel (compared
// case-insensitively, RFC 8288 section 2.1.1).
func (l Link) HasRel(rel string) bool {
	for _, r := range l.Rels {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// ParseLinks reads every Link header of h. Commas and semicolons inside
// <...> or quoted strings do not split; a malformed link is skipped.
func ParseLinks(h http.Header) []Link {
	var out []Link
	for _, v := range h.Values("Link") {
		for _, part := range splitOutside(v, ',') {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "<") {
				continue
			}
			end := strings.IndexByte(part, '>')
			if end < 0 {
				continue
			}
			l := Link{Target: strings.TrimSpace(part[1:end])}
			for _, p := range splitOutside(part[end+1:], ';') {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(k), "rel") {
					continue
				}
				l.Rels = append(l.Rels, strings.Fields(strings.Trim(strings.TrimSpace(val), `"`))...)
			}
			out = append(out, l)
		}
	}
	return out
}

// LinkTargets returns the targets of the links of h with relation type rel.
func LinkTargets(h http.Header, rel string) []string {
	var out []string
	for _, l := range ParseLinks(h) {
		if l.HasRel(rel) && l.Target != "" {
			out = append(out, l.Target)
		}
	}
	return out
}

// splitOutside splits v at sep where sep is outside <...> and quotes.
func splitOutside(v string, sep byte) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"' && depth == 0:
			quoted = !quoted
		case c == '\\' && quoted:
			i++
		case c == '<' && !quoted:
			depth++
		case c == '>' && !quoted && depth > 0:
			depth--
		case c == sep && depth == 0 && !quoted:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}
