package resourcesync

import (
	"bytes"
	"strings"
	"sync"
	"unsafe"
)

// XMLAttr is an attribute as an XML front end reports it: its namespace
// URI ("" for none) and local name. Namespace declarations are not
// attributes and must not be passed.
type XMLAttr struct {
	Space, Local, Value string
}

// Builder turns the element events of a well-formed document into a
// Document. Parse drives it from encoding/xml; rsconform's validator
// drives it from libxml2's parse, so that what a ResourceSync document
// means is decided here and only here, whatever parsed the XML.
//
// Events come in document order: StartElement with the element's start tag
// as written and its line and column, Text for character data directly
// inside the current element, EndElement. The Builder never needs the
// whole document: a front end can stream it.
type Builder struct {
	// OnEntries, when set, is called with the document each time Window
	// more entries have been completed (their end tag read), so that a
	// caller can check entries while the document is still being read; it
	// may replace Document.Entries (with nil, to drop the entries it has
	// checked: the Builder then starts a new slice). It is not called at
	// the end of the document: the entries completed since the last call
	// are in Document.Entries.
	OnEntries func(*Document)
	Window    int // entries per call; below 1 means 1
	completed int // entries completed since the last OnEntries
	// Pool, when set, gives the Builder back the entries of earlier
	// windows once the caller is done with them (EntryPool.Put): it
	// builds new entries, and their <rs:md>, in them instead of
	// allocating.
	Pool  *EntryPool
	spare spare

	doc   *Document
	state []int
	entry *Entry

	text     string // character data of the current text element
	textMore []byte // used only when it comes in several pieces
	textName string
	textPos  Pos

	tags tagStore // where keepTag copies the tags of <rs:md> and <rs:ln>
}

// state of the element stack
const (
	inNone = iota
	inRoot
	inEntry
	inEntryText // <loc>, <lastmod>, <changefreq>, <priority>
	inSkip      // an element whose content is ignored
)

// NewBuilder returns a Builder for one document.
func NewBuilder() *Builder {
	return &Builder{state: []int{inNone}}
}

// StartElement opens an element at line and column pos. tag is its start
// tag as written, from its '<' (bytes after the tag's end are ignored):
// the positions of the attributes of <rs:md> and <rs:ln> are found there
// (other attributes are placed at pos, and their tag may be nil). It is
// read during the call only. A nil tag places every attribute at pos.
func (b *Builder) StartElement(space, local string, attrs []XMLAttr, tag []byte, pos Pos) {
	cur := b.state[len(b.state)-1]
	next := inSkip
	switch {
	case cur == inNone && b.doc == nil:
		b.doc = b.root(space, local, attrs, pos)
		next = inRoot
	case cur == inRoot:
		next = b.rootChild(space, local, attrs, pos, tag)
	case cur == inEntry:
		next = b.entryChild(space, local, attrs, pos, tag)
		if next == inEntryText {
			b.text, b.textMore = "", b.textMore[:0]
			b.textName = local
			b.textPos = pos
		}
	}
	b.state = append(b.state, next)
}

// Text adds character data directly inside the current element.
func (b *Builder) Text(s string) {
	if b.state[len(b.state)-1] != inEntryText {
		return
	}
	switch {
	case b.text == "" && len(b.textMore) == 0:
		b.text = s // the usual case: one piece, kept without a copy
	default:
		if len(b.textMore) == 0 {
			b.textMore = append(b.textMore, b.text...)
		}
		b.textMore = append(b.textMore, s...)
	}
}

// EndElement closes the current element.
func (b *Builder) EndElement() {
	if len(b.state) <= 1 {
		return
	}
	cur := b.state[len(b.state)-1]
	b.state = b.state[:len(b.state)-1]
	switch cur {
	case inEntryText:
		t := b.text
		if len(b.textMore) > 0 {
			t = string(b.textMore)
		}
		b.setText(b.entry, b.textName, trimSpace(t), b.textPos)
	case inEntry:
		b.entry = nil
		if b.OnEntries != nil {
			b.completed++
			if b.completed >= max(b.Window, 1) {
				b.completed = 0
				b.OnEntries(b.doc)
			}
		}
	}
}

