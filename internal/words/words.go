// Package words holds the one way messages count things: "1 error",
// "2 errors", "1 fetch", "3 fetches". Reporters, the harness, the rules,
// the monitor and the commands all word counts through it.
package words

import (
	"strconv"
	"strings"
)

// Noun is word as it stands after the count n: itself when n is 1, its
// plural otherwise (see Plural).
func Noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return Plural(word)
}

// Count is n followed by Noun(n, word): "1 resource", "2 resources".
func Count(n int, word string) string {
	return strconv.Itoa(n) + " " + Noun(n, word)
}

// Plural is the English plural of a regular noun: -es after s, x, z, ch
// and sh ("fetches", "indexes"), -ies for a y after a consonant
// ("entries"), -s otherwise.
func Plural(word string) string {
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(word, end) {
			return word + "es"
		}
	}
	if n := len(word); n >= 2 && word[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[n-2])) {
		return word[:n-1] + "ies"
	}
	return word + "s"
}
