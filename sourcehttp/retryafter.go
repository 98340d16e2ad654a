package sourcehttp

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfterSeconds caps delay-seconds before they become a Duration:
// a Source sending 99999999999999999999 must not overflow into a negative
// wait. A hundred years is longer than any MaxRetryWait.
const maxRetryAfterSeconds = 100 * 365 * 24 * 3600

// ParseRetryAfter reads a Retry-After value, delay-seconds or an HTTP-date
// (RFC 9110, 10.2.3), as a wait from now. A date in the past is a wait of
// zero; a huge number of seconds is capped (never an overflow). ok is
// false when the value is absent or malformed.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > maxRetryAfterSeconds { // too many digits for uint64, or just huge
			n = maxRetryAfterSeconds
		}
		if time.Duration(n) > math.MaxInt64/time.Second {
			n = uint64(math.MaxInt64 / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
