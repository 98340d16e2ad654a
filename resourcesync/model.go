package resourcesync

import (
	"strings"
	"time"
	"unsafe"
)

// Pos is a position in the input: 1-based line and column (column counted
// in bytes). The zero Pos means "not from parsed input".
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// IsValid reports whether p points into parsed input.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Attr is an XML attribute that ResourceSync does not define: a community
// extension in its own namespace, or a stray one. Space is the namespace
// URI ("" for none).
type Attr struct {
	Space string
	Local string
	Value string
	Pos   Pos
}

// Element records an element that ResourceSync does not define (for example
// a Sitemap extension such as image:image), with where it stands.
type Element struct {
	Space string
	Local string
	Pos   Pos
}

// Document is a parsed ResourceSync document.
type Document struct {
	Root Root
	// RootSpace and RootLocal are the root element's namespace and name as
	// written, so that a wrong root can be reported.
	RootSpace, RootLocal string
	Pos                  Pos

	// Md is the first <rs:md> child of the root, nil when there is none.
	Md *Md
	// ExtraMd holds further <rs:md> children of the root (not allowed).
	ExtraMd []*Md
	// Links are the <rs:ln> children of the root, in document order.
	Links []*Ln
	// Entries are the <url> (or <sitemap>) children, in document order.
	Entries []*Entry
	// MisplacedEntries counts <url> in a <sitemapindex> and <sitemap> in a
	// <urlset>; such entries are still parsed into Entries.
	MisplacedEntries []Element
	// Unknown lists other child elements of the root.
	Unknown []Element
	// Extra holds attributes of the root element other than namespace
	// declarations.
	Extra []Attr
}

// Capability is the capability value of the document's top-level <rs:md>.
func (d *Document) Capability() Capability {
	if d.Md == nil {
		return ""
	}
	return Capability(d.Md.Capability)
}

// Kind is the kind of the document given its root and capability.
func (d *Document) Kind() Kind { return KindOf(d.Root, d.Capability()) }

// Link returns the first top-level link with relation rel (compared
// case-insensitively, as relation types are), or nil.
func (d *Document) Link(rel string) *Ln { return firstLink(d.Links, rel) }

// LinksByRel returns the top-level links with relation rel.
func (d *Document) LinksByRel(rel string) []*Ln { return linksByRel(d.Links, rel) }

// Entry is a <url> element of a <urlset> or a <sitemap> element of a
// <sitemapindex>.
type Entry struct {
	Pos Pos

	Loc        string
	LocPos     Pos // zero when there is no <loc>
	Lastmod    string
	LastmodPos Pos
	// Changefreq and Priority are the Sitemap protocol's optional elements.
	Changefreq    string
	ChangefreqPos Pos
	Priority      string
	PriorityPos   Pos

	// DuplicateChildren lists second and later <loc>, <lastmod>,
	// <changefreq> and <priority> elements.
	DuplicateChildren []Element

	Md      *Md
	ExtraMd []*Md
	Links   []*Ln
	Unknown []Element
}

// HasLoc reports whether the entry has a <loc> element.
func (e *Entry) HasLoc() bool { return e.LocPos.IsValid() || e.Loc != "" }

// Link returns the first link of the entry with relation rel, or nil.
func (e *Entry) Link(rel string) *Ln { return firstLink(e.Links, rel) }

// LinksByRel returns the entry's links with relation rel.
func (e *Entry) LinksByRel(rel string) []*Ln { return linksByRel(e.Links, rel) }

// Md is an <rs:md> element. Every field holds the attribute's value exactly
// as written; an absent attribute is "". Parsed elements also record where
// each attribute stands (AttrPosition) and which are present, so that a
// present but empty attribute is told from an absent one (Get, Has).
type Md struct {
	Pos Pos

	Capability string
	At         string
	Completed  string
	From       string
	Until      string
	Change     string
	Datetime   string
	Hash       string
	Length     string
	Type       string
	Path       string
	Encoding   string

	// Extra holds attributes ResourceSync does not define on <rs:md>,
	// including prefixed ones.
	Extra []Attr
	attrs attrInfo
}

// Ln is an <rs:ln> element; fields as for Md.
type Ln struct {
	Pos Pos

	Rel      string
	Href     string
	Type     string
	Length   string
	Hash     string
	Modified string
	Path     string
	Pri      string
	Encoding string

	Extra []Attr
	attrs attrInfo
}

