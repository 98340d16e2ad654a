// Package speckeyword reads the keyword class of a specification's
// sentence: must, should or may. A rule's or a harness requirement's level
// rests on the sentence it quotes; both check it here.
//
// The specifications do not use RFC 2119 capitals: the keywords are read
// in any case. The Archives draft is read in its Japanese original.
package speckeyword

import "regexp"

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
// to, すべき, 推奨; may, optional, can, できます, してもよい, 任意.
var words = map[Class]*regexp.Regexp{
	Must:   regexp.MustCompile(`(?i)\b(must|shall|mandatory|is required)\b|なければなりません|なければならない|必須`),
	Should: regexp.MustCompile(`(?i)\b(should|recommended|recommends|ought to)\b|すべき|べきで|推奨`),
	May:    regexp.MustCompile(`(?i)\b(may|optional|can)\b|できます|してもよい|任意`),
}

// Carries reports whether sentence has a keyword of class c (None: none
// of any class).
func Carries(sentence string, c Class) bool {
	if c == None {
		return Strongest(sentence) == None
	}
	re := words[c]
	return re != nil && re.MatchString(sentence)
}

// Strongest is the strongest class of keyword sentence has.
func Strongest(sentence string) Class {
	for _, c := range []Class{Must, Should, May} {
		if words[c].MatchString(sentence) {
			return c
		}
	}
	return None
}
