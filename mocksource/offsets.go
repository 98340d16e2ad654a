package mocksource

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Time zone offsets (the scenario's time-offsets): the Source writes every
// datetime of its documents in local time with an offset from UTC instead
// of in UTC, as W3C Datetime allows ("1997-07-16T19:20:30+01:00"). A
// client seen in the wild adds the offset where it must subtract it
// (18:37:36+01:00 read as 19:37:36Z, not 17:37:36Z); such a client puts
// changes at the wrong instants, so it skips updates or applies them in
// the wrong order. The top-level <rs:md> of a document is written with the
// first offset, entry i with offset i modulo their number, so that
// neighbouring entries differ.

// withOffsets rewrites every datetime of d with the offsets (seconds east
// of UTC), the same instants in local time.
func withOffsets(d *rs.Document, offsets []int) {
	if len(offsets) == 0 {
		return
	}
	md := func(m *rs.Md, off int) {
		if m == nil {
			return
		}
		for _, v := range []*string{&m.At, &m.Completed, &m.From, &m.Until, &m.Datetime} {
			*v = localTime(*v, off)
		}
	}
	lns := func(ls []*rs.Ln, off int) {
		for _, l := range ls {
			l.Modified = localTime(l.Modified, off)
		}
	}
	md(d.Md, offsets[0])
	lns(d.Links, offsets[0])
	for i, e := range d.Entries {
		off := offsets[i%len(offsets)]
		e.Lastmod = localTime(e.Lastmod, off)
		md(e.Md, off)
		lns(e.Links, off)
	}
}

// localTime writes the datetime v at the offset; a value without a time
// (a date) or not a datetime is left as it is.
func localTime(v string, off int) string {
	if v == "" {
		return v
	}
	t, err := rs.ParseDatetime(v)
	if err != nil || t.TZD == "" {
		return v
	}
	return t.Time.In(time.FixedZone("", off)).Format("2006-01-02T15:04:05.999999999-07:00")
}
