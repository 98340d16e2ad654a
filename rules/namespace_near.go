package rules

import (
	"fmt"
	"sort"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// The ResourceSync namespace written nearly right: a Source whose
// elements are in a namespace one slash, one letter's case or one scheme
// away from http://www.openarchives.org/rs/terms/ has, to every XML
// processor, no <rs:md> and no <rs:ln> at all. Saying "no <rs:md>" sends
// its developer looking for an element that is there; this says what is
// there and what it must be.

// 4: "rs http://www.openarchives.org/rs/terms/ Namespace for elements
// introduced in this specification"
var NamespaceNearMiss = &Rule{
	ID: "RS-NAMESPACE-NEAR", Section: "4", Level: Must, Scope: ScopeEntries,
	Title: "<rs:md> and <rs:ln> are in the ResourceSync namespace, not one nearly like it",
	Quote: "Throughout this document, the following namespace prefix bindings are used: ... rs http://www.openarchives.org/rs/terms/ Namespace for elements introduced in this specification",
	Doc: "Section 7 adds that <rs:md> and <rs:ln> \"are in the ResourceSync XML Namespace\". Namespace names are compared character by character (Namespaces in XML 1.0, section 2.3), so an element in a namespace that is nearly the ResourceSync one is an unknown element, and a Destination sees a plain Sitemap. " +
		"Seen in the wild: a library writing xmlns:rs=\"http://www.openarchives.org/rs/terms\" (no trailing slash); https:// instead of http://; the 2013 draft's http://www.openarchives.org/rs/ (the D-Lib framework article's examples); a letter's case changed. " +
		"Reported once per namespace, at its first md or ln element, with the namespace to declare; RS-MD-TOP then does not report the missing <rs:md> (it is there, in the wrong namespace).",
	Check: func(p *Pass) error {
		// The first element of each near namespace: among the entries
		// as they stream by, then among the root's children (complete
		// once the entries are read; a top-level <rs:md> comes first).
		first := map[string]rs.Element{}
		note := func(el rs.Element) {
			if _, ok := nearRSNamespace(el.Space); !ok {
				return
			}
			if f, ok := first[el.Space]; !ok || el.Pos.Line < f.Pos.Line || el.Pos.Line == f.Pos.Line && el.Pos.Column < f.Pos.Column {
				first[el.Space] = el
			}
		}
		for e := range p.Entries() {
			for _, el := range e.Unknown {
				note(el)
			}
		}
		for _, el := range p.Doc.Unknown {
			note(el)
		}
		els := make([]rs.Element, 0, len(first))
		for _, el := range first {
			els = append(els, el)
		}
		sort.Slice(els, func(i, j int) bool { return els[i].Space < els[j].Space })
		for _, el := range els {
			ns := el.Space
			why, _ := nearRSNamespace(ns)
			p.Reportf(el.Pos, "<%s> is in namespace %q (%s), so it is not ResourceSync's <rs:%s>: did you mean %q (xmlns:rs=\"%s\")?", el.Local, ns, why, el.Local, rs.RSNS, rs.RSNS)
		}
		return nil
	},
}

// nearRSNamespace reports whether ns is nearly, but not exactly, the
// ResourceSync namespace, and says how it differs.
func nearRSNamespace(ns string) (string, bool) {
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

// nearMissMd reports whether the root has an md element in a namespace
// nearly the ResourceSync one (RS-NAMESPACE-NEAR reports it).
func nearMissMd(d *rs.Document) bool {
	for _, el := range d.Unknown {
		if _, ok := nearRSNamespace(el.Space); ok && el.Local == "md" {
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
			if _, ok := nearRSNamespace(el.Space); ok && (el.Local == "md" || el.Local == "ln") {
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

func init() { register(NamespaceNearMiss) }
