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
}

func (p *parser) pos() Pos {
	l, c := p.dec.InputPos()
	return Pos{Line: l, Column: c}
}

// TruncatedMessage is the SyntaxError message of a document that ends
// before its root element does, whichever parser read it.
const TruncatedMessage = "unexpected end of input: the document is truncated or empty"

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
		msg = TruncatedMessage
	}
	return &SyntaxError{Pos: pos, Msg: msg}
}

func (p *parser) parse() (*Document, error) {
	if err := CheckEncoding(p.data); err != nil {
		return nil, err
	}
	b := NewBuilder()
	var attrs []XMLAttr
	depth := 0
	rootSeen := false
	for {
		start := p.pos()
		off := int(p.dec.InputOffset())
		tok, err := p.dec.Token()
		end := int(p.dec.InputOffset()) // past the token: a start tag's '>'
		if err == io.EOF {
			if !rootSeen {
				return nil, &SyntaxError{Pos: start, Msg: "no root element"}
			}
			break
		}
		if err != nil {
			return nil, p.located(start, off, err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if isHTMLDoctype(t) {
				return nil, &SyntaxError{Pos: start, Msg: htmlDoctypeMessage}
			}
			if bytes.HasPrefix(bytes.TrimSpace(t), []byte("DOCTYPE")) {
				return nil, &SyntaxError{Pos: start, Msg: doctypeMessage}
			}
			return nil, &SyntaxError{Pos: start, Msg: "unexpected markup declaration <!" + Truncate(string(t), 40) + ">"}
		case xml.CharData:
			if depth == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, &SyntaxError{Pos: p.textPos(start, t), Msg: "text outside the root element"}
				}
				continue
			}
			b.Text(string(t))
		case xml.StartElement:
			if depth == 0 && rootSeen {
				return nil, &SyntaxError{Pos: start, Msg: "a second root element <" + t.Name.Local + ">: a document has exactly one root"}
			}
			rootSeen = true
			depth++
			attrs = attrs[:0]
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				attrs = append(attrs, XMLAttr{Space: a.Name.Space, Local: a.Name.Local, Value: a.Value})
			}
			var tag []byte
			if off >= 0 && off < end && end <= len(p.data) {
				tag = p.data[off:end] // the start tag alone (a Builder may copy it)
			}
			b.StartElement(t.Name.Space, t.Name.Local, attrs, tag, start)
		case xml.EndElement:
			depth--
			b.EndElement()
		}
	}
	return b.Document(), nil
}

// located is the syntax error of the token that starts at start (byte
// offset off), placed where the problem starts: a mismatched end tag at
// its "</", an invisible character (U+00A0 and the like, which editors and
// word processors slip in) at the character, named, since the message
// would otherwise show a name that looks right.
func (p *parser) located(start Pos, off int, err error) error {
	se, ok := p.syntax(p.pos(), err).(*SyntaxError)
	if !ok {
		return p.syntax(p.pos(), err)
	}
	end := min(int(p.dec.InputOffset()), len(p.data))
	if off < 0 || off > end {
		return se
	}
	for i := off; i < end; {
		r, n := utf8.DecodeRune(p.data[i:])
		if msg := InvisibleInMarkup(r, strings.ReplaceAll(se.Msg, string(r), fmt.Sprintf("<U+%04X>", r))); msg != "" {
			return &SyntaxError{Pos: p.advance(start, p.data[off:i]), Msg: msg}
		}
		i += n
	}
	if strings.Contains(se.Msg, " closed by </") || strings.HasPrefix(se.Msg, "unexpected end element") {
		// The decoder stops after the end tag's ">"; the tag starts at "</".
		se.Pos = p.advance(start, p.data[off:end])
		if k := bytes.LastIndex(p.data[off:end], []byte("</")); k >= 0 {
			se.Pos = p.advance(start, p.data[off:off+k])
		}
	}
	return se
}

