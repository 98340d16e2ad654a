package document

import (
	"errors"
	"fmt"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// zoneFix is the fix RS-TIME-W3C shows for a datetime with a time but no
// time zone designator, the form a language's default datetime formatting
// gives (Python's isoformat() of a naive datetime writes
// "2018-11-06T17:41:16.901455"): the value in UTC, or with its offset.
// It is "" for any other error.
func zoneFix(value string, err error) string {
	var de *rs.DatetimeError
	if !errors.As(err, &de) || de.Offset != len(value) || !strings.Contains(de.Reason, "time zone designator") {
		return ""
	}
	return fmt.Sprintf("; if the time is UTC write %q, otherwise give its offset from UTC, e.g. %q", value+"Z", value+"+01:00")
}
