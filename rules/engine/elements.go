package engine

import (
	"iter"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// What a rule of ScopeEntries reads of a document besides Pass.Entries:
// the <rs:md> and <rs:ln> elements, at the top and in every entry, in one
// pass.

// Element is an <rs:md> or an <rs:ln> (Md or Ln is set) with where it
// stands: at the top (Entry nil) or in an entry. From WalkWith, an
// Element with only Entry set is the entry itself.
type Element struct {
	Md    *rs.Md
	Ln    *rs.Ln
	Entry *rs.Entry
}

// ElementsWith yields the <rs:md> that carry an attribute of md and the
// <rs:ln> that carry one of ln (an empty set: none of that element),
// repeats included: the top level's first, then each entry's in document
// order, <rs:md> before <rs:ln>. It reads the entries as Pass.Entries does:
// a rule of ScopeEntries uses it (or WalkWith, Lns) once, instead of
// Entries. While a document is read, a window of entries none of
// whose elements carries one is skipped at once (see window.mdAttrs), so
// a rule looking for an attribute most documents do not use costs next to
// nothing.
func (p *Pass) ElementsWith(md rs.MdAttrSet, ln rs.LnAttrSet) iter.Seq[Element] {
	return p.walk(elementFilter{mdAttrs: md, lnAttrs: ln})
}

// WalkWith is ElementsWith that also yields each entry (an Element with
// only Entry set) before its elements, for a rule that reads both the
// entries themselves and some of their elements in its one pass.
func (p *Pass) WalkWith(md rs.MdAttrSet, ln rs.LnAttrSet) iter.Seq[Element] {
	return p.walk(elementFilter{entries: true, mdAttrs: md, lnAttrs: ln})
}

// elementFilter is what ElementsWith, WalkWith and Lns yield: the
// entries, the <rs:md> with an attribute of mdAttrs, the <rs:ln> with one
// of lnAttrs (all of them with anyLn).
type elementFilter struct {
	entries bool
	anyLn   bool
	mdAttrs rs.MdAttrSet
	lnAttrs rs.LnAttrSet
}

func (f *elementFilter) takesMd(m *rs.Md) bool { return m.AttrSet()&f.mdAttrs != 0 }
func (f *elementFilter) takesLn(l *rs.Ln) bool { return f.anyLn || l.AttrSet()&f.lnAttrs != 0 }

// wants reports whether an element of w may be yielded (false: the window
// can be skipped).
func (f *elementFilter) wants(w *window) bool {
	return f.entries || w.mdAttrs&f.mdAttrs != 0 ||
		f.anyLn && w.parts&EntryLinks != 0 || w.lnAttrs&f.lnAttrs != 0
}

func (p *Pass) walk(f elementFilter) iter.Seq[Element] {
	return func(yield func(Element) bool) {
		d := p.Doc
		top, extra, links := d.Md, len(d.ExtraMd), len(d.Links)
		if !f.yieldOf(yield, top, d.ExtraMd, d.Links, nil) {
			return
		}
		// The entries' elements straight from the loop over the windows,
		// not through Entries: one closure less per entry.
		if !p.eachEntry(f.wants, func(e *rs.Entry) bool { return f.yieldOf(yield, e.Md, e.ExtraMd, e.Links, e) }) {
			return
		}
		// While a document is read, Doc is the header as read so far: what
		// of it came after the entries is known now.
		d = p.Doc
		if top == nil {
			top = d.Md
		} else {
			top = nil
		}
		f.yieldOf(yield, top, d.ExtraMd[min(extra, len(d.ExtraMd)):], d.Links[min(links, len(d.Links)):], nil)
	}
}

// yieldOf yields the entry e (when f takes entries and e is not nil), then
// the elements f takes among m, extra and links, standing in e (nil: at the
// top); false when yield asked to stop.
func (f *elementFilter) yieldOf(yield func(Element) bool, m *rs.Md, extra []*rs.Md, links []*rs.Ln, e *rs.Entry) bool {
	if f.entries && e != nil && !yield(Element{Entry: e}) {
		return false
	}
	if f.mdAttrs != 0 {
		if m != nil && f.takesMd(m) && !yield(Element{Md: m, Entry: e}) {
			return false
		}
		for _, x := range extra {
			if f.takesMd(x) && !yield(Element{Md: x, Entry: e}) {
				return false
			}
		}
	}
	if f.anyLn || f.lnAttrs != 0 {
		for _, l := range links {
			if f.takesLn(l) && !yield(Element{Ln: l, Entry: e}) {
				return false
			}
		}
	}
	return true
}

// Lns yields every <rs:ln> of the document, whatever its attributes, as
// ElementsWith does.
func (p *Pass) Lns() iter.Seq[Element] { return p.walk(elementFilter{anyLn: true}) }
