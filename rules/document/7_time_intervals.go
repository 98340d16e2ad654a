package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Consistency of the time attributes of section 7: intervals run forward,
// and the datetime of a change lies within the document's interval.

// attrTime parses attribute a of m; ok is false when it is absent or
// unparsable (RS-TIME-W3C reports that).
func attrTime(m *rs.Md, a rs.MdAttr) (rs.Datetime, bool) {
	d, present, err := m.TimeAttr(a)
	return d, present && err == nil
}

// The datetime attributes of <rs:md>, named once: RS-TIME-INTERVAL reads
// four of them on every <rs:md>.
var (
	mdAt, mdCompleted = rs.MdAttrOf("at"), rs.MdAttrOf("completed")
	mdFrom, mdUntil   = rs.MdAttrOf("from"), rs.MdAttrOf("until")
	mdDatetime        = rs.MdAttrOf("datetime")
	// timeIntervals are the attributes that start and end an interval.
	timeIntervals = [...]struct {
		start, end       string
		startKey, endKey rs.MdAttr
	}{{"at", "completed", mdAt, mdCompleted}, {"from", "until", mdFrom, mdUntil}}
)

// 7: "The combination of the datetimes provided in the at and completed
// attributes expresses an interval"; from and until bound the changes a
// document includes.
var TimeInterval = &engine.Rule{
	ID: "RS-TIME-INTERVAL", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "completed is not before at, and until is not before from",
	Quote: "The combination of the datetimes provided in the at and completed attributes expresses an interval during which resources may have changed beyond the state they had at the datetime expressed in the at attribute.",
	Doc: "at is when the snapshot process started and completed when it completed; from and until bound the changes a document includes (\"all changes that occurred ... since the datetime expressed (and up until the datetime expressed in the until attribute, if it exists)\"). An interval that ends before it starts cannot be interpreted. " +
		"Checked on every <rs:md>, top-level and in entries. Equal values are accepted. A value with a coarse granularity denotes its whole period (\"2013-01-03\" is the whole day), so it is reported only when no reading of the two values is in order. Unparsable values are left to RS-TIME-W3C.",
	Check: func(p *engine.Pass) error {
		for ref := range p.ElementsWith(mdCompleted.Set()|mdUntil.Set(), 0) {
			for _, pair := range timeIntervals {
				if _, ok := ref.Md.Attr(pair.endKey); !ok {
					continue // no interval (most <rs:md>): nothing to parse
				}
				start, ok1 := attrTime(ref.Md, pair.startKey)
				end, ok2 := attrTime(ref.Md, pair.endKey)
				if !ok1 || !ok2 || !end.SurelyBefore(start) {
					continue
				}
				p.ReportRelated(ref.Md.AttrPos(pair.endKey), []rs.Pos{ref.Md.AttrPos(pair.startKey)},
					"%s %q is before %s %q: the interval ends before it starts", pair.end, end.Raw, pair.start, start.Raw)
			}
		}
		return nil
	},
}

// 7: "datetime -- ... The value must be equal to or after the from
// datetime, and before or equal to the until datetime if specified."
var DatetimeInterval = &engine.Rule{
	ID: "RS-DATETIME-INTERVAL", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: attrChangeKinds, Specs: []engine.Spec{engine.Spec11}, Requires: []engine.Value{engine.EntryTimes},
	Title: "Each datetime lies within the from/until interval of the document",
	Quote: "This attribute may be used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2). The value must be equal to or after the from datetime, and before or equal to the until datetime if specified.",
	Doc: "from and until are those of the top-level <rs:md>. A value with a coarse granularity denotes its whole period (until=\"2013-01-03\" is the whole day), so a datetime is reported only when it is before from, or after until, under every reading. " +
		"<lastmod> is not checked: section 7 says it may fall outside from and until (under the 1.0 profile, which has no datetime, this rule does not run). Unparsable values are left to RS-TIME-W3C.",
	Check: func(p *engine.Pass) error {
		top := p.Doc.Md
		if top == nil {
			return nil
		}
		from, hasFrom := attrTime(top, mdFrom)
		until, hasUntil := attrTime(top, mdUntil)
		if !hasFrom && !hasUntil {
			return nil
		}
		for ref := range p.ElementsWith(mdDatetime.Set(), 0) {
			if ref.Entry == nil {
				continue
			}
			var dt rs.Datetime
			var ok bool
			if ref.Md == ref.Entry.Md {
				dt, ok = engine.EntryTimes.Of(p, ref.Entry).Attr("datetime").Instant()
			} else {
				dt, ok = attrTime(ref.Md, mdDatetime)
			}
			if !ok {
				continue
			}
			switch {
			case hasFrom && dt.SurelyBefore(from):
				p.ReportRelated(ref.Md.AttrPos(mdDatetime), []rs.Pos{top.AttrPosition("from")}, "datetime %q is before the document's from %q: a %s covers the changes from its from onwards", dt.Raw, from.Raw, p.Kind.Title())
			case hasUntil && until.SurelyBefore(dt):
				p.ReportRelated(ref.Md.AttrPos(mdDatetime), []rs.Pos{top.AttrPosition("until")}, "datetime %q is after the document's until %q: a %s covers the changes up to its until", dt.Raw, until.Raw, p.Kind.Title())
			}
		}
		return nil
	},
}

func init() { engine.Register(TimeInterval, DatetimeInterval) }
