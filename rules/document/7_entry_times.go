package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Time attributes of entries, per document kind: Appendix A (Table 4), the
// at/completed of the parts of a snapshot (10.2, 11.1) and the from/until
// of the parts of a change document (12.2, 13.1). The top-level at and from
// are RS-TIME-TOP-REQUIRED; attributes where they do not belong,
// RS-TIME-NOT-USED.

// Appendix A, Table 4: /top/child/rs:md/@from is Recommended for Change
// List Indexes, Change Dumps and Change Dump Indexes.
var TimeEntryFrom = &engine.Rule{
	ID: "RS-TIME-ENTRY-FROM", Section: "A", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeListIndex, rs.ChangeDump, rs.ChangeDumpIndex},
	Title:   "Entries of Change List Indexes, Change Dumps and Change Dump Indexes give from in their <rs:md>",
	Quote:   "Table 4 provides an overview of the requirements for use of the at and from attributes in ResourceSync documents. (Table 4, /top/child/rs:md/@from: Recommended for the Change List Index, the Change Dump and the Change Dump Index.)",
	Doc: "Section 12.2 words it as \"A recommended <rs:md> child element with the from and possibly until attributes to convey the temporal interval covered by the Change List\". " +
		"Without from on the entries, a Destination must fetch every Change List to find the one where it stopped. " +
		"The at of Resource List Index, Resource Dump and Resource Dump Index entries is Optional in Table 4, so its absence is not reported.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			switch {
			case e.Md == nil:
				p.Reportf(e.Pos, "the entry for %s has no <rs:md from=\"...\"/>: from on the entries of a %s is recommended (Appendix A), to convey the interval each covers", kindsLocName(e), p.Kind.Title())
			case !e.Md.Has("from"):
				p.Reportf(e.Md.Pos, "the <rs:md> of the entry for %s has no from: from on the entries of a %s is recommended (Appendix A)", kindsLocName(e), p.Kind.Title())
			}
		}
		return nil
	},
}

// 7: "The at attribute conveys the datetime at which the process of taking
// a snapshot of resources for their inclusion in the document to which the
// attribute pertains started. It thus provides a guarantee that each
// resource state represented in the document is the result of all changes
// to the resource at least up until the datetime expressed as the value of
// the at attribute."
var TimeEntrySnapshot = &engine.Rule{
	ID: "RS-TIME-ENTRY-SNAPSHOT", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceListIndex, rs.ResourceDump, rs.ResourceDumpIndex},
	Title:   "The snapshot of each entry (at, completed) lies within the document's own snapshot",
	Quote:   "The at attribute conveys the datetime at which the process of taking a snapshot of resources for their inclusion in the document to which the attribute pertains started. It thus provides a guarantee that each resource state represented in the document is the result of all changes to the resource at least up until the datetime expressed as the value of the at attribute.",
	Doc: "The Resource Lists of an index (10.2) and the packages of a Resource Dump (11.1) are parts of one snapshot, the document's, whose process starts at its at and ends at its completed. " +
		"A part whose snapshot started before the document's at breaks the guarantee the document's at gives; a part whose snapshot ended after the document's completed, or started after it, was not taken in the process the document describes. " +
		"Checked on the entries' own at and completed against the top-level ones (Example 15 and 17 comply); one finding per entry. A value with a coarse granularity denotes its whole period (at=\"2013-01-03\" is the whole day), so it is reported only when no reading puts it in order. Unparsable values are left to RS-TIME-W3C.",
	Check: func(p *engine.Pass) error {
		top := p.Doc.Md
		at, atPos, hasAt := kindsMdTime(top, "at")
		done, donePos, hasDone := kindsMdTime(top, "completed")
		if !hasAt && !hasDone {
			return nil
		}
		for e := range p.Entries() {
			eAt, eAtPos, eHasAt := kindsMdTime(e.Md, "at")
			eDone, eDonePos, eHasDone := kindsMdTime(e.Md, "completed")
			switch {
			case eHasAt && hasAt && eAt.SurelyBefore(at):
				p.ReportRelated(eAtPos, []rs.Pos{atPos}, "the entry's snapshot started at %s, before the document's at %s: the document's at guarantees every resource state in it is at least as recent as its at", e.Md.At, top.At)
			case eHasAt && hasDone && done.SurelyBefore(eAt):
				p.ReportRelated(eAtPos, []rs.Pos{donePos}, "the entry's snapshot started at %s, after the document's snapshot completed (%s): it is not part of that snapshot", e.Md.At, top.Completed)
			case eHasDone && hasDone && done.SurelyBefore(eDone):
				p.ReportRelated(eDonePos, []rs.Pos{donePos}, "the entry's snapshot completed at %s, after the document's snapshot completed (%s): the document's completed must cover all its parts", e.Md.Completed, top.Completed)
			case !eHasAt && eHasDone && hasAt && eDone.SurelyBefore(at):
				p.ReportRelated(eDonePos, []rs.Pos{atPos}, "the entry's snapshot completed at %s, before the document's at %s: it is not part of that snapshot", e.Md.Completed, top.At)
			}
		}
		return nil
	},
}