// InEntry reports whether the Builder is inside an entry: the values of
// the next events (attributes of an element started, text) go to that
// entry, not to the header.
func (b *Builder) InEntry() bool { return b.entry != nil }

// Document returns what was built; nil before the root element started.
func (b *Builder) Document() *Document { return b.doc }

func (b *Builder) root(space, local string, attrs []XMLAttr, pos Pos) *Document {
	d := &Document{RootSpace: space, RootLocal: local, Pos: pos}
	if space == SitemapNS {
		switch local {
		case "urlset":
			d.Root = RootURLSet
		case "sitemapindex":
			d.Root = RootSitemapIndex
		}
	}
	for _, a := range attrs {
		d.Extra = append(d.Extra, Attr{Space: a.Space, Local: a.Local, Value: a.Value, Pos: pos})
	}
	return d
}

func (b *Builder) rootChild(space, local string, attrs []XMLAttr, pos Pos, tag []byte) int {
	d := b.doc
	switch {
	case space == RSNS && local == "md":
		md := b.md(attrs, pos, tag)
		if d.Md == nil {
			d.Md = md
		} else {
			d.ExtraMd = append(d.ExtraMd, md)
		}
		return inSkip
	case space == RSNS && local == "ln":
		d.Links = append(d.Links, b.ln(attrs, pos, tag))
		return inSkip
	case space == SitemapNS && (local == "url" || local == "sitemap"):
		if (local == "url") != (d.Root != RootSitemapIndex) {
			d.MisplacedEntries = append(d.MisplacedEntries, Element{Space: space, Local: local, Pos: pos})
		}
		if d.Entries == nil && b.Pool != nil && len(b.spare.entries) == 0 {
			b.spare = b.Pool.get()
		}
		if n := len(b.spare.entries); n > 0 {
			b.entry, b.spare.entries = b.spare.entries[n-1], b.spare.entries[:n-1]
			b.entry.Pos = pos
		} else {
			b.entry = &Entry{Pos: pos}
		}
		if d.Entries == nil && b.OnEntries != nil {
			// A window's worth: the slice is not grown (and copied) ten
			// times per window.
			d.Entries = make([]*Entry, 0, max(b.Window, 1))
		}
		b.beginEntry(b.entry, len(d.Entries) == 0)
		d.Entries = append(d.Entries, b.entry)
		return inEntry
	}
	d.Unknown = append(d.Unknown, Element{Space: space, Local: local, Pos: pos})
	return inSkip
}

func (b *Builder) entryChild(space, local string, attrs []XMLAttr, pos Pos, tag []byte) int {
	e := b.entry
	switch {
	case space == RSNS && local == "md":
		md := b.md(attrs, pos, tag)
		if e.Md == nil {
			e.Md = md
		} else {
			e.ExtraMd = append(e.ExtraMd, md)
		}
		return inSkip
	case space == RSNS && local == "ln":
		e.Links = append(e.Links, b.ln(attrs, pos, tag))
		return inSkip
	case space == SitemapNS:
		switch local {
		case "loc", "lastmod", "changefreq", "priority":
			return inEntryText
		}
	}
	e.Unknown = append(e.Unknown, Element{Space: space, Local: local, Pos: pos})
	return inSkip
}

func (b *Builder) setText(e *Entry, name, value string, pos Pos) {
	var v *string
	var vp *Pos
	switch name {
	case "loc":
		v, vp = &e.Loc, &e.LocPos
	case "lastmod":
		v, vp = &e.Lastmod, &e.LastmodPos
	case "changefreq":
		v, vp = &e.Changefreq, &e.ChangefreqPos
	case "priority":
		v, vp = &e.Priority, &e.PriorityPos
	default:
		return
	}
	if vp.IsValid() {
		e.DuplicateChildren = append(e.DuplicateChildren, Element{Space: SitemapNS, Local: name, Pos: pos})
		return
	}
	*v, *vp = value, pos
}

// attrs sets the ResourceSync attributes of an <rs:md> or <rs:ln> through
// field and keeps a copy of its start tag tag, which begins at pos, for
// their positions (attrInfo.position); it returns the other attributes
// (otherAttrs).
func (b *Builder) attrs(attrs []XMLAttr, pos Pos, tag []byte, field func(local string) (*string, int), info *attrInfo) []Attr {
	info.tag = b.keepTag(tag)
	others := false
	for _, a := range attrs {
		if a.Space == "" {
			if f, i := field(a.Local); f != nil {
				*f = a.Value
				info.present |= 1 << i
				continue
			}
		}
		others = true
	}
	if !others {
		return nil
	}
	return otherAttrs(attrs, pos, tag, field)
}

