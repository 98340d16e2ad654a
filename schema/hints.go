package schema

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"
	"unicode/utf8"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// libxml2 words some well-formedness errors tersely; hinted restores
// what the pure-Go parser used to say of the two most common ones, from
// libxml2's message and the bytes where it stopped, never by reading the
// document again:
//
//   - a mismatched end tag: which start tag it should close, and the
//     line that start tag is on (libxml2's message carries both names
//     and the line);
//   - a character that looks like a space but is not XML white space
//     (U+00A0 and the like, rs.InvisibleRune) where libxml2 stopped:
//     the message names it (rs.InvisibleInMarkup, worded as the pure-Go
//     parser's), since "Couldn't find end of Start Tag loc" shows a tag
//     that looks right.
//
// libxml2's message is kept at the end, in parentheses; the position is
// libxml2's.
func hinted(e Error, w window) string {
	if m := mismatch().FindStringSubmatch(e.Message); m != nil {
		open, line, end := rs.Truncate(m[1], 80), m[2], rs.Truncate(m[3], 80) // libxml2 quotes names of any length
		at := ""
		if line != "0" {
			at = " at line " + line
		}
		return fmt.Sprintf("end tag </%s> does not close the element <%s> opened%s: it should be </%s> (libxml2: %s)",
			end, open, at, open, e.Message)
	}
	if r, ok := w.runeAt(e.Line, e.Column); ok {
		if msg := rs.InvisibleInMarkup(r, "libxml2: "+e.Message); msg != "" {
			return msg
		}
	}
	return e.Message
}

// mismatch is libxml2's message of an end tag that does not close the
// element open (XML_ERR_TAG_NAME_MISMATCH).
var mismatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Opening and ending tag mismatch: (\S+) line (\d+) and (\S+)$`)
})

// piece is a slice of the document pushed into libxml2 at once, with the
// position of its first byte: line and column from 1, the column in
// characters, as libxml2 counts.
type piece struct {
	data      []byte
	line, col int
}

// window is the last two pieces pushed (prev then cur): where libxml2
// stopped when the document is not well-formed. At most 2 × chunkSize.
type window struct {
	prev, cur piece
}

// runeAt is the character at line and column (libxml2's, from 1) when the
// window holds it.
func (w window) runeAt(line, col int) (rune, bool) {
	if line <= 0 || col <= 0 {
		return 0, false
	}
	for _, p := range []piece{w.prev, w.cur} {
		l, c := p.line, p.col
		if l == 0 || l > line {
			continue
		}
		for i := 0; i < len(p.data); {
			b := p.data[i]
			if !utf8.RuneStart(b) {
				i++ // a character begun in the piece before
				continue
			}
			if l == line && c == col {
				r, _ := utf8.DecodeRune(p.data[i:])
				return r, r != utf8.RuneError
			}
			if l > line {
				break
			}
			_, n := utf8.DecodeRune(p.data[i:])
			i += n
			if b == '\n' {
				l, c = l+1, 1
			} else {
				c++
			}
		}
	}
	return 0, false
}

// next is the position after data from (line, col): columns count the
// bytes that start a character, so a character split between two pieces
// counts once.
func next(line, col int, data []byte) (int, int) {
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		line += bytes.Count(data, newline)
		col, data = 1, data[i+1:]
	}
	for _, b := range data {
		if utf8.RuneStart(b) {
			col++
		}
	}
	return line, col
}
