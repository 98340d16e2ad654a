package resourcesync

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// SyntaxError reports input that is not a well-formed XML document, or that
// this package refuses to read (a DOCTYPE, a non-UTF-8 encoding).
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

// Parse reads a document from r (gzip is decompressed transparently) with
// the default size limit and parses it.
func Parse(r io.Reader) (*Document, error) {
	data, err := ReadAll(r, 0)
	if err != nil {
		return nil, err
	}
	return ParseBytes(data)
}

// ParseBytes parses an uncompressed document held in memory.
func ParseBytes(data []byte) (*Document, error) {
	p := &parser{data: data, dec: xml.NewDecoder(bytes.NewReader(data))}
	p.dec.Strict = true
	return p.parse()
}

type parser struct {
	data []byte
	dec  *xml.Decoder
	doc  *Document
}

func (p *parser) pos() Pos {
	l, c := p.dec.InputPos()
	return Pos{Line: l, Column: c}
}

func (p *parser) syntax(pos Pos, err error) error {
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	msg = strings.TrimPrefix(msg, "xml: ")
	if strings.Contains(msg, "CharsetReader") {
		msg = strings.Replace(msg, " but Decoder.CharsetReader is nil", "", 1) +
			": Sitemap documents must be UTF-8 encoded"
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "unexpected EOF") {
		msg = "unexpected end of input: the document is truncated or empty"
	}
	return &SyntaxError{Pos: pos, Msg: msg}
}

// state of the element stack
const (
	inNone = iota
	inRoot
	inEntry
	inEntryText // <loc>, <lastmod>, <changefreq>, <priority>
	inSkip      // an element whose content is ignored
)