// otherAttrs are the attributes of attrs that field does not take, each
// with its position, found in the start tag tag, which begins at pos, now:
// few elements have one.
func otherAttrs(attrs []XMLAttr, pos Pos, tag []byte, field func(local string) (*string, int)) (extra []Attr) {
	var names [16]tagAttr
	found := tagAttrs(tag, pos, names[:0], "")
	// The parser hands the attributes over in the order of the tag (the
	// namespace declarations left out): each is looked for after the
	// previous one's, so that a tag with many attributes costs linear time.
	next := 0
	for _, a := range attrs {
		if f, _ := field(a.Local); a.Space == "" && f != nil {
			continue
		}
		apos := pos
		for i := next; i < len(found); i++ {
			if n := found[i]; (a.Space == "" && n.qname == a.Local) || (a.Space != "" && prefixedAs(n.qname, a.Local)) {
				next, apos = i+1, n.pos
				break
			}
		}
		extra = append(extra, Attr{Space: a.Space, Local: a.Local, Value: a.Value, Pos: apos})
	}
	return extra
}

func (b *Builder) md(attrs []XMLAttr, pos Pos, tag []byte) *Md {
	var m *Md
	if n := len(b.spare.mds); n > 0 {
		m, b.spare.mds = b.spare.mds[n-1], b.spare.mds[:n-1]
		m.Pos = pos
	} else {
		m = &Md{Pos: pos}
	}
	m.Extra = b.attrs(attrs, pos, tag, m.field, &m.attrs)
	return m
}

func (b *Builder) ln(attrs []XMLAttr, pos Pos, tag []byte) *Ln {
	l := &Ln{Pos: pos}
	l.Extra = b.attrs(attrs, pos, tag, l.field, &l.attrs)
	return l
}

// EntryPool holds entries, and their <rs:md>, that a Builder's caller is
// done with, for the Builder to build the next ones in (Builder.Pool): a
// caller that checks a large document window by window (OnEntries) puts
// each window back once checked, and the Builder allocates next to nothing
// per entry. Put may be called on another goroutine than the Builder's.
type EntryPool struct {
	free chan spare
	// onPut, when set, is told of every window given back, before it is
	// cleared (see NotifyPut).
	onPut func(entries []*Entry)

	// The chunks of tags (tags.go), under mu: runs numbers the first
	// entry of each run of entries begun (Builder.beginEntry) and not
	// given back yet; given holds the runs given back beyond low (first
	// number: end), every entry numbered below low having been given
	// back; retired, the full chunks, oldest first; tagSpares, free ones.
	mu        sync.Mutex
	runs      map[*Entry]int
	given     map[int]int
	low       int
	retired   []retiredTags
	tagSpares [][]byte
}

type spare struct {
	entries []*Entry
	mds     []*Md
}

// NewEntryPool returns an empty pool.
func NewEntryPool() *EntryPool { return &EntryPool{free: make(chan spare, 4)} }

// NotifyPut has f called with every window of entries given back (Put),
// on Put's goroutine, before the entries are cleared: the front end that
// built them learns that nothing reads their values any more, and may
// write other values over the memory that held them. Set it before the
// first entry is built.
func (p *EntryPool) NotifyPut(f func(entries []*Entry)) { p.onPut = f }

// Put gives back entries no one reads any more, nor their <rs:md>, nor
// any of their strings (they may be overwritten, see NotifyPut): they are
// cleared, to be built again. The pool keeps a few windows' worth; the
// rest is left to the garbage collector.
func (p *EntryPool) Put(entries []*Entry) {
	if p.onPut != nil && len(entries) > 0 {
		p.onPut(entries)
	}
	if len(entries) > 0 {
		p.givenBack(entries)
	}
	s := spare{entries: entries, mds: make([]*Md, 0, len(entries))}
	for _, e := range entries {
		if e.Md != nil {
			*e.Md = Md{}
			s.mds = append(s.mds, e.Md)
		}
		*e = Entry{}
	}
	select {
	case p.free <- s:
	default:
	}
}

