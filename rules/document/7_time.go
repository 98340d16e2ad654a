package document

import (
	"fmt"
	"slices"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Time attributes: W3C Datetime syntax, the recommended UTC form, and the
// requirements of Appendix A (Table 4).

// 7: "The attribute value is expressed as a W3C Datetime and the use of a
// complete date and time expressed in UTC using the format
// YYYY-MM-DDThh:mm:ss[.s]Z is recommended."
var TimeSyntax = &engine.Rule{
	ID: "RS-TIME-W3C", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "Datetimes (<lastmod>, at, completed, from, until, datetime, modified) are W3C Datetimes",
	Quote:    "The attribute value is expressed as a W3C Datetime and the use of a complete date and time expressed in UTC using the format YYYY-MM-DDThh:mm:ss[.s]Z is recommended.",
	Doc:      "The W3C Datetime note allows six forms: YYYY, YYYY-MM, YYYY-MM-DD, and date with hh:mm, hh:mm:ss or hh:mm:ss.s followed by a time zone designator (Z or ±hh:mm), which is required whenever a time is given.",
	Check: func(p *engine.Pass) error {
		forEachDatetime(p, func(name, value string, at attrAt, t *engine.ParsedTime) {
			if t.Err != nil {
				p.Reportf(at.pos(), "%s: %v%s", name, t.Err, zoneFix(value, t.Err))
			}
		})
		return nil
	},
}

var TimeUTC = &engine.Rule{
	ID: "RS-TIME-UTC", Section: "7", Level: engine.Should, Scope: engine.ScopeEntries,
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "Datetimes use the recommended form YYYY-MM-DDThh:mm:ss[.s]Z",
	Quote:    TimeSyntax.Quote,
	Doc:      "Reported at every value not in the recommended form, each a finding of its own (a baseline keeps each; the text report shows the first few of a document and counts the others).",
	Check: func(p *engine.Pass) error {
		forEachDatetime(p, func(name, value string, at attrAt, t *engine.ParsedTime) {
			d := &t.D
			if t.Err != nil || d.IsUTCZ() {
				return
			}
			why := fmt.Sprintf("has time zone %s, not Z", d.TZD)
			if d.Granularity < rs.GranSecond {
				why = fmt.Sprintf("has granularity %s", d.Granularity)
			}
			p.Reportf(at.pos(), "%s %q %s: the recommended form is a complete date and time in UTC, YYYY-MM-DDThh:mm:ss[.s]Z", name, value, why)
		})
		return nil
	},
}

// forEachDatetime calls fn for every datetime-valued item of the document
// (the attributes of <rs:md>, modified on <rs:ln>, <lastmod>), parsed, in
// one pass over the entries and the elements that carry one
// (Pass.WalkWith); the rule requires engine.EntryTimes, which holds those
// of the entries' <rs:md> and <lastmod>.
func forEachDatetime(p *engine.Pass, fn func(name, value string, at attrAt, t *engine.ParsedTime)) {
	times := new(engine.EntryDatetimes) // the current entry's
	var own engine.ParsedTime           // one not in times
	for x := range p.WalkWith(engine.MdTimeSet, lnModified.Set()) {
		switch {
		case x.Md != nil:
			if x.Entry != nil && x.Md == x.Entry.Md { // read once, in times
				for i, a := range engine.MdTimeAttrs {
					if t := &times.Md[i]; t.Present {
						fn(a, t.Value(), attrAt{md: x.Md, mdKey: engine.MdTimeKeys[i]}, t)
					}
				}
				break
			}
			for i, a := range engine.MdTimeAttrs {
				if v, ok := x.Md.Attr(engine.MdTimeKeys[i]); ok {
					own = engine.ParseTime(v, true)
					fn(a, v, attrAt{md: x.Md, mdKey: engine.MdTimeKeys[i]}, &own)
				}
			}
		case x.Ln != nil:
			v, _ := x.Ln.Attr(lnModified)
			own = engine.ParseTime(v, true)
			fn("modified", v, attrAt{ln: x.Ln, lnKey: lnModified}, &own)
		default: // the entry itself, before its elements
			times = engine.EntryTimes.Of(p, x.Entry)
			if times.Lastmod.Present {
				fn("<lastmod>", x.Entry.Lastmod, attrAt{fixed: x.Entry.LastmodPos}, &times.Lastmod)
			}
		}
	}
}

// lnModified is the datetime attribute of <rs:ln>, which forEachDatetime
// reads with engine.MdTimeKeys.
var lnModified = rs.LnAttrOf("modified")

// mdAttrSet is the set of the <rs:md> attributes named.
func mdAttrSet(names ...string) rs.MdAttrSet {
	var s rs.MdAttrSet
	for _, n := range names {
		s |= rs.MdAttrOf(n).Set()
	}
	return s
}

// Appendix A, Table 4, and the definitions of at, completed, from and
// until in section 7.
var TimeTopRequired = &engine.Rule{
	ID: "RS-TIME-TOP-REQUIRED", Section: "A", Level: engine.Must, Scope: engine.ScopeHeader,
	Applies: append(append([]rs.Kind{}, SnapshotDocs...), ChangeDocs...),
	Title:   "The top-level <rs:md> carries at (snapshots) or from (changes) as Appendix A requires",
	Quote:   "Table 4 shows that, for example, a Change List must contain the <rs:md> child element of the <urlset> root element with the attribute from to convey the temporal interval covered by the Change List.",
	Doc:     "Table 4: /top/rs:md/@at is mandatory for Resource Lists, Resource List Indexes, Resource Dumps, Resource Dump Indexes and Resource Dump Manifests; /top/rs:md/@from is mandatory for Change Lists, Change List Indexes, Change Dumps, Change Dump Indexes and Change Dump Manifests.",
	Check: func(p *engine.Pass) error {
		md := p.Doc.Md
		if md == nil {
			return nil
		}
		want := "at"
		if slices.Contains(ChangeDocs, p.Kind) {
			want = "from"
		}
		if !md.Has(want) {
			p.Reportf(md.Pos, "a %s must have the %s attribute on its top-level <rs:md> (Appendix A, Table 4)", p.Kind.Title(), want)
		}
		return nil
	},
}

var TimeNotUsed = &engine.Rule{
	ID: "RS-TIME-NOT-USED", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: kindsExcept(rs.ResourceListArchiveIndex, rs.ResourceDumpArchiveIndex, rs.ChangeListArchiveIndex, rs.ChangeDumpArchiveIndex),
	Title:   "at/completed appear only in snapshot documents and from/until only in change documents",
	Quote:   "at – This attribute is used for Resource Lists, Resource List Indexes, Resource Dumps, Resource Dump Indexes, and Resource Dump Manifests; it is not used for Change Lists, Change List Indexes, Change Dumps, Change Dump Indexes, and Change Dump Manifests.",
	Doc: "Section 7 says the same of completed, and the converse of from and until; Appendix A (normative) leaves those cells empty. rsconform reads 'is not used' as a requirement: an at on a Change List, or a from on a Resource List, is an attribute the Destination cannot interpret. " +
		"Within entries, at/completed are used only in Resource List Indexes, Resource Dumps and Resource Dump Indexes, and from/until only in Change List Indexes, Change Dumps and Change Dump Indexes (section 7). " +
		"Source Descriptions and Capability Lists carry none of them. Archives (draft) carry at on Resource List and Resource Dump Archive entries and from/until on Change List and Change Dump Archive entries.",
	Check: func(p *engine.Pass) error {
		top, entry := timeAttrsAllowed(p.Kind)
		check := func(m *rs.Md, allowed []string, where string) {
			if m == nil {
				return
			}
			for i, a := range timeNotUsedAttrs {
				if _, ok := m.Attr(timeNotUsedKeys[i]); ok && !slices.Contains(allowed, a) {
					p.Reportf(m.AttrPos(timeNotUsedKeys[i]), "the %s attribute is not used on %s of a %s%s", a, where, p.Kind.Title(), allowedNote(allowed))
				}
			}
		}
		check(p.Doc.Md, top, "the top-level <rs:md>")
		for x := range p.ElementsWith(mdAttrSet(timeNotUsedAttrs[:]...), 0) {
			if x.Entry != nil && x.Md == x.Entry.Md {
				check(x.Md, entry, "the <rs:md> of an entry")
			}
		}
		return nil
	},
}

// timeNotUsedAttrs are the attributes RS-TIME-NOT-USED places, and
// timeNotUsedKeys the same named once (7_time_intervals.go).
var (
	timeNotUsedAttrs = [...]string{"at", "completed", "from", "until"}
	timeNotUsedKeys  = [...]rs.MdAttr{mdAt, mdCompleted, mdFrom, mdUntil}
)

func allowedNote(allowed []string) string {
	if len(allowed) == 0 {
		return " (no at, completed, from or until belongs there)"
	}
	return " (only " + strings.Join(allowed, ", ") + " belong there)"
}

// timeAttrsAllowed says which of at, completed, from, until may appear at
// the top and in entries of a kind (section 7, Appendix A, Archives draft).
func timeAttrsAllowed(k rs.Kind) (top, entry []string) {
	snap := []string{"at", "completed"}
	change := []string{"from", "until"}
	switch k {
	case rs.ResourceList, rs.ResourceDumpManifest:
		return snap, nil
	case rs.ResourceListIndex, rs.ResourceDump, rs.ResourceDumpIndex:
		return snap, snap
	case rs.ChangeList, rs.ChangeDumpManifest:
		return change, nil
	case rs.ChangeListIndex, rs.ChangeDump, rs.ChangeDumpIndex:
		return change, change
	case rs.ResourceListArchive, rs.ResourceDumpArchive:
		return nil, snap
	case rs.ChangeListArchive, rs.ChangeDumpArchive:
		return nil, change
	}
	return nil, nil
}

func init() { engine.Register(TimeSyntax, TimeUTC, TimeTopRequired, TimeNotUsed) }