// 10.2: "An optional <rs:md> child element with an at attribute and
// possibly a completed attribute to convey the datetime at which the
// process of taking a snapshot of resources for their inclusion in the
// Resource List respectively started and ended."
var TimeEntryAt = &engine.Rule{
	ID: "RS-TIME-ENTRY-AT", Section: "10.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceListIndex, rs.ResourceDump, rs.ResourceDumpIndex},
	Title:   "An entry that gives completed also gives at",
	Quote:   "An optional <rs:md> child element with an at attribute and possibly a completed attribute to convey the datetime at which the process of taking a snapshot of resources for their inclusion in the Resource List respectively started and ended.",
	Doc: "completed is the end of the snapshot process whose start is at; alone, it tells a Destination nothing about the state the part represents (section 7: at \"provides a guarantee\", completed only bounds the interval). " +
		"Section 11.1 says the same of Resource Dump entries (\"an at attribute and possibly a completed attribute\"), and Resource Dump Indexes are built like Resource List Indexes. at itself is Optional on entries (Appendix A).",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md != nil && e.Md.Has("completed") && !e.Md.Has("at") {
				p.Reportf(e.Md.AttrPosition("completed"), "the entry gives completed without at: give at, the start of the snapshot, with it")
			}
		}
		return nil
	},
}

// 7: from "indicates that all changes that occurred to the set of resources
// at the Source since the datetime expressed (and up until the datetime
// expressed in the until attribute, if it exists) are included in the
// document"; "When a document carries the until attribute, this indicates
// that the document will not be updated anymore."
var TimeEntryInterval = &engine.Rule{
	ID: "RS-TIME-ENTRY-INTERVAL", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeListIndex, rs.ChangeDump, rs.ChangeDumpIndex},
	Title:   "No entry of a closed change document reaches past its until",
	Quote:   "The attribute indicates that all changes that occurred to the set of resources at the Source since the datetime expressed (and up until the datetime expressed in the until attribute, if it exists) are included in the document to which the attribute pertains.",
	Doc: "A closed Change List Index, Change Dump or Change Dump Index (top-level until) covers changes up to its until and \"will not be updated anymore\". An entry whose until is later, or whose from is later, conveys changes after the document's until: a Destination that trusts the document's until skips them. " +
		"In a closed Change List Index or Change Dump Index an entry with <rs:md> but no until announces an open Change List (12.2), one that keeps receiving changes after the index's until: reported on the last entry (an open entry before the last is RS-CLI-OPEN-LAST's, whatever the index). Change Dump entries (packages) need not give until, so for them only a from or until past the Change Dump's until is reported. " +
		"An entry whose from is earlier than the document's from is not reported: the document still includes every change since its from (RS-CLI-CONTIGUOUS checks, in a crawl, that the first Change List starts no later than the index). One finding per entry; coarse values are read as RS-TIME-ENTRY-SNAPSHOT reads them; unparsable values are left to RS-TIME-W3C.",
	Check: func(p *engine.Pass) error {
		top := p.Doc.Md
		until, untilPos, closed := kindsMdTime(top, "until")
		if !closed {
			return nil
		}
		index := p.Kind.IsIndex()
		// An open entry is reported once it is known to be the last.
		var open engine.Held
		have := false
		for e := range p.Entries() {
			have = false
			if e.Md == nil {
				continue
			}
			eFrom, eFromPos, eHasFrom := kindsMdTime(e.Md, "from")
			eUntil, eUntilPos, eHasUntil := kindsMdTime(e.Md, "until")
			switch {
			case eHasUntil && until.SurelyBefore(eUntil):
				p.ReportRelated(eUntilPos, []rs.Pos{untilPos}, "the entry's until %s is after the document's until %s: the document is closed at its until and must not convey later changes", e.Md.Until, top.Until)
			case eHasFrom && until.SurelyBefore(eFrom):
				p.ReportRelated(eFromPos, []rs.Pos{untilPos}, "the entry's from %s is after the document's until %s: the document is closed at its until and must not convey later changes", e.Md.From, top.Until)
			case index && !e.Md.Has("until"):
				open, have = p.Hold(e.Md.Pos, []rs.Pos{untilPos}, "the entry for %s has no until, so it announces an open %s, in an index closed at %s: a closed index lists only closed %ss", kindsLocName(e), kindsChildTitle(p.Kind), top.Until, kindsChildTitle(p.Kind)), true
			}
		}
		if have {
			p.Release(open)
		}
		return nil
	},
}

func init() {
	engine.Register(TimeEntryFrom, TimeEntrySnapshot, TimeEntryAt, TimeEntryInterval)
}
