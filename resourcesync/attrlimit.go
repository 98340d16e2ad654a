package resourcesync

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// MaxAttributes is the number of attributes, namespace declarations
// included, an element of a document may have: rsconform refuses an
// element with more before its XML parser sees it. No ResourceSync element
// needs more than a handful (the <rs:md> of Table 3 has eleven), and
// libxml2 checks the attributes of an element for duplicates in time that
// grows with the square of their number: one element with 200,000
// attributes, 2.7 MB, took 34 s (libxml2 2.9.14), and a 50 MB document
// hours.
const MaxAttributes = 256

// AttrLimitError reports an element with more attributes than Limit: the
// document was not read further by the parser.
type AttrLimitError struct {
	Pos   Pos    // the '<' of the element's start tag
	Name  string // the element's name as written, cut at 64 bytes
	Limit int
}

func (e *AttrLimitError) Error() string {
	return fmt.Sprintf("line %d, column %d: the element <%s> has more than %d attributes (namespace declarations included)", e.Pos.Line, e.Pos.Column, e.Name, e.Limit)
}

// AttrCounter counts the attributes of every start tag of a document
// given to it in pieces, in order (Scan), before a parser sees them, and
// stops at the first element with more than Limit. It counts an
// attribute by its quoted value, which every attribute has, in start tags
// only: comments, CDATA sections, processing instructions (the XML
// declaration among them) and other markup are skipped to their end, and
// text, end tags and start tags too short to hold more than Limit values
// are skipped at the speed of bytes.IndexByte (see nextMarkup). A
// document that is not well-formed may be counted wrongly; its parser
// refuses it anyway. The zero value counts nothing; set Limit.
type AttrCounter struct {
	Limit int

	// exact reads every '<' (the tests compare it with what is skipped).
	exact bool

	state counterState
	quote byte // the quote that closes the value being read
	run   int  // closing characters seen ("--" before '>', "]]", '?')
	n     int  // quoted values of the start tag being read
	name  []byte
	off   int64 // bytes scanned before the current piece

	// Lines: line is the line the current piece starts on, lineStart the
	// offset of that line's first byte. The '<' of the markup being read
	// is at offset tagOff; its position (tag) is worked out only when it
	// is needed (tagKnown): when its element is refused, or when the piece
	// ends inside the markup. Counting the lines of every piece once, with
	// bytes.Count, instead of up to every '<', halved Scan's time.
	lineStart, tagOff int64
	line              int
	tagKnown          bool
	tag               Pos
}

type counterState uint8

const (
	inText counterState = iota
	afterLT
	afterBang     // "<!"
	afterBangDash // "<!-"
	inComment
	inCDATA
	inPI
	inDecl
	inEndTag
	inName  // the name of a start tag
	inAttrs // a start tag, between its values
	inValue
)

// Scan counts the attributes of the start tags in p, the bytes of the
// document after those of the previous calls. It returns an
// AttrLimitError at the first element with more than Limit attributes
// (nil otherwise); once it has, it returns it again.
func (c *AttrCounter) Scan(p []byte) *AttrLimitError {
	if c.Limit <= 0 {
		return nil
	}
	if c.line == 0 {
		c.line = 1
	}
	if c.state == inValue && c.n > c.Limit {
		return c.refused(p)
	}
	sp := specials{bang: -1, pi: -1}
	i := 0
	for i < len(p) {
		switch c.state {
		case inText:
			j := c.nextMarkup(p, i, &sp)
			if j < 0 {
				i = len(p)
				continue
			}
			i = j
			c.tagOff, c.tagKnown = c.off+int64(i), false
			c.state = afterLT
		case afterLT:
			switch p[i] {
			case '!':
				c.state = afterBang
			case '?':
				c.state, c.run = inPI, 0
			case '/':
				c.state = inEndTag
			default:
				c.state, c.n, c.name = inName, 0, c.name[:0]
				continue // the name's first byte
			}
		case afterBang:
			switch p[i] {
			case '-':
				c.state = afterBangDash
			case '[':
				c.state, c.run = inCDATA, 0
			default:
				c.state = inDecl
			}
		case afterBangDash:
			c.state, c.run = inDecl, 0
			if p[i] == '-' {
				c.state = inComment
			}
		case inComment, inCDATA:
			end := byte('-')
			if c.state == inCDATA {
				end = ']'
			}
			for ; i < len(p); i++ {
				switch b := p[i]; {
				case b == end:
					c.run++
				case b == '>' && c.run >= 2:
					c.state = inText
				default:
					c.run = 0
				}
				if c.state == inText {
					break
				}
			}
		case inPI:
			for ; i < len(p) && c.state == inPI; i++ {
				if p[i] == '>' && c.run == 1 {
					c.state = inText
				}
				c.run = 0
				if p[i] == '?' {
					c.run = 1
				}
			}
			continue
		case inDecl, inEndTag:
			j := bytes.IndexByte(p[i:], '>')
			if j < 0 {
				i = len(p)
				continue
			}
			i += j
			c.state = inText
		case inName:
			start := i
			for ; i < len(p); i++ {
				if b := p[i]; b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '/' || b == '>' {
					c.state = inAttrs
					break
				}
			}
			// Kept for the message, cut at 64 bytes (the name may go
			// on in the next piece).
			c.name = append(c.name, p[start:min(i, start+max(64-len(c.name), 0))]...)
			continue
		case inAttrs:
			// A hand loop: what separates two values is a few bytes, too
			// short for bytes.IndexAny to pay off.
			for i < len(p) && p[i] != '"' && p[i] != '\'' && p[i] != '>' {
				i++
			}
			if i == len(p) {
				continue
			}
			if p[i] == '>' {
				c.state = inText
				break
			}
			c.n++
			c.state, c.quote = inValue, p[i]
			if c.n > c.Limit {
				return c.refused(p)
			}
		case inValue:
			j := bytes.IndexByte(p[i:], c.quote)
			if j < 0 {
				i = len(p)
				continue
			}
			i += j
			c.state = inAttrs
		}
		i++
	}
	if c.state != inText {
		c.locateTag(p) // the markup goes on in the next piece
	}
	c.advance(p)
	return nil
}

