package resourcesync

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestParseLengthAsParseInt holds ParseLength, which reads up to
// maxSafeLengthDigits digits itself, to strconv.ParseInt on digit strings
// of every length around the bound: the largest and smallest of each
// length, leading zeros, and the int64 limit and one past it.
func TestParseLengthAsParseInt(t *testing.T) {
	var values []string
	for n := 1; n <= 21; n++ {
		values = append(values, strings.Repeat("9", n), "1"+strings.Repeat("0", n-1), strings.Repeat("0", n), "0"+strings.Repeat("7", n))
	}
	values = append(values, "9223372036854775807", "9223372036854775808", "09223372036854775807", "999999999999999999")
	for _, v := range values {
		want, werr := strconv.ParseInt(v, 10, 64)
		got, err := ParseLength(v)
		switch {
		case werr != nil && !errors.Is(err, ErrLengthRange):
			t.Errorf("ParseLength(%q) = %d, %v; want ErrLengthRange", v, got, err)
		case werr == nil && (err != nil || got != want):
			t.Errorf("ParseLength(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
}
