package reporter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Messages quote the documents they are about, and documents come from
// anywhere: a message may hold invalid UTF-8, control characters or
// terminal escape sequences. Each format makes them safe for its medium.

// xmlSafe makes s legal XML 1.0 character data: invalid UTF-8 becomes
// U+FFFD and characters outside the Char production (C0 controls other than
// tab, LF and CR; U+FFFE, U+FFFF) are dropped. Escaping of <, & and quotes
// is left to encoding/xml.
func xmlSafe(s string) string {
	if isXMLSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case isXMLChar(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isXMLSafe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !isXMLChar(r) {
			return false
		}
		i += n
	}
	return true
}

// isXMLChar is the Char production of XML 1.0 (fifth edition).
func isXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// termSafe makes s safe to print on a terminal: invalid UTF-8 becomes
// U+FFFD and control characters (C0, DEL, C1) are shown escaped, as \x1b,
// so that a document cannot move the cursor or change colours; bidi
// controls are escaped too, so that text cannot display reordered. Newlines
// are kept when keepNewlines is set (the caller indents what follows).
func termSafe(s string, keepNewlines bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\r' && keepNewlines && strings.HasPrefix(s[i:], "\n"):
			// CRLF is a newline too.
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || (r >= 0x7F && r <= 0x9F):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBidiControl reports the explicit directional formatting characters
// (embeddings, overrides, isolates) that reorder the display of text.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// TermSafe is termSafe for one line of a command's own messages (a
// scenario's name, from a YAML file, in test-destination's progress).
func TermSafe(s string) string { return termSafe(s, false) }
