package mocksource_test

import (
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
)

// wildAllowed leaves out the findings a scenario of Sources seen in the
// wild asks for: RS-TIME-UTC (a SHOULD) on every datetime when it writes
// them at offsets from UTC.
func (m *mock) wildAllowed(ds []rules.Diagnostic) []rules.Diagnostic {
	sc := m.src.Scenario()
	if sc == nil || len(sc.TimeOffsets) == 0 {
		return ds
	}
	var out []rules.Diagnostic
	for _, d := range ds {
		if d.Rule != "RS-TIME-UTC" {
			out = append(out, d)
		}
	}
	return out
}

var datetimeAttr = regexp.MustCompile(`(?:at|from|until|datetime|completed)="([^"]+)"|<lastmod>([^<]+)</lastmod>`)

var _ = Describe("Scenarios of Sources seen in the wild", func() {
	It("write every datetime at the time-offsets, the same instants", func() {
		m := startScenario("time-zone-offsets", mocksource.Options{})
		m.step()
		_, body := m.get("/dataset1/changelist.xml")
		var seen []string
		for _, match := range datetimeAttr.FindAllStringSubmatch(string(body), -1) {
			v := match[1] + match[2]
			Expect(v).NotTo(HaveSuffix("Z"), string(body))
			seen = append(seen, v[len(v)-6:])
		}
		Expect(seen).To(ContainElements("+01:00", "-05:00", "+05:30"))
		// The three creations of step 1, at 00:10Z, written in turn at
		// each offset.
		Expect(string(body)).To(ContainSubstring(`datetime="2026-01-01T01:10:00+01:00"`))
		Expect(string(body)).To(ContainSubstring(`datetime="2025-12-31T19:10:00-05:00"`))
		Expect(string(body)).To(ContainSubstring(`datetime="2026-01-01T05:40:00+05:30"`))
		d, err := m.parse("/dataset1/changelist.xml", body)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range d.Entries {
			t, _, err := e.Md.Time("datetime")
			Expect(err).NotTo(HaveOccurred())
			Expect(t.Time.UTC()).To(Equal(time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)))
		}
	})

	DescribeTable("refuse a time-offsets value that is no offset from UTC",
		func(v, want string) {
			_, err := mocksource.ParseScenario("s.yaml", []byte("name: x\ntime-offsets: ["+v+"]\nsteps:\n  - after: 1h\n    actions: [close-changelist]\n"))
			Expect(err).To(MatchError(want))
		},
		Entry("UTC", `"+00:00"`, `s.yaml:2: time-offsets: "+00:00" is UTC: give offsets other than +00:00`),
		Entry("not an offset", `"CET"`, `s.yaml:2: time-offsets: "CET" is not a time zone offset such as +01:00 or -05:00`),
		Entry("out of range", `"+24:00"`, `s.yaml:2: time-offsets: "+24:00" is not a time zone offset such as +01:00 or -05:00`),
	)
})

// scenarioTime is mustTime for a scenario that may write its datetimes at
// offsets from UTC (time-offsets): then any time zone designator goes.
func (m *mock) scenarioTime(s string) time.Time {
	GinkgoHelper()
	if sc := m.src.Scenario(); sc == nil || len(sc.TimeOffsets) == 0 {
		return mustTime(s)
	}
	d, err := rs.ParseDatetime(s)
	Expect(err).NotTo(HaveOccurred())
	return d.Time
}
