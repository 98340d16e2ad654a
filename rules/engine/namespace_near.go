package engine

import (
	"fmt"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// The ResourceSync namespace written nearly right (RS-NAMESPACE-NEAR):
// NotResourceSync judges such a document instead of skipping it as a
// plain Sitemap.

// nearRSNamespace reports whether ns is nearly, but not exactly, the
// ResourceSync namespace, and says how it differs.
func NearRSNamespace(ns string) (string, bool) {
	if ns == rs.RSNS || ns == "" {
		return "", false
	}
	t := strings.TrimSpace(ns)
	l := strings.ToLower(t)
	scheme := ""
	for _, s := range []string{"http://", "https://"} {
		if strings.HasPrefix(l, s) {
			scheme, l = s, l[len(s):]
		}
	}
	l = strings.TrimPrefix(l, "www.")
	rest := strings.TrimRight(l, "/")
	switch {
	case rest == "openarchives.org/rs" && l != rest:
		return "the 2013 draft's namespace; ResourceSync 1.0 and 1.1 use " + rs.RSNS, true
	case rest == "openarchives.org/rs":
		return "the 2013 draft's namespace without its slash; ResourceSync 1.0 and 1.1 use " + rs.RSNS, true
	case rest != "openarchives.org/rs/terms":
		return "", false
	}
	var diffs []string
	if t != ns {
		diffs = append(diffs, "spaces around it")
	}
	switch scheme {
	case "https://":
		diffs = append(diffs, "https:// instead of http://")
	case "":
		diffs = append(diffs, "no http://")
	}
	if !strings.Contains(strings.ToLower(t), "www.") {
		diffs = append(diffs, "no www.")
	}
	switch n := len(l) - len(rest); {
	case n == 0:
		diffs = append(diffs, "no trailing slash")
	case n > 1:
		diffs = append(diffs, fmt.Sprintf("%d trailing slashes", n))
	}
	if strings.ToLower(t) != t {
		diffs = append(diffs, "capital letters, where namespace names are case-sensitive")
	}
	return strings.Join(diffs, ", "), true
}

// NearMissMd reports whether the root has an md element in a namespace
// nearly the ResourceSync one (RS-NAMESPACE-NEAR reports it).
func NearMissMd(d *rs.Document) bool {
	for _, el := range d.Unknown {
		if _, ok := NearRSNamespace(el.Space); ok && el.Local == "md" {
			return true
		}
	}
	return false
}

// nearMissAny reports whether any md or ln element of d, at the top or
// in an entry, is in a namespace nearly the ResourceSync one.
func nearMissAny(d *rs.Document) bool {
	near := func(els []rs.Element) bool {
		for _, el := range els {
			if _, ok := NearRSNamespace(el.Space); ok && (el.Local == "md" || el.Local == "ln") {
				return true
			}
		}
		return false
	}
	if near(d.Unknown) {
		return true
	}
	for _, e := range d.Entries {
		if near(e.Unknown) {
			return true
		}
	}
	return false
}