// advance is the position after skipping b from pos (columns in bytes, as
// the decoder counts them).
func (p *parser) advance(pos Pos, b []byte) Pos {
	for _, c := range b {
		if c == '\n' {
			pos.Line++
			pos.Column = 1
		} else {
			pos.Column++
		}
	}
	return pos
}

// InvisibleInMarkup is the message of r where a parser stopped in
// markup, when InvisibleRune names r, ending with the parser's own message
// (detail) in parentheses; "" for any other character. Both parsers (this
// package's and libxml2's front end, schema) word it here.
func InvisibleInMarkup(r rune, detail string) string {
	name := InvisibleRune(r)
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%s is not XML whitespace (it looks like a space, or like nothing): in markup XML allows only "+
		"spaces, tabs and line breaks between names and attributes; replace it with a space or remove it (%s)", name, detail)
}

// InvisibleRune names the characters that look like a space, or like
// nothing, and are not XML white space ("U+00A0 (NO-BREAK SPACE)"); ""
// for any other. Editors and word processors slip them into markup, where
// a message would otherwise show a name that looks right.
func InvisibleRune(r rune) string {
	switch r {
	case 0x00A0:
		return "U+00A0 (NO-BREAK SPACE)"
	case 0x00AD:
		return "U+00AD (SOFT HYPHEN)"
	case 0x200B:
		return "U+200B (ZERO WIDTH SPACE)"
	case 0x200C:
		return "U+200C (ZERO WIDTH NON-JOINER)"
	case 0x200D:
		return "U+200D (ZERO WIDTH JOINER)"
	case 0x2060:
		return "U+2060 (WORD JOINER)"
	case 0xFEFF:
		return "U+FEFF (ZERO WIDTH NO-BREAK SPACE, a byte order mark)"
	case 0x202F:
		return "U+202F (NARROW NO-BREAK SPACE)"
	case 0x205F:
		return "U+205F (MEDIUM MATHEMATICAL SPACE)"
	case 0x3000:
		return "U+3000 (IDEOGRAPHIC SPACE)"
	}
	if r >= 0x2000 && r <= 0x200A {
		return fmt.Sprintf("U+%04X (a typographic space)", r)
	}
	return ""
}

