package engine

import (
	"iter"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// What a rule of ScopeEntries reads of a document besides Pass.Entries:
// the <rs:md> and <rs:ln> elements, at the top and in every entry, in one
// pass.

// Element is an <rs:md> or an <rs:ln> (Md or Ln is set) with where it
// stands: at the top (Entry nil) or in an entry. From Walk with entries,
// an Element with only Entry set is the entry itself.
type Element struct {
	Md    *rs.Md
	Ln    *rs.Ln
	Entry *rs.Entry
}

// Elements yields the <rs:md> (with md) and <rs:ln> (with ln) elements of
// the document, repeats included: the top level's first, then each
// entry's in document order, <rs:md> before <rs:ln>. It reads the entries
// through Pass.Entries: a rule of ScopeEntries uses it (or Mds, Lns) once,
// instead of Entries.
func (p *Pass) Elements(md, ln bool) iter.Seq[Element] { return p.Walk(md, ln, false) }

// Walk is Elements that, with entries, also yields each entry (an Element
// with only Entry set) before its elements, for a rule that reads both
// the elements and the entries themselves in its one pass.
func (p *Pass) Walk(md, ln, entries bool) iter.Seq[Element] {
	return func(yield func(Element) bool) {
		of := func(m *rs.Md, extra []*rs.Md, links []*rs.Ln, e *rs.Entry) bool {
			if entries && e != nil && !yield(Element{Entry: e}) {
				return false
			}
			if md {
				if m != nil && !yield(Element{Md: m, Entry: e}) {
					return false
				}
				for _, x := range extra {
					if !yield(Element{Md: x, Entry: e}) {
						return false
					}
				}
			}
			if ln {
				for _, l := range links {
					if !yield(Element{Ln: l, Entry: e}) {
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

// Mds yields every <rs:md> of the document, as Elements does.
func (p *Pass) Mds() iter.Seq[Element] { return p.Elements(true, false) }

// Lns yields every <rs:ln> of the document, as Elements does.
func (p *Pass) Lns() iter.Seq[Element] { return p.Elements(false, true) }
