package document

import (
	"fmt"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Chronological order of change documents (12.1, 12.2, 13.1, 13.2).

// changeTime is the time an entry of a change document records, and
// whether it has one: the datetime attribute (1.1), or <lastmod> under the
// 1.0 profile, where lastmod is the change time and datetime does not exist.
func changeTime(e *rs.Entry, spec engine.Spec) (rs.Datetime, rs.Pos, bool) {
	if e.Md != nil {
		if d, ok, err := e.Md.Time("datetime"); ok && err == nil {
			return d, e.Md.AttrPosition("datetime"), true
		}
	}
	if spec == engine.Spec10 {
		return LastmodTime(e)
	}
	return rs.Datetime{}, rs.Pos{}, false
}

// changeTimeOf is changeTime for a rule that requires engine.EntryTimes.
func changeTimeOf(p *engine.Pass, e *rs.Entry) (rs.Datetime, rs.Pos, bool) {
	t := engine.EntryTimes.Of(p, e)
	if d, ok := t.Attr("datetime").Instant(); ok {
		return d, e.Md.AttrPosition("datetime"), true
	}
	if p.Spec == engine.Spec10 {
		return lastmodTimeOf(p, e)
	}
	return rs.Datetime{}, rs.Pos{}, false
}

// lastmodTimeOf is LastmodTime for a rule that requires engine.EntryTimes.
func lastmodTimeOf(p *engine.Pass, e *rs.Entry) (rs.Datetime, rs.Pos, bool) {
	if d, ok := engine.EntryTimes.Of(p, e).Lastmod.Instant(); ok {
		return d, e.LastmodPos, true
	}
	return rs.Datetime{}, rs.Pos{}, false
}

// LastmodTime is an entry's <lastmod>, when it has a valid one.
func LastmodTime(e *rs.Entry) (rs.Datetime, rs.Pos, bool) {
	if e.Lastmod != "" {
		if d, err := rs.ParseDatetime(e.Lastmod); err == nil {
			return d, e.LastmodPos, true
		}
	}
	return rs.Datetime{}, rs.Pos{}, false
}

// compareInstants orders two datetimes as instants, -1, 0 or 1, with their
// fractions of a second compared exactly whatever their length: W3C
// Datetime puts no bound on the digits, and time.Time keeps nanoseconds,
// so .0000000001Z and .0000000002Z are equal as times but not as instants.
func compareInstants(a, b rs.Datetime) int {
	as, bs := a.Time.Truncate(time.Second), b.Time.Truncate(time.Second)
	switch {
	case as.Before(bs):
		return -1
	case as.After(bs):
		return 1
	}
	fa, fb := fractionDigits(a.Raw), fractionDigits(b.Raw)
	for len(fa) < len(fb) {
		fa += "0"
	}
	for len(fb) < len(fa) {
		fb += "0"
	}
	return strings.Compare(fa, fb)
}

// fractionDigits are the digits after the seconds' decimal point in a W3C
// Datetime as written ("" when there is none).
func fractionDigits(raw string) string {
	i := strings.IndexByte(raw, 'T')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(raw[i:], '.')
	if j < 0 {
		return ""
	}
	digits := raw[i+j+1:]
	end := 0
	for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
		end++
	}
	return strings.TrimRight(digits[:end], "0")
}

// checkForwardOrder reports every entry whose time is earlier than that of
// an entry listed before it, saying what the time is (what) and what the
// specification requires (requirement). Entries without a time are
// skipped: their position is what conveys their order (Example 19).
// It reads the entries once (Pass.Entries).
func checkForwardOrder(p *engine.Pass, timeOf func(*rs.Entry) (rs.Datetime, rs.Pos, bool), what, requirement string) {
	var o orderCheck
	for e := range p.Entries() {
		if f, ok := o.next(timeOf(e)); ok {
			f.report(p, what, requirement)
		}
	}
}

// orderCheck is the state of an order check: the latest time listed so far
// (its Raw is its fraction digits only, copied: the strings of an entry
// do not outlive its window; see keptInstant).
type orderCheck struct {
	latest    rs.Datetime
	latestPos rs.Pos
	have      bool
}

// keptInstant is d as an order check keeps it: what compareInstants and
// instantString read of it, with no string of the model's.
func keptInstant(d rs.Datetime) rs.Datetime {
	k := rs.Datetime{Time: d.Time, Granularity: d.Granularity}
	if f := fractionDigits(d.Raw); f != "" {
		k.Raw = "T." + f // what fractionDigits reads back
	}
	return k
}

// orderFinding is an entry's time earlier than the latest listed before
// it, both written for messages (so that it holds nothing of the model).
type orderFinding struct {
	t, latest      string
	pos, latestPos rs.Pos
}

// next takes the time of the next entry (ok false when it has none) and
// returns the finding when it is earlier than the latest before it.
func (o *orderCheck) next(t rs.Datetime, pos rs.Pos, ok bool) (orderFinding, bool) {
	if !ok {
		return orderFinding{}, false
	}
	if o.have && compareInstants(t, o.latest) < 0 {
		return orderFinding{t: instantString(t), latest: instantString(o.latest), pos: pos, latestPos: o.latestPos}, true
	}
	o.latest, o.latestPos, o.have = keptInstant(t), pos, true
	return orderFinding{}, false
}