// attrInfo records which ResourceSync attributes a parsed element has, by
// the attribute's index in mdAttrs or lnAttrs, and the element's start tag
// as written, where position finds where one stands. Positions are found
// when asked for, which is seldom (a finding at an attribute): reading
// every <rs:md> tag for them while building was a tenth of validate's
// instructions outside libxml2 on a 50,000-entry list.
type attrInfo struct {
	present uint16
	tag     []byte // a copy, from its '<'; empty when the builder had none
}

func (a *attrInfo) has(i int) bool { return a.present&(1<<i) != 0 }

// position is where the attribute names[i] stands in the tag, which begins
// at def; def when the element does not have it or there is no tag. The
// name is unprefixed (a ResourceSync attribute has no namespace), so it is
// in the tag once at most (XML forbids an attribute twice).
func (a *attrInfo) position(i int, names []string, def Pos) Pos {
	if i < 0 || !a.has(i) || len(a.tag) == 0 {
		return def
	}
	var found [16]tagAttr
	if in := tagAttrs(a.tag, def, found[:0], names[i]); len(in) > 0 && in[len(in)-1].qname == names[i] {
		return in[len(in)-1].pos
	}
	return def
}

// mdAttrs and lnAttrs are the attributes ResourceSync defines, in the order
// Write emits them.
var (
	mdAttrs = []string{"capability", "at", "completed", "from", "until", "change", "datetime", "hash", "length", "type", "path", "encoding"}
	lnAttrs = []string{"rel", "href", "type", "length", "hash", "modified", "path", "pri", "encoding"}
)

// MdAttributes and LnAttributes list the attribute names ResourceSync
// defines for <rs:md> and <rs:ln> (section 7, Table 3).
func MdAttributes() []string { return append([]string(nil), mdAttrs...) }
func LnAttributes() []string { return append([]string(nil), lnAttrs...) }

// MdAttr is a ResourceSync attribute of <rs:md> (its index in mdAttrs),
// named once (MdAttrOf) by a caller that reads it on every element of a
// list: Get looks the name up at every call, Attr does not.
type MdAttr int8

// MdAttrOf is the <rs:md> attribute called name; for a name ResourceSync
// does not define, one that no element has (Attr finds it absent).
func MdAttrOf(name string) MdAttr { return MdAttr(mdIndex(name)) }

// LnAttr is MdAttr for <rs:ln>.
type LnAttr int8

// LnAttrOf is MdAttrOf for <rs:ln>.
func LnAttrOf(name string) LnAttr { return LnAttr(lnIndex(name)) }

// MdAttrSet is a set of <rs:md> attributes (bit a for MdAttr a), as an
// element carries them (Md.AttrSet) or a caller looks for them.
type MdAttrSet uint16

// LnAttrSet is MdAttrSet for <rs:ln>.
type LnAttrSet uint16

// Set is the set of a alone; empty for an attribute ResourceSync does not
// define (MdAttrOf of an unknown name).
func (a MdAttr) Set() MdAttrSet {
	if a < 0 {
		return 0
	}
	return 1 << a
}

// Set is MdAttr.Set for <rs:ln>.
func (a LnAttr) Set() LnAttrSet {
	if a < 0 {
		return 0
	}
	return 1 << a
}

// AttrSet is the set of the ResourceSync attributes m has: a is in it
// exactly when Attr(a) finds a present. A parsed element records them as
// it is built; for one built by hand (no attribute recorded), they are the
// non-empty fields.
func (m *Md) AttrSet() MdAttrSet {
	if m.attrs.present != 0 {
		return MdAttrSet(m.attrs.present)
	}
	return MdAttrSet(fieldSet(len(mdAttrs), m.at)) // apart, for AttrSet to be inlined
}

// AttrSet is Md.AttrSet for <rs:ln>.
func (l *Ln) AttrSet() LnAttrSet {
	if l.attrs.present != 0 {
		return LnAttrSet(l.attrs.present)
	}
	return LnAttrSet(fieldSet(len(lnAttrs), l.at))
}

// fieldSet is the set of the attributes, of the n an element defines,
// whose field (at) is not empty.
func fieldSet(n int, at func(i int) *string) uint16 {
	var s uint16
	for i := range n {
		if *at(i) != "" {
			s |= 1 << i
		}
	}
	return s
}

