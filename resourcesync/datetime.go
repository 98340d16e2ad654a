package resourcesync

import (
	"fmt"
	"strconv"
	"time"
)

// Granularity is which of the six forms of the W3C Datetime note
// (https://www.w3.org/TR/NOTE-datetime) a value uses.
type Granularity int

const (
	GranYear     Granularity = iota + 1 // YYYY
	GranMonth                           // YYYY-MM
	GranDay                             // YYYY-MM-DD
	GranMinute                          // YYYY-MM-DDThh:mmTZD
	GranSecond                          // YYYY-MM-DDThh:mm:ssTZD
	GranFraction                        // YYYY-MM-DDThh:mm:ss.sTZD
)

func (g Granularity) String() string {
	switch g {
	case GranYear:
		return "YYYY"
	case GranMonth:
		return "YYYY-MM"
	case GranDay:
		return "YYYY-MM-DD"
	case GranMinute:
		return "YYYY-MM-DDThh:mmTZD"
	case GranSecond:
		return "YYYY-MM-DDThh:mm:ssTZD"
	case GranFraction:
		return "YYYY-MM-DDThh:mm:ss.sTZD"
	}
	return "invalid"
}

// Datetime is a parsed W3C Datetime. Time is the instant it denotes: forms
// without a time denote the start of the year, month or day in UTC.
type Datetime struct {
	Time        time.Time
	Granularity Granularity
	// TZD is the time zone designator as written: "Z", "+hh:mm", "-hh:mm",
	// or "" for the date-only forms.
	TZD string
	Raw string
}

// IsUTCZ reports whether the value is the form the specification
// recommends: a complete date and time in UTC, YYYY-MM-DDThh:mm:ss[.s]Z.
func (d Datetime) IsUTCZ() bool {
	return d.TZD == "Z" && (d.Granularity == GranSecond || d.Granularity == GranFraction)
}

func (d Datetime) String() string { return d.Raw }

// End is the end (exclusive) of the period the value denotes: "2013" is the
// whole year, "2013-01-03" the whole day, "2013-01-03T09:00Z" the whole
// minute, a value with seconds the whole second; a value with fractional
// seconds denotes an instant.
func (d Datetime) End() time.Time {
	switch d.Granularity {
	case GranYear:
		return d.Time.AddDate(1, 0, 0)
	case GranMonth:
		return d.Time.AddDate(0, 1, 0)
	case GranDay:
		return d.Time.AddDate(0, 0, 1)
	case GranMinute:
		return d.Time.Add(time.Minute)
	case GranSecond:
		return d.Time.Add(time.Second)
	}
	return d.Time.Add(time.Nanosecond)
}

// SurelyBefore reports whether every instant d denotes is before every
// instant o denotes: no reading of the two values puts d at or after o.
func (d Datetime) SurelyBefore(o Datetime) bool { return !d.End().After(o.Time) }

// DatetimeError says why a value is not a W3C Datetime; Offset is the byte
// offset in the value where it goes wrong.
type DatetimeError struct {
	Value  string
	Offset int
	Reason string
}

func (e *DatetimeError) Error() string {
	return fmt.Sprintf("%q is not a W3C Datetime: %s (at character %d)", e.Value, e.Reason, e.Offset+1)
}

// ParseDatetime parses any of the six W3C Datetime forms.
func ParseDatetime(s string) (Datetime, error) { return parseDatetime(s, true) }

// ParseDatetimeForm is ParseDatetime for a caller that judges only the
// form of a value (whether it is a W3C Datetime, its granularity, its time
// zone designator): the same errors and the same Datetime, but for Time,
// which it leaves zero (computing the instant is most of a parse).
func ParseDatetimeForm(s string) (Datetime, error) { return parseDatetime(s, false) }

func parseDatetime(s string, instant bool) (Datetime, error) {
	if d, ok := parseUTCSeconds(s, instant); ok {
		return d, nil
	}
	p := dtParser{s: s, instant: instant}
	d, err := p.parse()
	if err != nil {
		return Datetime{}, err
	}
	d.Raw = s
	return d, nil
}

// FormatDatetime writes t in the recommended form, in UTC, with fractional
// seconds only when t has them.
func FormatDatetime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() != 0 {
		return t.Format("2006-01-02T15:04:05.999999999Z")
	}
	return t.Format("2006-01-02T15:04:05Z")
}

// NewDatetime returns the Datetime for t in the recommended form.
func NewDatetime(t time.Time) Datetime {
	d, err := ParseDatetime(FormatDatetime(t))
	if err != nil {
		panic("resourcesync: FormatDatetime produced an unparsable value: " + err.Error())
	}
	return d
}

// parseUTCSeconds reads the recommended form without a fraction,
// YYYY-MM-DDThh:mm:ssZ, the form of nearly every datetime of a list, in
// one look at its 20 bytes, as dtParser.parse reads it; ok is false for
// any other value, valid or not (parse reads it then, and says what is
// wrong).
func parseUTCSeconds(s string, instant bool) (d Datetime, ok bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return d, false
	}
	hi, lo := two(s[0], s[1]), two(s[2], s[3])
	month, day := two(s[5], s[6]), two(s[8], s[9])
	hour, minute, sec := two(s[11], s[12]), two(s[14], s[15]), two(s[17], s[18])
	if hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return d, false
	}
	year := hi*100 + lo
	if day > daysIn(year, month) {
		return d, false
	}
	d = Datetime{Granularity: GranSecond, TZD: "Z", Raw: s}
	if instant {
		d.Time = time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	}
	return d, true
}

