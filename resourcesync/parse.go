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

func (p *parser) parse() (*Document, error) {
	if err := CheckEncoding(p.data); err != nil {
		return nil, err
	}
	b := NewBuilder(p.data)
	var attrs []XMLAttr
	depth := 0
	rootSeen := false
	for {
		start := p.pos()
		off := int(p.dec.InputOffset())
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
			b.StartElement(t.Name.Space, t.Name.Local, attrs, off, start)
		case xml.EndElement:
			depth--
			b.EndElement()
		}
	}
	return b.Document(), nil
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

// CheckEncoding refuses what Sitemap documents may not be before any XML
// parser sees them: empty input, UTF-16 (by its byte order mark) and an XML
// declaration naming an encoding other than UTF-8. (Invalid UTF-8 bytes are
// left to the parser, which reports where they are.)
func CheckEncoding(data []byte) *SyntaxError {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return &SyntaxError{Pos: Pos{1, 1}, Msg: "the document is UTF-16 encoded: Sitemap documents must be UTF-8 encoded"}
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
