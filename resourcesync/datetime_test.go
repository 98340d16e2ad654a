package resourcesync_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var _ = Describe("W3C Datetime", func() {
	DescribeTable("valid forms",
		func(in string, g rs.Granularity, tzd string, want time.Time, utcz bool) {
			d, err := rs.ParseDatetime(in)
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Granularity).To(Equal(g))
			Expect(d.TZD).To(Equal(tzd))
			Expect(d.Time.Equal(want)).To(BeTrue(), "got %v want %v", d.Time, want)
			Expect(d.IsUTCZ()).To(Equal(utcz))
			Expect(d.Raw).To(Equal(in))
		},
		Entry("year", "1997", rs.GranYear, "", time.Date(1997, 1, 1, 0, 0, 0, 0, time.UTC), false),
		Entry("year and month", "1997-07", rs.GranMonth, "", time.Date(1997, 7, 1, 0, 0, 0, 0, time.UTC), false),
		Entry("complete date", "1997-07-16", rs.GranDay, "", time.Date(1997, 7, 16, 0, 0, 0, 0, time.UTC), false),
		Entry("hours and minutes", "1997-07-16T19:20+01:00", rs.GranMinute, "+01:00", time.Date(1997, 7, 16, 18, 20, 0, 0, time.UTC), false),
		Entry("seconds", "1997-07-16T19:20:30+01:00", rs.GranSecond, "+01:00", time.Date(1997, 7, 16, 18, 20, 30, 0, time.UTC), false),
		Entry("fraction", "1997-07-16T19:20:30.45+01:00", rs.GranFraction, "+01:00", time.Date(1997, 7, 16, 18, 20, 30, 450000000, time.UTC), false),
		Entry("UTC seconds", "2013-01-03T09:00:00Z", rs.GranSecond, "Z", time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), true),
		Entry("UTC fraction", "2013-01-03T09:00:00.123456789Z", rs.GranFraction, "Z", time.Date(2013, 1, 3, 9, 0, 0, 123456789, time.UTC), true),
		Entry("negative offset", "2013-01-03T09:00:00-05:30", rs.GranSecond, "-05:30", time.Date(2013, 1, 3, 14, 30, 0, 0, time.UTC), false),
		Entry("leap day", "2012-02-29", rs.GranDay, "", time.Date(2012, 2, 29, 0, 0, 0, 0, time.UTC), false),
	)
	DescribeTable("invalid values",
		func(in, reason string) {
			_, err := rs.ParseDatetime(in)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(reason))
		},
		Entry("empty", "", "4 digits"),
		Entry("two-digit year", "97-07-16", "digit"),
		Entry("time without zone", "2013-01-03T09:00:00", "time zone designator"),
		Entry("space separator", "2013-01-03 09:00:00Z", "'T'"),
		Entry("month 13", "2013-13-01", "month out of range"),
		Entry("30 February", "2013-02-30", "day out of range"),
		Entry("29 February, common year", "2013-02-29", "day out of range"),
		Entry("hour 24", "2013-01-03T24:00:00Z", "out of range"),
		Entry("seconds 60", "2013-01-03T09:00:60Z", "seconds out of range"),
		Entry("empty fraction", "2013-01-03T09:00:00.Z", "digits after the decimal point"),
		Entry("zone without colon", "2013-01-03T09:00:00+0100", "':'"),
		Entry("trailing text", "2013-01-03T09:00:00Zjunk", "unexpected characters"),
		Entry("lower-case z", "2013-01-03T09:00:00z", "time zone designator"),
		Entry("time on a month", "2013-01T09:00Z", "expected '-' after the month"),
	)
	DescribeTable("SurelyBefore: no reading of coarse values puts the first at or after the second",
		func(a, b string, want bool) {
			da, err := rs.ParseDatetime(a)
			Expect(err).NotTo(HaveOccurred())
			db, err := rs.ParseDatetime(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(da.SurelyBefore(db)).To(Equal(want))
		},
		Entry("2013-01-03T08:59:59Z before 2013-01-03T09:00:00Z", "2013-01-03T08:59:59Z", "2013-01-03T09:00:00Z", true),
		Entry("2013-01-03T09:00:00Z before 2013-01-03T09:00:00Z", "2013-01-03T09:00:00Z", "2013-01-03T09:00:00Z", false),
		Entry("2013-01-03T09:00:00.5Z before 2013-01-03T09:00:00.6Z", "2013-01-03T09:00:00.5Z", "2013-01-03T09:00:00.6Z", true),
		Entry("2013-01-03 before 2013-01-03T18:00:00Z", "2013-01-03", "2013-01-03T18:00:00Z", false),
		Entry("2013-01-02 before 2013-01-03T00:00:00Z", "2013-01-02", "2013-01-03T00:00:00Z", true),
		Entry("2013-01-03T18:00:00Z before 2013-01-03", "2013-01-03T18:00:00Z", "2013-01-03", false),
		Entry("2013 before 2013-06-01", "2013", "2013-06-01", false),
		Entry("2012 before 2013-01-01T00:00:00Z", "2012", "2013-01-01T00:00:00Z", true),
		Entry("2013-01-03T10:00:00+01:00 before 2013-01-03T09:00:00Z", "2013-01-03T10:00:00+01:00", "2013-01-03T09:00:00Z", false),
	)
	It("knows the last day of every month of years 0000-9999 as time.Date does", func() {
		for year := 0; year <= 9999; year++ {
			for month := 1; month <= 12; month++ {
				last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
				// Checked without Gomega or fmt in the loop (120,000 of
				// each cost seconds under -race); the first wrong answer
				// fails.
				ok := ymd(year, month, last)
				if _, err := rs.ParseDatetime(ok); err != nil {
					Fail(fmt.Sprintf("%s: %v", ok, err))
				}
				over := ymd(year, month, last+1)
				var de *rs.DatetimeError
				if _, err := rs.ParseDatetime(over); !errors.As(err, &de) || !strings.HasPrefix(de.Reason, "day out of range") {
					Fail(fmt.Sprintf("%s: %v, want day out of range", over, err))
				}
			}
		}
	})
	It("says with ParseDatetimeForm exactly what ParseDatetime says of a value, but the instant", func() {
		values := []string{"", "1997", "1997-07", "1997-07-16", "1997-07-16T19:20+01:00", "2013-01-03T09:00:00.5Z",
			"2013-01-03T09:00:00-05:30", "2012-02-29", "2013-02-29", "2013-01-03T24:00:00Z", "2013-01-03T09:00:00.Z",
			"2013-01-03T09:00:00+0100", "2013-01-03T09:00:00Zjunk", "2013-01T09:00Z", "2013-01-03T09:00:00+24:00"}
		// And 200,000 mutations of a value in the recommended form, most of
		// them near it (RS-TIME-UTC judges the form of every datetime).
		base := []byte("2013-01-03T09:00:00.123Z")
		alphabet := []byte("0123456789-:T.Z+z ")
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 200_000; i++ {
			v := append([]byte(nil), base[:10+rng.IntN(15)]...)
			for k := rng.IntN(4); k >= 0; k-- {
				v[rng.IntN(len(v))] = alphabet[rng.IntN(len(alphabet))]
			}
			values = append(values, string(v))
		}
		utcz := 0
		// Gomega only for a value that differs (200,000 matchers cost
		// seconds under -race).
		for _, v := range values {
			full, perr := rs.ParseDatetime(v)
			form, ferr := rs.ParseDatetimeForm(v)
			if perr != nil {
				pe, fe := perr.(*rs.DatetimeError), new(rs.DatetimeError)
				if !errors.As(ferr, &fe) || pe == nil || *fe != *pe {
					Expect(ferr).To(Equal(perr), v)
				}
				continue
			}
			full.Time = time.Time{}
			if ferr != nil || form != full {
				Expect(ferr).NotTo(HaveOccurred(), v)
				Expect(form.Time.IsZero()).To(BeTrue(), v)
				Expect(form).To(Equal(full), v)
			}
			if form.IsUTCZ() {
				utcz++
			}
		}
		Expect(utcz).To(BeNumerically(">", 1_000)) // the recommended form was tried (1,795 times)
	})
	It("formats times in the recommended UTC form", func() {
		t := time.Date(2013, 1, 3, 10, 0, 0, 0, time.FixedZone("x", 3600))
		Expect(rs.FormatDatetime(t)).To(Equal("2013-01-03T09:00:00Z"))
		Expect(rs.FormatDatetime(t.Add(500 * time.Millisecond))).To(Equal("2013-01-03T09:00:00.5Z"))
		Expect(rs.NewDatetime(t).IsUTCZ()).To(BeTrue())
	})
})

// ymd writes YYYY-MM-DD, as fmt's %04d-%02d-%02d would for these numbers.
func ymd(year, month, day int) string {
	b := []byte("0000-00-00")
	for i, n := 3, year; i >= 0; i, n = i-1, n/10 {
		b[i] = byte('0' + n%10)
	}
	b[5], b[6] = byte('0'+month/10), byte('0'+month%10)
	b[8], b[9] = byte('0'+day/10), byte('0'+day%10)
	return string(b)
}
