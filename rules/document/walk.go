package document

import (
	"iter"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Kind sets used by Applies.
var (
	// CapabilityDocs are the documents that sit under a Capability List
	// and must link up to it: every list, index, dump, manifest and archive.
	CapabilityDocs = kindsExcept(rs.SourceDescription, rs.SourceDescriptionIndex, rs.CapabilityList, rs.CapabilityListIndex)
	// SnapshotDocs take at/completed at the top (Appendix A).
	SnapshotDocs = []rs.Kind{rs.ResourceList, rs.ResourceListIndex, rs.ResourceDump, rs.ResourceDumpIndex, rs.ResourceDumpManifest}
	// ChangeDocs take from/until at the top (Appendix A).
	ChangeDocs = []rs.Kind{rs.ChangeList, rs.ChangeListIndex, rs.ChangeDump, rs.ChangeDumpIndex, rs.ChangeDumpManifest}
	// KnownKinds is every kind but KindUnknown.
	KnownKinds = rs.Kinds
)

func kindsExcept(except ...rs.Kind) []rs.Kind {
	var out []rs.Kind
outer:
	for _, k := range rs.Kinds {
		for _, e := range except {
			if k == e {
				continue outer
			}
		}
		out = append(out, k)
	}
	return out
}

func hasKind(ks []rs.Kind, k rs.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// mdRef is an <rs:md> with where it stands: at the top (entry nil) or in an entry.
type mdRef struct {
	md    *rs.Md
	entry *rs.Entry
}

// lnRef is an <rs:ln> with where it stands.
type lnRef struct {
	ln    *rs.Ln
	entry *rs.Entry
}

// mdln is an <rs:md> or an <rs:ln> (md or ln is set) with where it stands:
// at the top (entry nil) or in an entry.
type mdln struct {
	md    *rs.Md
	ln    *rs.Ln
	entry *rs.Entry
}

// elements yields the <rs:md> (with md) and <rs:ln> (with ln) elements of
// the document, repeats included: the top level's first, then each
// entry's in document order, <rs:md> before <rs:ln>. It reads the entries
// through Pass.Entries: a rule of ScopeEntries uses it (or mds, lns) once,
// instead of Entries.
func elements(p *engine.Pass, md, ln bool) iter.Seq[mdln] { return walk(p, md, ln, false) }

// walk is elements that, with entries, also yields each entry (an mdln
// with only entry set) before its elements, for a rule that reads both
// the elements and the entries themselves in its one pass.
func walk(p *engine.Pass, md, ln, entries bool) iter.Seq[mdln] {
	return func(yield func(mdln) bool) {
		of := func(m *rs.Md, extra []*rs.Md, links []*rs.Ln, e *rs.Entry) bool {
			if entries && e != nil && !yield(mdln{entry: e}) {
				return false
			}
			if md {
				if m != nil && !yield(mdln{md: m, entry: e}) {
					return false
				}
				for _, x := range extra {
					if !yield(mdln{md: x, entry: e}) {
						return false
					}
				}
			}
			if ln {
				for _, l := range links {
					if !yield(mdln{ln: l, entry: e}) {
						return false
					}
				}
			}
			return true
		}
		d := p.Doc
		top, extra, links := d.Md, len(d.ExtraMd), len(d.Links)
		if !of(top, d.ExtraMd, d.Links, nil) {
			return
		}
		for e := range p.Entries() {
			if !of(e.Md, e.ExtraMd, e.Links, e) {
				return
			}
		}
		// While a document is read, Doc is the header as read so far: what
		// of it came after the entries is known now.
		d = p.Doc
		if top == nil {
			top = d.Md
		} else {
			top = nil
		}
		of(top, d.ExtraMd[min(extra, len(d.ExtraMd)):], d.Links[min(links, len(d.Links)):], nil)
	}
}

// mds yields every <rs:md> of the document, as elements does.
func mds(p *engine.Pass) iter.Seq[mdRef] {
	return func(yield func(mdRef) bool) {
		for x := range elements(p, true, false) {
			if !yield(mdRef{x.md, x.entry}) {
				return
			}
		}
	}
}

// lns yields every <rs:ln> of the document, as elements does.
func lns(p *engine.Pass) iter.Seq[lnRef] {
	return func(yield func(lnRef) bool) {
		for x := range elements(p, false, true) {
			if !yield(lnRef{x.ln, x.entry}) {
				return
			}
		}
	}
}

// entryName is "<url>" or "<sitemap>" for messages.
func entryName(d *rs.Document) string {
	if d.Root == rs.RootSitemapIndex {
		return "<sitemap>"
	}
	return "<url>"
}

// rootName is "<urlset>" or "<sitemapindex>" for messages.
func rootName(d *rs.Document) string {
	if d.Root == rs.RootSitemapIndex {
		return "<sitemapindex>"
	}
	return "<urlset>"
}
