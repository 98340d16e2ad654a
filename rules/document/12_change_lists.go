package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Resource Lists (10.1), Change Lists (12.1) and Change List Indexes
// (12.2), with the Change Dump Indexes built "in a manner similar" (13.1).
//
// Duplicate resources in a Resource List are RS-LOC-DUPLICATE's.
// Not checkable on one document, and left to the crawl: "In case a Resource
// List Index (see 10.2) exists, a recommended <rs:ln> child element of
// <urlset> points to it with the relation type index" (whether an index
// exists is known only from the index); the Change Lists of an index
// following each other without gaps (RS-CLI-CONTIGUOUS); an index entry's
// until agreeing with its Change List (RS-CLI-OPEN).

// 12.1: "A mandatory <rs:md> child element must have the attribute change
// to convey the nature of the change. The value of the change attribute is
// created, updated, or deleted."
var ChangeListChange = &engine.Rule{
	ID: "RS-CL-CHANGE", Section: "12.1", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeList},
	Title:   "Every Change List entry has an <rs:md> with a change attribute",
	Quote:   "A mandatory <rs:md> child element must have the attribute change to convey the nature of the change. The value of the change attribute is created, updated, or deleted.",
	Doc:     "A Destination that cannot tell a creation, an update and a deletion apart cannot act on the entry. This rule checks that the attribute is there; its value is RS-CHANGE-VALUE's.",
	Check: func(p *engine.Pass) error {
		kindsCheckChange(p, "Change List")
		return nil
	},
}

// kindsCheckChange reports entries of a change document without <rs:md> or
// without a change attribute (the value is RS-CHANGE-VALUE's).
func kindsCheckChange(p *engine.Pass, doc string) {
	for e := range p.Entries() {
		if e.Md == nil {
			p.Reportf(e.Pos, "the entry for %s has no <rs:md>: every %s entry must have <rs:md change=\"created|updated|deleted\"/>", kindsLocName(e), doc)
			continue
		}
		if !e.Md.Has("change") {
			p.Reportf(e.Md.Pos, "the <rs:md> of the entry for %s has no change attribute: every %s entry must say whether the resource was created, updated or deleted", kindsLocName(e), doc)
		}
	}
}

// 12.2: "A Change List Index must enumerate Change Lists in forward
// chronological order."
var ChangeListIndexOrder = &engine.Rule{
	ID: "RS-CLI-ORDER", Section: "12.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeListIndex, rs.ChangeDumpIndex},
	Title:   "The entries of a Change List Index are in forward chronological order of their from",
	Quote:   "A Change List Index must enumerate Change Lists in forward chronological order.",
	Doc: "Checked on the from the index's own entries give (<sitemap><rs:md from=\"...\"/>): each must not be earlier than the from of an entry listed before it. Entries without from are skipped. " +
		"Change Dump Indexes are built \"in a manner similar to what was described in 12.2\" (13.1) and checked alike. Entries without <rs:md from> are not ordered here; gaps between the Change Lists are RS-CLI-CONTIGUOUS's (crawl).",
	Check: func(p *engine.Pass) error {
		checkForwardOrder(p, func(e *rs.Entry) (rs.Datetime, rs.Pos, bool) { return kindsMdTime(e.Md, "from") },
			"from", "an index must enumerate its "+kindsChildTitle(p.Kind)+"s in forward chronological order")
		return nil
	},
}

// 12.2: "If the Change List is closed the use of <until> is required. If
// the Change List is open <until> must not be provided."
var ChangeListIndexOpenLast = &engine.Rule{
	ID: "RS-CLI-OPEN-LAST", Section: "12.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeListIndex, rs.ChangeDumpIndex},
	Title:   "In a Change List Index only the last entry is an open Change List",
	Quote:   "If the Change List is closed the use of <until> is required. If the Change List is open <until> must not be provided.",
	Doc: "An entry whose <rs:md> has no until announces an open Change List, one that will still receive changes. Since the index enumerates Change Lists in forward chronological order, a Change List that still receives changes can only be the last: an open one anywhere else would take changes later than those of the Change Lists after it. " +
		"Entries without <rs:md> announce nothing and are skipped (the element is recommended, RS-TIME-ENTRY-FROM). Change Dump Indexes are checked alike. Whether the Change Lists are in fact open or closed is for the crawl (RS-CLI-OPEN).",
	Check: func(p *engine.Pass) error {
		// An open entry is reported once another entry follows it.
		var open engine.Held
		have := false
		for e := range p.Entries() {
			if have {
				p.Release(open)
				have = false
			}
			if e.Md == nil || e.Md.Has("until") {
				continue
			}
			open, have = p.Hold(e.Md.Pos, nil, "the entry for %s has no until, so it announces an open %s, but it is not the last entry of the index: only the last may be open (a closed one must give until)", kindsLocName(e), kindsChildTitle(p.Kind)), true
		}
		return nil
	},
}

// kindsChildTitle names what the entries of an index are.
func kindsChildTitle(k rs.Kind) string { return k.Base().Title() }

// kindsMdTime parses a datetime attribute of an <rs:md>; ok is false when
// the element or the attribute is absent or the value is not a W3C
// Datetime (RS-TIME-W3C reports that).
func kindsMdTime(md *rs.Md, attr string) (rs.Datetime, rs.Pos, bool) {
	if md == nil {
		return rs.Datetime{}, rs.Pos{}, false
	}
	d, ok, err := md.Time(attr)
	if !ok || err != nil {
		return rs.Datetime{}, rs.Pos{}, false
	}
	return d, md.AttrPosition(attr), true
}

func init() {
	engine.Register(ChangeListChange, ChangeListIndexOrder, ChangeListIndexOpenLast)
}