// two is the number the decimal digits a and b write, or -1.
func two(a, b byte) int {
	if a < '0' || a > '9' || b < '0' || b > '9' {
		return -1
	}
	return int(a-'0')*10 + int(b-'0')
}

type dtParser struct {
	s       string
	pos     int
	instant bool // compute Datetime.Time
}

func (p *dtParser) fail(reason string) error {
	return &DatetimeError{Value: p.s, Offset: p.pos, Reason: reason}
}

func (p *dtParser) digits(n int, what string) (int, error) {
	if p.pos+n > len(p.s) {
		return 0, p.fail(fmt.Sprintf("expected %d digits for %s", n, what))
	}
	v := 0
	for i := 0; i < n; i++ {
		c := p.s[p.pos+i]
		if c < '0' || c > '9' {
			p.pos += i
			return 0, p.fail(fmt.Sprintf("expected a digit for %s", what))
		}
		v = v*10 + int(c-'0')
	}
	p.pos += n
	return v, nil
}

func (p *dtParser) expect(c byte, what string) error {
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return p.fail(fmt.Sprintf("expected %q %s", c, what))
	}
	p.pos++
	return nil
}

func (p *dtParser) done() bool { return p.pos == len(p.s) }

func (p *dtParser) parse() (Datetime, error) {
	var d Datetime
	year, err := p.digits(4, "the year")
	if err != nil {
		return d, err
	}
	month, day := 1, 1
	d.Granularity = GranYear
	if !p.done() {
		if err := p.expect('-', "after the year"); err != nil {
			return d, err
		}
		if month, err = p.digits(2, "the month"); err != nil {
			return d, err
		}
		if month < 1 || month > 12 {
			p.pos -= 2
			return d, p.fail("month out of range 01-12")
		}
		d.Granularity = GranMonth
	}
	if !p.done() {
		if err := p.expect('-', "after the month"); err != nil {
			return d, err
		}
		if day, err = p.digits(2, "the day"); err != nil {
			return d, err
		}
		if day < 1 || day > daysIn(year, month) {
			p.pos -= 2
			return d, p.fail("day out of range for the month")
		}
		d.Granularity = GranDay
	}
	if p.done() {
		if p.instant {
			d.Time = time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
		}
		return d, nil
	}
	if d.Granularity != GranDay {
		return d, p.fail("unexpected character")
	}
	if err := p.expect('T', "between date and time"); err != nil {
		return d, err
	}
	hour, err := p.digits(2, "the hour")
	if err != nil {
		return d, err
	}
	if err := p.expect(':', "after the hour"); err != nil {
		return d, err
	}
	minute, err := p.digits(2, "the minutes")
	if err != nil {
		return d, err
	}
	if hour > 23 || minute > 59 {
		return d, p.fail("hour or minute out of range")
	}
	d.Granularity = GranMinute
	sec, nsec := 0, 0
	if p.pos < len(p.s) && p.s[p.pos] == ':' {
		p.pos++
		if sec, err = p.digits(2, "the seconds"); err != nil {
			return d, err
		}
		if sec > 59 {
			p.pos -= 2
			return d, p.fail("seconds out of range 00-59")
		}
		d.Granularity = GranSecond
		if p.pos < len(p.s) && p.s[p.pos] == '.' {
			p.pos++
			start := p.pos
			for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
				p.pos++
			}
			frac := p.s[start:p.pos]
			if frac == "" {
				return d, p.fail("expected digits after the decimal point")
			}
			if len(frac) > 9 {
				frac = frac[:9]
			}
			n, _ := strconv.Atoi(frac)
			for i := len(frac); i < 9; i++ {
				n *= 10
			}
			nsec = n
			d.Granularity = GranFraction
		}
	}
	if p.done() {
		return d, p.fail("a time needs a time zone designator (Z or +hh:mm or -hh:mm)")
	}
	loc := time.UTC
	switch c := p.s[p.pos]; c {
	case 'Z':
		p.pos++
		d.TZD = "Z"
	case '+', '-':
		start := p.pos
		p.pos++
		th, err := p.digits(2, "the time zone hours")
		if err != nil {
			return d, err
		}
		if err := p.expect(':', "in the time zone designator"); err != nil {
			return d, err
		}
		tm, err := p.digits(2, "the time zone minutes")
		if err != nil {
			return d, err
		}
		if th > 23 || tm > 59 {
			return d, p.fail("time zone offset out of range")
		}
		off := th*3600 + tm*60
		if c == '-' {
			off = -off
		}
		d.TZD = p.s[start:p.pos]
		if p.instant {
			loc = time.FixedZone(d.TZD, off)
		}
	default:
		return d, p.fail("expected a time zone designator (Z or +hh:mm or -hh:mm)")
	}
	if !p.done() {
		return d, p.fail("unexpected characters after the time zone designator")
	}
	if p.instant {
		d.Time = time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	}
	return d, nil
}

// daysIn is the number of days of month (1-12) of year in the proleptic
// Gregorian calendar, time.Date's.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