func (f orderFinding) report(p *engine.Pass, what, requirement string) {
	p.ReportRelated(f.pos, []rs.Pos{f.latestPos}, "%s %s is earlier than the %s %s of an entry listed before it (line %d): %s",
		what, f.t, what, f.latest, f.latestPos.Line, requirement)
}

// instantString writes a datetime in UTC for messages, with its fraction
// as written when time.Time cannot hold it.
func instantString(d rs.Datetime) string {
	s := rs.FormatDatetime(d.Time)
	if f := fractionDigits(d.Raw); len(f) > 9 {
		s = rs.FormatDatetime(d.Time.Truncate(time.Second))
		s = strings.TrimSuffix(s, "Z") + "." + f + "Z"
	}
	return s
}

// forwardOrder is the requirement of 12.1 and 13.2, for messages.
const forwardOrder = "entries must be in forward chronological order, least recent first"

// 12.1: "All entries in a Change List must be provided in forward
// chronological order: the least recently changed resource must be listed
// at the beginning of the Change List, while the most recently changed
// resource must be listed at the end of the document."
var ChangeListOrder = &engine.Rule{
	ID: "RS-CL-ORDER", Section: "12.1", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies:  []rs.Kind{rs.ChangeList},
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "Change List entries are in forward chronological order",
	Quote:    "All entries in a Change List must be provided in forward chronological order: the least recently changed resource must be listed at the beginning of the Change List, while the most recently changed resource must be listed at the end of the document.",
	Doc: "The order is checked on the change time: the datetime attribute under 1.1. <lastmod> is not the change time in 1.1 (Example 3 and 19 show a created resource whose lastmod predates the change), so it is not used; under the 1.0 profile, where datetime does not exist and lastmod is mandatory, lastmod is the change time. " +
		"Entries without a change time are skipped: Example 19 lists an update with neither, its position conveying its order. Each entry is compared with the latest time listed before it; fractions of a second are compared exactly, whatever their length (.0000000001Z is earlier than .0000000002Z). " +
		"When no entry of a 1.1 Change List has datetime (most real ones), the order of <lastmod> is checked instead, as a warning: RS-CL-ORDER-LASTMOD.",
	Check: func(p *engine.Pass) error {
		checkForwardOrder(p, func(e *rs.Entry) (rs.Datetime, rs.Pos, bool) { return changeTimeOf(p, e) }, "change time", forwardOrder)
		return nil
	},
}

// 12.1, as RS-CL-ORDER, when no entry gives its change time.
var ChangeListOrderLastmod = &engine.Rule{
	ID: "RS-CL-ORDER-LASTMOD", Section: "12.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies:  []rs.Kind{rs.ChangeList},
	Specs:    []engine.Spec{engine.Spec11},
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "A Change List without datetime lists its entries in forward chronological order of <lastmod>",
	Quote:    ChangeListOrder.Quote,
	Doc: "Under 1.1 the change time is datetime, which is optional; most real 1.1 Change Lists give none, and RS-CL-ORDER then has nothing to check. In that case only, <lastmod> stands in for the change time: an entry whose lastmod is earlier than that of an entry listed before it is reported, as a warning, because lastmod is the resource's last modification, not necessarily the change the entry records (a deletion, or a change listed after a later modification). " +
		"As soon as one entry has datetime, the order is RS-CL-ORDER's alone. Under the 1.0 profile lastmod is the change time and RS-CL-ORDER checks it. Fractions of a second are compared exactly, whatever their length.",
	Check: func(p *engine.Pass) error {
		// One pass: the findings wait for the end, when it is known that
		// no entry has datetime.
		var o orderCheck
		var found []orderFinding
		for e := range p.Entries() {
			if e.Md.Has("datetime") {
				return nil
			}
			if f, ok := o.next(lastmodTimeOf(p, e)); ok {
				found = append(found, f)
			}
		}
		for _, f := range found {
			f.report(p, "lastmod", forwardOrder+" (no entry has datetime, the change time, so <lastmod> stands in for it)")
		}
		return nil
	},
}

// AppendedDisorder says how the entries added to an open Change List since
// a visit whose last entry had datetime last break the forward order, at
// the first entry that does ("" when they do not): for graph.Revisit.Disorder.
// Times are compared as RS-CL-ORDER compares them.
func AppendedDisorder(last string, added []*rs.Entry) (string, rs.Pos) {
	var o orderCheck
	if d, err := rs.ParseDatetime(last); err == nil {
		o.next(d, rs.Pos{}, true)
	}
	for _, e := range added {
		t, _, ok := changeTime(e, engine.Spec11)
		pos := e.LocPos
		if !pos.IsValid() {
			pos = e.Pos
		}
		if f, bad := o.next(t, pos, ok); bad {
			return fmt.Sprintf("an entry added to the open Change List since the previous visit has datetime=%s, before %s, the previous last change: changes are added at the end, in forward chronological order", f.t, f.latest), f.pos
		}
	}
	return "", rs.Pos{}
}

func init() { engine.Register(ChangeListOrder, ChangeListOrderLastmod) }