func (p *parser) parse() (*Document, error) {
	if bytes.HasPrefix(p.data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(p.data, []byte{0xFF, 0xFE}) {
		return nil, &SyntaxError{Pos: Pos{1, 1}, Msg: "the document is UTF-16 encoded: Sitemap documents must be UTF-8 encoded"}
	}
	if len(bytes.TrimSpace(p.data)) == 0 {
		return nil, &SyntaxError{Pos: Pos{1, 1}, Msg: "the document is empty"}
	}
	var (
		depth    int
		state    = []int{inNone}
		entry    *Entry
		text     strings.Builder
		textName string
		textPos  Pos
		rootSeen bool
	)
	for {
		start := p.pos()
		off := p.dec.InputOffset()
		tok, err := p.dec.Token()
		if err == io.EOF {
			if !rootSeen {
				return nil, &SyntaxError{Pos: start, Msg: "no root element"}
			}
			break
		}
		if err != nil {
			return nil, p.syntax(p.pos(), err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if bytes.HasPrefix(bytes.TrimSpace(t), []byte("DOCTYPE")) {
				return nil, &SyntaxError{Pos: start, Msg: "DOCTYPE declarations are not allowed (they can declare entities that expand or load external files); Sitemap documents have none"}
			}
			return nil, &SyntaxError{Pos: start, Msg: "unexpected markup declaration <!" + truncate(string(t), 40) + ">"}
		case xml.CharData:
			if state[len(state)-1] == inEntryText {
				text.Write(t)
			} else if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return nil, &SyntaxError{Pos: p.textPos(start, t), Msg: "text outside the root element"}
			}
		case xml.StartElement:
			if depth == 0 && rootSeen {
				return nil, &SyntaxError{Pos: start, Msg: "a second root element <" + t.Name.Local + ">: a document has exactly one root"}
			}
			depth++
			tag := p.data[off:p.dec.InputOffset()]
			cur := state[len(state)-1]
			next := inSkip
			switch {
			case depth == 1:
				rootSeen = true
				p.doc = p.root(t, start)
				next = inRoot
			case cur == inRoot:
				next = p.rootChild(t, start, tag, &entry)
			case cur == inEntry:
				next = p.entryChild(t, start, tag, entry)
				if next == inEntryText {
					text.Reset()
					textName = t.Name.Local
					textPos = start
				}
			}
			state = append(state, next)
		case xml.EndElement:
			cur := state[len(state)-1]
			state = state[:len(state)-1]
			depth--
			switch cur {
			case inEntryText:
				p.setText(entry, textName, strings.TrimSpace(text.String()), textPos)
			case inEntry:
				entry = nil
			}
		}
	}
	return p.doc, nil
}

// textPos is the position of the first non-space byte of t, which starts at start.
func (p *parser) textPos(start Pos, t []byte) Pos {
	for _, c := range t {
		if !isSpace(c) {
			break
		}
		if c == '\n' {
			start.Line++
			start.Column = 1
		} else {
			start.Column++
		}
	}
	return start
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (p *parser) root(t xml.StartElement, pos Pos) *Document {
	d := &Document{RootSpace: t.Name.Space, RootLocal: t.Name.Local, Pos: pos}
	if t.Name.Space == SitemapNS {
		switch t.Name.Local {
		case "urlset":
			d.Root = RootURLSet
		case "sitemapindex":
			d.Root = RootSitemapIndex
		}
	}
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		d.Extra = append(d.Extra, Attr{Space: a.Name.Space, Local: a.Name.Local, Value: a.Value, Pos: pos})
	}
	return d
}

func (p *parser) rootChild(t xml.StartElement, pos Pos, tag []byte, entry **Entry) int {
	d := p.doc
	switch {
	case t.Name.Space == RSNS && t.Name.Local == "md":
		md := p.md(t, pos, tag)
		if d.Md == nil {
			d.Md = md
		} else {
			d.ExtraMd = append(d.ExtraMd, md)
		}
		return inSkip
	case t.Name.Space == RSNS && t.Name.Local == "ln":
		d.Links = append(d.Links, p.ln(t, pos, tag))
		return inSkip
	case t.Name.Space == SitemapNS && (t.Name.Local == "url" || t.Name.Local == "sitemap"):
		if (t.Name.Local == "url") != (d.Root != RootSitemapIndex) {
			d.MisplacedEntries = append(d.MisplacedEntries, Element{Space: t.Name.Space, Local: t.Name.Local, Pos: pos})
		}
		*entry = &Entry{Pos: pos}
		d.Entries = append(d.Entries, *entry)
		return inEntry
	}
	d.Unknown = append(d.Unknown, Element{Space: t.Name.Space, Local: t.Name.Local, Pos: pos})
	return inSkip
}

func (p *parser) entryChild(t xml.StartElement, pos Pos, tag []byte, e *Entry) int {
	switch {
	case t.Name.Space == RSNS && t.Name.Local == "md":
		md := p.md(t, pos, tag)
		if e.Md == nil {
			e.Md = md
		} else {
			e.ExtraMd = append(e.ExtraMd, md)
		}
		return inSkip
	case t.Name.Space == RSNS && t.Name.Local == "ln":
		e.Links = append(e.Links, p.ln(t, pos, tag))
		return inSkip
	case t.Name.Space == SitemapNS:
		switch t.Name.Local {
		case "loc", "lastmod", "changefreq", "priority":
			return inEntryText
		}
	}
	e.Unknown = append(e.Unknown, Element{Space: t.Name.Space, Local: t.Name.Local, Pos: pos})
	return inSkip
}

func (p *parser) setText(e *Entry, name, value string, pos Pos) {
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

// attrs walks the attributes of t, calling set for each unprefixed
// attribute and collecting the rest into extra.
func (p *parser) attrs(t xml.StartElement, pos Pos, tag []byte, set func(local string) *string) (extra []Attr, at map[string]Pos) {
	positions := attrPositions(tag, pos)
	at = make(map[string]Pos, len(t.Attr))
	for i, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		apos := pos
		if i < len(positions) {
			apos = positions[i]
		}
		if a.Name.Space == "" {
			if f := set(a.Name.Local); f != nil {
				*f = a.Value
				at[a.Name.Local] = apos
				continue
			}
		}
		extra = append(extra, Attr{Space: a.Name.Space, Local: a.Name.Local, Value: a.Value, Pos: apos})
	}
	return extra, at
}

func (p *parser) md(t xml.StartElement, pos Pos, tag []byte) *Md {
	m := &Md{Pos: pos}
	m.Extra, m.AttrPos = p.attrs(t, pos, tag, m.field)
	return m
}

func (p *parser) ln(t xml.StartElement, pos Pos, tag []byte) *Ln {
	l := &Ln{Pos: pos}
	l.Extra, l.AttrPos = p.attrs(t, pos, tag, l.field)
	return l
}

// attrPositions returns the position of each attribute (including namespace
// declarations) of the start tag, in order. encoding/xml keeps attributes in
// document order, namespace declarations included, so indexes line up.
func attrPositions(tag []byte, start Pos) []Pos {
	var out []Pos
	line, col := start.Line, start.Column
	i := 0
	adv := func() {
		if tag[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i++
	}
	if len(tag) == 0 || tag[0] != '<' {
		return nil
	}
	adv()
	for i < len(tag) && !isSpace(tag[i]) && tag[i] != '>' && tag[i] != '/' {
		adv()
	}
	for i < len(tag) {
		for i < len(tag) && isSpace(tag[i]) {
			adv()
		}
		if i >= len(tag) || tag[i] == '>' || tag[i] == '/' {
			break
		}
		out = append(out, Pos{Line: line, Column: col})
		for i < len(tag) && tag[i] != '=' {
			adv()
		}
		for i < len(tag) && tag[i] != '"' && tag[i] != '\'' {
			adv()
		}
		if i >= len(tag) {
			break
		}
		q := tag[i]
		adv()
		for i < len(tag) && tag[i] != q {
			adv()
		}
		if i < len(tag) {
			adv()
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// HasDoctype reports whether the prolog of data holds a DOCTYPE
// declaration: it skips a BOM, white space, processing instructions and
// comments up to the first markup that is neither.
func HasDoctype(data []byte) bool {
	d := bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	for {
		d = bytes.TrimLeft(d, " \t\r\n")
		switch {
		case bytes.HasPrefix(d, []byte("<?")):
			i := bytes.Index(d, []byte("?>"))
			if i < 0 {
				return false
			}
			d = d[i+2:]
		case bytes.HasPrefix(d, []byte("<!--")):
			i := bytes.Index(d[4:], []byte("-->"))
			if i < 0 {
				return false
			}
			d = d[4+i+3:]
		default:
			return bytes.HasPrefix(d, []byte("<!DOCTYPE")) || bytes.HasPrefix(d, []byte("<!doctype"))
		}
	}
}