// mdIndex is the index of attribute name in mdAttrs, or -1.
func mdIndex(name string) int {
	switch name {
	case "capability":
		return 0
	case "at":
		return 1
	case "completed":
		return 2
	case "from":
		return 3
	case "until":
		return 4
	case "change":
		return 5
	case "datetime":
		return 6
	case "hash":
		return 7
	case "length":
		return 8
	case "type":
		return 9
	case "path":
		return 10
	case "encoding":
		return 11
	}
	return -1
}

// at is the field of the attribute of index i in mdAttrs (nil for -1).
func (m *Md) at(i int) *string {
	if i < 0 {
		return nil
	}
	return (*string)(unsafe.Add(unsafe.Pointer(m), mdOffsets[i]))
}

// mdOffsets and lnOffsets are where the field of each attribute of mdAttrs
// and lnAttrs is: Attr, which runs for about 26 attributes of every entry
// of a list, reads the field at its offset (and is inlined) instead of
// going through a switch of twelve fields.
var (
	mdOffsets = [...]uintptr{unsafe.Offsetof(Md{}.Capability), unsafe.Offsetof(Md{}.At), unsafe.Offsetof(Md{}.Completed),
		unsafe.Offsetof(Md{}.From), unsafe.Offsetof(Md{}.Until), unsafe.Offsetof(Md{}.Change), unsafe.Offsetof(Md{}.Datetime),
		unsafe.Offsetof(Md{}.Hash), unsafe.Offsetof(Md{}.Length), unsafe.Offsetof(Md{}.Type), unsafe.Offsetof(Md{}.Path),
		unsafe.Offsetof(Md{}.Encoding)}
	lnOffsets = [...]uintptr{unsafe.Offsetof(Ln{}.Rel), unsafe.Offsetof(Ln{}.Href), unsafe.Offsetof(Ln{}.Type),
		unsafe.Offsetof(Ln{}.Length), unsafe.Offsetof(Ln{}.Hash), unsafe.Offsetof(Ln{}.Modified), unsafe.Offsetof(Ln{}.Path),
		unsafe.Offsetof(Ln{}.Pri), unsafe.Offsetof(Ln{}.Encoding)}
)

func (m *Md) field(name string) (*string, int) {
	i := mdIndex(name)
	return m.at(i), i
}

// lnIndex is the index of attribute name in lnAttrs, or -1.
func lnIndex(name string) int {
	switch name {
	case "rel":
		return 0
	case "href":
		return 1
	case "type":
		return 2
	case "length":
		return 3
	case "hash":
		return 4
	case "modified":
		return 5
	case "path":
		return 6
	case "pri":
		return 7
	case "encoding":
		return 8
	}
	return -1
}

// at is the field of the attribute of index i in lnAttrs (nil for -1).
func (l *Ln) at(i int) *string {
	if i < 0 {
		return nil
	}
	return (*string)(unsafe.Add(unsafe.Pointer(l), lnOffsets[i]))
}

func (l *Ln) field(name string) (*string, int) {
	i := lnIndex(name)
	return l.at(i), i
}

// Get returns the value of a ResourceSync attribute of <rs:md> and whether
// it is present.
func (m *Md) Get(name string) (string, bool) { return m.Attr(MdAttrOf(name)) }

// Attr is Get for an attribute named once.
func (m *Md) Attr(a MdAttr) (string, bool) {
	if m == nil || a < 0 {
		return "", false
	}
	if v := *m.at(int(a)); v != "" {
		return v, true
	}
	return "", m.attrs.has(int(a)) // present but empty
}

// Has reports whether the ResourceSync attribute name is present.
func (m *Md) Has(name string) bool { _, ok := m.Get(name); return ok }

// AttrPosition is where attribute name stands, or where the element stands
// when the attribute is absent or the position unknown.
func (m *Md) AttrPosition(name string) Pos { return m.AttrPos(MdAttrOf(name)) }

// AttrPos is AttrPosition for an attribute named once.
func (m *Md) AttrPos(a MdAttr) Pos { return m.attrs.position(int(a), mdAttrs, m.Pos) }

// Time parses the datetime attribute name (at, completed, from, until,
// datetime). ok is false when the attribute is absent.
func (m *Md) Time(name string) (d Datetime, ok bool, err error) { return m.TimeAttr(MdAttrOf(name)) }