func (p *EntryPool) get() spare {
	select {
	case s := <-p.free:
		return s
	default:
		return spare{}
	}
}

// prefixedAs reports whether qname is prefix:local with a prefix other
// than xmlns.
func prefixedAs(qname, local string) bool {
	k := len(qname) - len(local) - 1
	return k > 0 && qname[k] == ':' && qname[k+1:] == local && qname[:k] != "xmlns"
}

type tagAttr struct {
	qname string // points into the tag: no copy
	pos   Pos
}

// tagAttrs appends to out the attributes (namespace declarations included)
// of the start tag at the start of data, which begins at pos, with their
// positions, in order; when until is not "", it stops after the attribute
// whose qualified name is until (the one attrInfo.position looks for).
func tagAttrs(data []byte, pos Pos, out []tagAttr, until string) []tagAttr {
	if len(data) == 0 || data[0] != '<' {
		return out
	}
	// line is the current line; lineStart the offset of its first byte,
	// whose column is col0 (the tag's own column on its first line).
	// Plain loops: this runs for every attribute position asked for
	// (attrInfo.position) and on every tag with an attribute beyond
	// ResourceSync's (otherAttrs).
	line, lineStart, col0 := pos.Line, 0, pos.Column
	// A tag on one line (most are) needs no look for newlines in its
	// values: one look in the whole tag instead of one in each value.
	multiline := bytes.IndexByte(data, '\n') >= 0
	i := 1
	newline := func() { line, lineStart, col0 = line+1, i+1, 1 }
	// The element name.
	for i < len(data) && tagByte[data[i]]&(tbSpace|tbTagEnd) == 0 {
		i++
	}
	for i < len(data) {
		for i < len(data) && tagByte[data[i]]&tbSpace != 0 {
			if data[i] == '\n' {
				newline()
			}
			i++
		}
		if i >= len(data) || data[i] == '>' || data[i] == '/' {
			break
		}
		start := i
		p := Pos{Line: line, Column: col0 + i - lineStart}
		for i < len(data) && tagByte[data[i]]&(tbSpace|tbEquals) == 0 {
			i++
		}
		out = append(out, tagAttr{qname: unsafe.String(&data[start], i-start), pos: p})
		if until != "" && out[len(out)-1].qname == until {
			break
		}
		for i < len(data) && data[i] != '"' && data[i] != '\'' {
			if data[i] == '\n' {
				newline()
			}
			i++
		}
		if i >= len(data) {
			break
		}
		q := data[i]
		i++
		// The value, to its closing quote: values are long (a hash, a URI)
		// and seldom span lines, so the quote and the newlines are looked
		// for with IndexByte rather than byte by byte.
		end := bytes.IndexByte(data[i:], q)
		if end < 0 {
			end = len(data) - i
		}
		for multiline {
			nl := bytes.IndexByte(data[i:i+end], '\n')
			if nl < 0 {
				break
			}
			end -= nl + 1
			i += nl
			newline()
			i++
		}
		i += end + 1
	}
	return out
}

func isSpace(c byte) bool { return tagByte[c]&tbSpace != 0 }

// trimSpace is strings.TrimSpace, which it calls only when the first or
// the last byte of s may be white space (an ASCII space, or a byte beyond
// ASCII, which may begin or end a Unicode one: hashByte classes both as
// unicode.IsSpace does): most texts (a <loc>, a <lastmod>) have none to
// trim.
func trimSpace(s string) string {
	const maybe = hbSpace | hbBeyondASCII
	if len(s) > 0 && hashByte[s[0]]&maybe == 0 && hashByte[s[len(s)-1]]&maybe == 0 {
		return s
	}
	return strings.TrimSpace(s)
}

// tagByte classes the bytes of a start tag for tagAttrs, one lookup a byte
// of a tag it reads: XML white space, the end of the element name ('>' and
// '/'), '='.
var tagByte = func() (t [256]uint8) {
	for _, c := range " \t\n\r" {
		t[c] = tbSpace
	}
	t['>'], t['/'], t['='] = tbTagEnd, tbTagEnd, tbEquals
	return
}()

const (
	tbSpace = 1 << iota
	tbTagEnd
	tbEquals
)
