// Package speckeyword reads the keyword class of a specification's
// sentence: must, should or may. A rule's or a harness requirement's level
// rests on the sentence it quotes; both check it here.
//
// The specifications do not use RFC 2119 capitals: the keywords are read
// in any case. The Archives draft is read in its Japanese original.
package speckeyword

import "strings"

// Class is a class of keyword, weakest first.
type Class int

const (
	None Class = iota
	May
	Should
	Must
)

func (c Class) String() string {
	switch c {
	case May:
		return "may"
	case Should:
		return "should"
	case Must:
		return "must"
	}
	return "none"
}

// The words of each class: must, shall, mandatory, "is required" (as in
// "the use of <until> is required", not "If multiple documents are
// required"), なければならない; should, recommended, recommends, ought
// to, すべき, 推奨; may, optional, can, できます, してもよい, 任意. The
// English ones are whole words in any ASCII case (the regular expression
// (?i)\b(must|shall|mandatory|is required)\b, less its Unicode folds such
// as ſ for s), the Japanese ones anywhere: plain code, as the requirements
// of the Destination harness are checked at the start of every command
// (three regular expressions took 0.15-0.3 ms and 64 KB to compile
// and run).
var words = [...]struct{ english, japanese []string }{
	Must:   {[]string{"must", "shall", "mandatory", "is required"}, []string{"なければなりません", "なければならない", "必須"}},
	Should: {[]string{"should", "recommended", "recommends", "ought to"}, []string{"すべき", "べきで", "推奨"}},
	May:    {[]string{"may", "optional", "can"}, []string{"できます", "してもよい", "任意"}},
}

// Carries reports whether sentence has a keyword of class c (None: none
// of any class).
func Carries(sentence string, c Class) bool {
	if c == None {
		return Strongest(sentence) == None
	}
	return c > None && c <= Must && has(sentence, c)
}

// Strongest is the strongest class of keyword sentence has.
func Strongest(sentence string) Class {
	for _, c := range []Class{Must, Should, May} {
		if has(sentence, c) {
			return c
		}
	}
	return None
}

// has reports whether sentence has one of the words of class c.
func has(sentence string, c Class) bool {
	for _, w := range words[c].japanese {
		if strings.Contains(sentence, w) {
			return true
		}
	}
	for _, w := range words[c].english {
		for i := 0; i+len(w) <= len(sentence); i++ {
			if (i == 0 || !wordByte(sentence[i-1])) && lowerIs(sentence[i:i+len(w)], w) &&
				(i+len(w) == len(sentence) || !wordByte(sentence[i+len(w)])) {
				return true
			}
		}
	}
	return false
}

// wordByte reports whether b is a word character of \b: an ASCII letter,
// digit or underscore.
func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// lowerIs reports whether s, in ASCII lower case, is lower.
func lowerIs(s, lower string) bool {
	for i := range len(s) {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != lower[i] {
			return false
		}
	}
	return true
}
