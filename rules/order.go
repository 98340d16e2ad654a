package rules

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Chronological order of change documents (12.1, 12.2, 13.1, 13.2).

// changeTime is the time an entry of a change document records, and
// whether it has one: the datetime attribute (1.1), or <lastmod> under the
// 1.0 profile, where lastmod is the change time and datetime does not exist.
func changeTime(e *rs.Entry, spec Spec) (time.Time, rs.Pos, bool) {
	if e.Md != nil {
		if d, ok, err := e.Md.Time("datetime"); ok && err == nil {
			return d.Time, e.Md.AttrPosition("datetime"), true
		}
	}
	if spec == Spec10 && e.Lastmod != "" {
		if d, err := rs.ParseDatetime(e.Lastmod); err == nil {
			return d.Time, e.LastmodPos, true
		}
	}
	return time.Time{}, rs.Pos{}, false
}

// checkForwardOrder reports every entry whose time is earlier than that of
// an entry listed before it, saying what the time is (what) and what the
// specification requires (requirement). Entries without a time are
// skipped: their position is what conveys their order (Example 19).
func checkForwardOrder(p *Pass, timeOf func(*rs.Entry) (time.Time, rs.Pos, bool), what, requirement string) {
	var latest time.Time
	var latestPos rs.Pos
	have := false
	for _, e := range p.Doc.Entries {
		t, pos, ok := timeOf(e)
		if !ok {
			continue
		}
		if have && t.Before(latest) {
			p.ReportRelated(pos, []rs.Pos{latestPos}, "%s %s is earlier than the %s %s of an entry listed before it (line %d): %s",
				what, rs.FormatDatetime(t), what, rs.FormatDatetime(latest), latestPos.Line, requirement)
			continue
		}
		latest, latestPos, have = t, pos, true
	}
}

// forwardOrder is the requirement of 12.1 and 13.2, for messages.
const forwardOrder = "entries must be in forward chronological order, least recent first"

// 12.1: "All entries in a Change List must be provided in forward
// chronological order: the least recently changed resource must be listed
// at the beginning of the Change List, while the most recently changed
// resource must be listed at the end of the document."
var ChangeListOrder = &Rule{
	ID: "RS-CL-ORDER", Section: "12.1", Level: Must,
	Applies: []rs.Kind{rs.ChangeList},
	Title:   "Change List entries are in forward chronological order",
	Quote:   "All entries in a Change List must be provided in forward chronological order: the least recently changed resource must be listed at the beginning of the Change List, while the most recently changed resource must be listed at the end of the document.",
	Doc: "The order is checked on the change time: the datetime attribute under 1.1. <lastmod> is not the change time in 1.1 (Example 3 and 19 show a created resource whose lastmod predates the change), so it is not used; under the 1.0 profile, where datetime does not exist and lastmod is mandatory, lastmod is the change time. " +
		"Entries without a change time are skipped: Example 19 lists an update with neither, its position conveying its order. Each entry is compared with the latest time listed before it.",
	Check: func(p *Pass) error {
		checkForwardOrder(p, func(e *rs.Entry) (time.Time, rs.Pos, bool) { return changeTime(e, p.Spec) }, "change time", forwardOrder)
		return nil
	},
}

func init() { register(ChangeListOrder) }