// isHTMLDoctype reports whether a directive is an HTML document type
// declaration (<!DOCTYPE html ...>, any case).
func isHTMLDoctype(d []byte) bool {
	f := bytes.Fields(d)
	return len(f) >= 2 && bytes.EqualFold(f[0], []byte("DOCTYPE")) && bytes.EqualFold(bytes.TrimSuffix(f[1], []byte(">")), []byte("html"))
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

// Truncate bounds s to n bytes at a character boundary, with "…" when cut
// (for names and text quoted from a document in messages).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// CheckEncoding refuses what Sitemap documents may not be before any XML
// parser sees them: empty input, UTF-16 and UTF-32 (by a byte order mark,
// or by the first characters "<?" the way XML parsers detect them without
// one, XML 1.0 appendix F), EBCDIC ("<?xm" so) and an XML declaration
// naming an encoding other than UTF-8. (Invalid UTF-8 bytes are left to the
// parser, which reports where they are.) libxml2 would read such a
// document, and the checks made on its bytes before libxml2 sees it (the
// attribute count, AttrCounter) assume an encoding where '<', '>' and the
// quotes are bytes of their own.
func CheckEncoding(data []byte) *SyntaxError {
	for _, sig := range encodingSignatures {
		if bytes.HasPrefix(data, []byte(sig.prefix)) {
			return &SyntaxError{Pos: Pos{1, 1}, Msg: "the document is " + sig.name + " encoded: Sitemap documents must be UTF-8 encoded"}
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &SyntaxError{Pos: Pos{1, 1}, Msg: "the document is empty"}
	}
	d := bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	if !bytes.HasPrefix(d, []byte("<?xml")) {
		return nil
	}
	end := bytes.Index(d, []byte("?>"))
	if end < 0 {
		return nil // the parser reports the unfinished declaration
	}
	decl := d[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return nil
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < 2 || (rest[0] != '"' && rest[0] != '\'') {
		return nil
	}
	j := bytes.IndexByte(rest[1:], rest[0])
	if j < 0 {
		return nil
	}
	enc := string(rest[1 : 1+j])
	if strings.EqualFold(enc, "UTF-8") || strings.EqualFold(enc, "UTF8") {
		return nil
	}
	col := len(data) - len(d) + i + 1
	return &SyntaxError{Pos: Pos{1, col}, Msg: fmt.Sprintf("encoding %q declared: Sitemap documents must be UTF-8 encoded", enc)}
}

// encodingSignatures are the first bytes of documents in the encodings
// XML parsers detect from them (XML 1.0 appendix F), UTF-32 before UTF-16
// (FF FE 00 00 is UTF-32's byte order mark).
var encodingSignatures = []struct{ prefix, name string }{
	{"\x00\x00\xFE\xFF", "UTF-32"}, {"\xFF\xFE\x00\x00", "UTF-32"},
	{"\x00\x00\x00<", "UTF-32"}, {"<\x00\x00\x00", "UTF-32"}, {"\x00\x00<\x00", "UTF-32"}, {"\x00<\x00\x00", "UTF-32"},
	{"\xFE\xFF", "UTF-16"}, {"\xFF\xFE", "UTF-16"}, {"\x00<\x00?", "UTF-16"}, {"<\x00?\x00", "UTF-16"},
	{"\x4C\x6F\xA7\x94", "EBCDIC"},
}

// The messages of a refused DOCTYPE, whichever reader refuses it.
const (
	doctypeMessage     = "DOCTYPE declarations are not allowed (they can declare entities that expand or load external files); Sitemap documents have none"
	htmlDoctypeMessage = "this is an HTML page (<!DOCTYPE html>), not a ResourceSync document: give the URL or file of a Source Description, Capability List or other ResourceSync document, or crawl the site ('rsconform crawl URL' finds them through the page's <link rel=\"resourcesync\">)"
)

// HasDoctype reports whether the prolog of data holds a DOCTYPE
// declaration: it skips a BOM, white space, processing instructions and
// comments up to the first markup that is neither.
func HasDoctype(data []byte) bool { return DoctypeError(data) != nil }

// DoctypeError is the SyntaxError of a DOCTYPE declaration in the prolog of
// data (see HasDoctype), at the position of its "<!", worded as Parse
// words it; nil when the prolog holds none. A reader that refuses DOCTYPEs
// before any XML parser sees them (rsconform's libxml2 front end) reports
// it with this.
func DoctypeError(data []byte) *SyntaxError {
	d := bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	for {
		d = bytes.TrimLeft(d, " \t\r\n")
		switch {
		case bytes.HasPrefix(d, []byte("<?")):
			i := bytes.Index(d, []byte("?>"))
			if i < 0 {
				return nil
			}
			d = d[i+2:]
		case bytes.HasPrefix(d, []byte("<!--")):
			i := bytes.Index(d[4:], []byte("-->"))
			if i < 0 {
				return nil
			}
			d = d[4+i+3:]
		case bytes.HasPrefix(d, []byte("<!DOCTYPE")) || bytes.HasPrefix(d, []byte("<!doctype")):
			msg := doctypeMessage
			end := bytes.IndexByte(d, '>')
			if end < 0 {
				end = len(d)
			}
			if isHTMLDoctype(d[2:end]) {
				msg = htmlDoctypeMessage
			}
			return &SyntaxError{Pos: positionOf(data, len(data)-len(d)), Msg: msg}
		default:
			return nil
		}
	}
}

// positionOf is the line and column (in bytes, as Parse counts them) of
// byte off of data.
func positionOf(data []byte, off int) Pos {
	before := data[:off]
	return Pos{Line: bytes.Count(before, []byte{'\n'}) + 1, Column: off - bytes.LastIndexByte(before, '\n')}
}
