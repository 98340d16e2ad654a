package resourcesync_test

import (
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
	It("formats times in the recommended UTC form", func() {
		t := time.Date(2013, 1, 3, 10, 0, 0, 0, time.FixedZone("x", 3600))
		Expect(rs.FormatDatetime(t)).To(Equal("2013-01-03T09:00:00Z"))
		Expect(rs.FormatDatetime(t.Add(500 * time.Millisecond))).To(Equal("2013-01-03T09:00:00.5Z"))
		Expect(rs.NewDatetime(t).IsUTCZ()).To(BeTrue())
	})
})