// specials caches where the next "<!" and "<?" of a piece are (-1: not
// looked for yet, len(p): none), so that each is looked for once a piece.
type specials struct{ bang, pi int }

// next is the index of the first "<!" or "<?" in p at or after i, len(p)
// when there is none.
func (sp *specials) next(p []byte, i int) int {
	if sp.bang < i {
		sp.bang = indexMarkup(p, i, '!')
	}
	if sp.pi < i {
		sp.pi = indexMarkup(p, i, '?')
	}
	return min(sp.bang, sp.pi)
}

// indexMarkup is the index of the first '<' followed by c in p at or after
// i, len(p) when there is none. It looks for c, rarer than '<' (which
// bytes.Index would stop at every time).
func indexMarkup(p []byte, i int, c byte) int {
	for j := i + 1; j < len(p); j++ {
		k := bytes.IndexByte(p[j:], c)
		if k < 0 {
			break
		}
		j += k
		if p[j-1] == '<' {
			return j - 1
		}
	}
	return len(p)
}

// nextMarkup is the index of the next '<' in p from i on (in text) that
// the exact scan must read, -1 when there is none: the start tags and end
// tags before it are skipped at the speed of bytes.IndexByte, since none
// of them can hold more than Limit quoted values.
//
// In a well-formed document every '<' in text starts markup, and none is
// inside a start tag (an attribute value cannot hold one), so a start tag
// ends before the next '<'; each quoted value takes at least two bytes,
// so a start tag over the limit spans at least short bytes from its '<'
// to the next '<'. Only a '<' followed by a longer stretch without '<' is
// read exactly, with the comments, CDATA sections, processing
// instructions and declarations ("<!", "<?", which may hold '<'), and the
// last '<' of the piece (its markup may go on in the next piece, and the
// exact scan carries its state over). libxml2 reads a document the same
// way up to its first fatal error and no further than the markup holding
// it: in a document that is not well-formed, no start tag libxml2 reads
// holds more quoted values than the bytes before the next '<' allow
// either.
func (c *AttrCounter) nextMarkup(p []byte, i int, sp *specials) int {
	j := bytes.IndexByte(p[i:], '<')
	if j < 0 {
		return -1
	}
	if c.exact {
		return i + j
	}
	short := 2*c.Limit + 4 // '<', a name, Limit+1 values of two bytes
	for a := i + j; ; {
		s := sp.next(p, a)
		if s == a {
			return a
		}
		// a starts a start tag or an end tag, and so does every '<'
		// before s. The next '<' within short bytes of a, if any.
		end := a + short
		if end > s {
			if s == len(p) {
				return a // the stretch may go on in the next piece
			}
			return s // and every '<' before it is within short of the next
		}
		b := lastIndexLT(p[a+1 : end])
		if b < 0 {
			return a // a long stretch: a may be a start tag over the limit
		}
		a += 1 + b
	}
}

// lastIndexLT is bytes.LastIndexByte(b, '<'), which is a loop over the
// bytes from the end (internal/bytealg has no assembly for it): it reads
// 8 bytes at a time, a word without '<' in a few operations, and looks
// byte by byte only in the word that has one (nextMarkup asks for every
// stretch of tags: 10 M instructions on a 50,000-entry list).
func lastIndexLT(b []byte) int {
	const ones, highs, lts = 0x0101010101010101, 0x8080808080808080, 0x0101010101010101 * '<'
	i := len(b)
	for ; i >= 8; i -= 8 {
		// A byte of x is zero where b has '<'; (x-ones)&^x&highs is not
		// zero exactly when one is.
		x := binary.LittleEndian.Uint64(b[i-8:i]) ^ lts
		if (x-ones)&^x&highs != 0 {
			break
		}
	}
	for i > 0 {
		i--
		if b[i] == '<' {
			return i
		}
	}
	return -1
}

// advance moves past the piece p: its lines are counted.
func (c *AttrCounter) advance(p []byte) {
	if k := bytes.Count(p, newlineByte); k > 0 {
		c.line += k
		c.lineStart = c.off + int64(bytes.LastIndexByte(p, '\n')) + 1
	}
	c.off += int64(len(p))
}

// locateTag works out the position of the '<' at tagOff when it is in
// the piece p (the bytes from offset off): the lines before it in p are
// counted.
func (c *AttrCounter) locateTag(p []byte) {
	if c.tagKnown || c.tagOff < c.off {
		return
	}
	seg := p[:c.tagOff-c.off]
	line, start := c.line, c.lineStart
	if k := bytes.Count(seg, newlineByte); k > 0 {
		line += k
		start = c.off + int64(bytes.LastIndexByte(seg, '\n')) + 1
	}
	c.tag, c.tagKnown = Pos{Line: line, Column: int(c.tagOff-start) + 1}, true
}

var newlineByte = []byte{'\n'}

// refused is the error for the element being read, refused in the piece
// p (it is not advanced past: Scan says the same again).
func (c *AttrCounter) refused(p []byte) *AttrLimitError {
	c.locateTag(p)
	return &AttrLimitError{Pos: c.tag, Name: string(c.name), Limit: c.Limit}
}
