// Package digits writes numbers for people, the one way every report,
// rule message and harness verdict of rsconform writes them.
package digits

import "strconv"

// Grouped writes n with a comma every three digits: 52,428,800; -1,024.
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	b := make([]byte, 0, len(s)+len(s)/3)
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return sign + string(b)
}