// TimeAttr is Time for an attribute named once.
func (m *Md) TimeAttr(a MdAttr) (d Datetime, ok bool, err error) {
	v, ok := m.Attr(a)
	if !ok {
		return Datetime{}, false, nil
	}
	d, err = ParseDatetime(v)
	return d, true, err
}

// Get returns the value of a ResourceSync attribute of <rs:ln> and whether
// it is present.
func (l *Ln) Get(name string) (string, bool) { return l.Attr(LnAttrOf(name)) }

// Attr is Get for an attribute named once.
func (l *Ln) Attr(a LnAttr) (string, bool) {
	if l == nil || a < 0 {
		return "", false
	}
	if v := *l.at(int(a)); v != "" {
		return v, true
	}
	return "", l.attrs.has(int(a)) // present but empty
}

// Has reports whether the ResourceSync attribute name is present.
func (l *Ln) Has(name string) bool { _, ok := l.Get(name); return ok }

// AttrPosition is where attribute name stands, or where the element stands.
func (l *Ln) AttrPosition(name string) Pos { return l.AttrPos(LnAttrOf(name)) }

// AttrPos is AttrPosition for an attribute named once.
func (l *Ln) AttrPos(a LnAttr) Pos { return l.attrs.position(int(a), lnAttrs, l.Pos) }

// Is reports whether l has relation type rel. Registered relation types
// compare case-insensitively (RFC 8288, 2.1.1); extension relation types
// are URIs (such as the patch relation of section 14.4) and compare as
// written. Surrounding white space is ignored.
func (l *Ln) Is(rel string) bool {
	v := strings.TrimSpace(l.Rel)
	if strings.Contains(rel, ":") {
		return v == rel
	}
	return strings.EqualFold(v, rel)
}

func firstLink(links []*Ln, rel string) *Ln {
	for _, l := range links {
		if l.Is(rel) {
			return l
		}
	}
	return nil
}

func linksByRel(links []*Ln, rel string) []*Ln {
	var out []*Ln
	for _, l := range links {
		if l.Is(rel) {
			out = append(out, l)
		}
	}
	return out
}

// StripPositions returns a copy of d without positions (and without the
// records of unknown elements, which Write does not write), for comparing
// documents by content: StripPositions(Parse(Write(d))) equals
// StripPositions(d).
func StripPositions(d *Document) *Document {
	c := *d
	c.Pos = Pos{}
	c.Unknown, c.MisplacedEntries = nil, nil
	c.Extra = stripAttrs(d.Extra)
	c.Md = stripMd(d.Md)
	c.ExtraMd = nil
	for _, m := range d.ExtraMd {
		c.ExtraMd = append(c.ExtraMd, stripMd(m))
	}
	c.Links = stripLns(d.Links)
	c.Entries = nil
	for _, e := range d.Entries {
		x := *e
		x.Pos, x.LocPos, x.LastmodPos, x.ChangefreqPos, x.PriorityPos = Pos{}, Pos{}, Pos{}, Pos{}, Pos{}
		x.Unknown, x.DuplicateChildren = nil, nil
		x.Md = stripMd(e.Md)
		x.ExtraMd = nil
		for _, m := range e.ExtraMd {
			x.ExtraMd = append(x.ExtraMd, stripMd(m))
		}
		x.Links = stripLns(e.Links)
		c.Entries = append(c.Entries, &x)
	}
	return &c
}

func stripMd(m *Md) *Md {
	if m == nil {
		return nil
	}
	x := *m
	x.Pos = Pos{}
	x.attrs = attrInfo{present: presence(mdAttrs, func(n string) bool { return m.Has(n) })}
	x.Extra = stripAttrs(m.Extra)
	return &x
}

func stripLns(ls []*Ln) []*Ln {
	var out []*Ln
	for _, l := range ls {
		x := *l
		x.Pos = Pos{}
		x.attrs = attrInfo{present: presence(lnAttrs, func(n string) bool { return l.Has(n) })}
		x.Extra = stripAttrs(l.Extra)
		out = append(out, &x)
	}
	return out
}

func presence(names []string, has func(string) bool) uint16 {
	var p uint16
	for i, n := range names {
		if has(n) {
			p |= 1 << i
		}
	}
	return p
}

func stripAttrs(a []Attr) []Attr {
	var out []Attr
	for _, x := range a {
		x.Pos = Pos{}
		out = append(out, x)
	}
	return out
}

// Convenience constructors for writers.

