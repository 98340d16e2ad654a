// Package suggest finds the closest of a few names to a mistyped one, for
// "did you mean" hints.
package suggest

import (
	"strconv"
	"strings"
)

// Closest is the candidate closest to s, when it is close enough to be a
// typo of it (edit distance at most a third of its length, and at most
// 3; case ignored), or "".
func Closest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := min(3, max(1, len(s)/3))
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// DidYouMean is Hint of the closest candidate: " (did you mean X?)", or
// "".
func DidYouMean(s string, candidates []string) string {
	return Hint(Closest(s, candidates))
}

// DidYouMeanQuoted is DidYouMean with the candidate quoted as %q quotes
// it, for a message that quotes the name it hints at (a key of a YAML
// file): " (did you mean "X"?)", or "".
func DidYouMeanQuoted(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return Hint(strconv.Quote(c))
	}
	return ""
}

// Hint is the hint in parentheses after a message, " (did you mean X?)",
// for x written as the message writes names (--flag, "key"); "" for "".
func Hint(x string) string {
	if x == "" {
		return ""
	}
	return " (" + Phrase(x) + ")"
}

// Phrase is the hint's one wording, "did you mean X?", for a hint that is
// not in parentheses after a message.
func Phrase(x string) string { return "did you mean " + x + "?" }

// editDistance is the optimal string alignment distance between a and b,
// in bytes: insertions, deletions, substitutions and transpositions of
// two neighbours ("crwal") count one each.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
