package document

import (
	"sort"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// The ResourceSync namespace written nearly right: a Source whose
// elements are in a namespace one slash, one letter's case or one scheme
// away from http://www.openarchives.org/rs/terms/ has, to every XML
// processor, no <rs:md> and no <rs:ln> at all. Saying "no <rs:md>" sends
// its developer looking for an element that is there; this says what is
// there and what it must be.

// 4: "rs http://www.openarchives.org/rs/terms/ Namespace for elements
// introduced in this specification"
var NamespaceNearMiss = &engine.Rule{
	ID: "RS-NAMESPACE-NEAR", Section: "4", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "<rs:md> and <rs:ln> are in the ResourceSync namespace, not one nearly like it",
	Quote: "Throughout this document, the following namespace prefix bindings are used: ... rs http://www.openarchives.org/rs/terms/ Namespace for elements introduced in this specification",
	Doc: "Section 7 adds that <rs:md> and <rs:ln> \"are in the ResourceSync XML Namespace\". Namespace names are compared character by character (Namespaces in XML 1.0, section 2.3), so an element in a namespace that is nearly the ResourceSync one is an unknown element, and a Destination sees a plain Sitemap. " +
		"Seen in the wild: a library writing xmlns:rs=\"http://www.openarchives.org/rs/terms\" (no trailing slash); https:// instead of http://; the 2013 draft's http://www.openarchives.org/rs/ (the D-Lib framework article's examples); a letter's case changed. " +
		"Reported once per namespace, at its first md or ln element, with the namespace to declare; RS-MD-TOP then does not report the missing <rs:md> (it is there, in the wrong namespace).",
	Check: func(p *engine.Pass) error {
		// The first element of each near namespace: among the entries
		// as they stream by, then among the root's children (complete
		// once the entries are read; a top-level <rs:md> comes first).
		first := map[string]rs.Element{}
		note := func(el rs.Element) {
			if _, ok := engine.NearRSNamespace(el.Space); !ok {
				return
			}
			if f, ok := first[el.Space]; !ok || el.Pos.Line < f.Pos.Line || el.Pos.Line == f.Pos.Line && el.Pos.Column < f.Pos.Column {
				// Copies: the strings of an entry do not outlive its window.
				el.Space, el.Local = strings.Clone(el.Space), strings.Clone(el.Local)
				first[el.Space] = el
			}
		}
		for e := range p.EntriesWith(engine.EntryUnknown) {
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
			why, _ := engine.NearRSNamespace(ns)
			p.Reportf(el.Pos, "<%s> is in namespace %q (%s), so it is not ResourceSync's <rs:%s>: did you mean %q (xmlns:rs=\"%s\")?", el.Local, ns, why, el.Local, rs.RSNS, rs.RSNS)
		}
		return nil
	},
}

func init() { engine.Register(NamespaceNearMiss) }