// NewDocument returns an empty document of kind k with its top-level <rs:md>.
func NewDocument(k Kind) *Document {
	d := &Document{Root: RootURLSet, RootSpace: SitemapNS, RootLocal: "urlset", Md: &Md{Capability: string(k.Capability())}}
	if k.IsIndex() {
		d.Root, d.RootLocal = RootSitemapIndex, "sitemapindex"
	}
	return d
}

// AddLink appends a top-level <rs:ln>.
func (d *Document) AddLink(rel, href string) *Ln {
	l := &Ln{Rel: rel, Href: href}
	d.Links = append(d.Links, l)
	return l
}

// AddEntry appends an entry with the given <loc>.
func (d *Document) AddEntry(loc string) *Entry {
	e := &Entry{Loc: loc}
	d.Entries = append(d.Entries, e)
	return e
}

// SetLastmod sets <lastmod> in the recommended form.
func (e *Entry) SetLastmod(t time.Time) { e.Lastmod = FormatDatetime(t) }

// EnsureMd returns the entry's <rs:md>, creating it when absent.
func (e *Entry) EnsureMd() *Md {
	if e.Md == nil {
		e.Md = &Md{}
	}
	return e.Md
}

// AddLink appends an <rs:ln> to the entry.
func (e *Entry) AddLink(rel, href string) *Ln {
	l := &Ln{Rel: rel, Href: href}
	e.Links = append(e.Links, l)
	return l
}

// Detached returns a deep copy of d whose strings share no memory with the
// input d was parsed from, with its entries only when entries is true.
// A parsed document's strings may point into one large buffer (the
// document, or the parse's event buffer): keeping any of them keeps all of
// it alive, so a caller that keeps part of many documents (a crawl's graph)
// keeps detached copies.
func (d *Document) Detached(entries bool) *Document {
	if d == nil {
		return nil
	}
	c := *d
	c.RootSpace, c.RootLocal = strings.Clone(d.RootSpace), strings.Clone(d.RootLocal)
	c.Extra = cloneAttrs(d.Extra)
	c.Md = d.Md.Clone()
	c.ExtraMd = nil
	for _, m := range d.ExtraMd {
		c.ExtraMd = append(c.ExtraMd, m.Clone())
	}
	c.Links = cloneLns(d.Links)
	c.MisplacedEntries = cloneElements(d.MisplacedEntries)
	c.Unknown = cloneElements(d.Unknown)
	c.Entries = nil
	if entries {
		c.Entries = make([]*Entry, 0, len(d.Entries))
		for _, e := range d.Entries {
			x := *e
			x.Loc, x.Lastmod = strings.Clone(e.Loc), strings.Clone(e.Lastmod)
			x.Changefreq, x.Priority = strings.Clone(e.Changefreq), strings.Clone(e.Priority)
			x.DuplicateChildren = cloneElements(e.DuplicateChildren)
			x.Md = e.Md.Clone()
			x.ExtraMd = nil
			for _, m := range e.ExtraMd {
				x.ExtraMd = append(x.ExtraMd, m.Clone())
			}
			x.Links = cloneLns(e.Links)
			x.Unknown = cloneElements(e.Unknown)
			c.Entries = append(c.Entries, &x)
		}
	}
	return &c
}

// Clone is a deep copy of m whose strings share no memory with m's.
func (m *Md) Clone() *Md {
	if m == nil {
		return nil
	}
	x := *m
	for i := range mdAttrs {
		f := x.at(i)
		*f = strings.Clone(*f)
	}
	x.Extra = cloneAttrs(m.Extra)
	return &x
}

func cloneLns(ls []*Ln) []*Ln {
	var out []*Ln
	for _, l := range ls {
		x := *l
		for i := range lnAttrs {
			f := x.at(i)
			*f = strings.Clone(*f)
		}
		x.Extra = cloneAttrs(l.Extra)
		out = append(out, &x)
	}
	return out
}

func cloneAttrs(as []Attr) []Attr {
	var out []Attr
	for _, a := range as {
		out = append(out, Attr{Space: strings.Clone(a.Space), Local: strings.Clone(a.Local), Value: strings.Clone(a.Value), Pos: a.Pos})
	}
	return out
}

func cloneElements(es []Element) []Element {
	var out []Element
	for _, e := range es {
		out = append(out, Element{Space: strings.Clone(e.Space), Local: strings.Clone(e.Local), Pos: e.Pos})
	}
	return out
}
