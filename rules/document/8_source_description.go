package document

import (
	"fmt"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Source Descriptions (section 8): what one Source Description can show of
// its own conformance. The Source Description Index adds nothing that one
// document can check: its entries are Source Descriptions, which only a
// crawl can confirm (RS-LISTED-KIND).

// 8: "An optional <rs:md> child element must have a capability attribute
// with a value of capabilitylist to convey that the URI points to a
// Capability List."
var SourceDescriptionEntryCapability = &engine.Rule{
	ID: "RS-SD-ENTRY-CAPABILITY", Section: "8", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.SourceDescription},
	Title:   "The <rs:md> of a Source Description entry has capability=\"capabilitylist\"",
	Quote:   "An optional <rs:md> child element must have a capability attribute with a value of capabilitylist to convey that the URI points to a Capability List.",
	Doc: "The <rs:md> of an entry is optional; when it is there it must say capabilitylist, since a Source Description enumerates Capability Lists and nothing else. " +
		"A value that is not a defined capability at all (capabilitylist misspelt, say) is reported here too: section 8 admits exactly one value.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			md := e.Md
			if md == nil {
				continue
			}
			v, ok := md.Get("capability")
			switch {
			case !ok:
				p.Reportf(md.Pos, "the <rs:md> of a Source Description entry must have capability=\"capabilitylist\"; it has no capability attribute")
			case v != string(rs.CapCapabilityList):
				p.Reportf(md.AttrPosition("capability"), "capability %q: a Source Description lists only Capability Lists, so an entry's capability must be \"capabilitylist\"", v)
			}
		}
		return nil
	},
}

// 8: "A recommended <rs:ln> child element of <urlset> with the relation
// type describedby points to a document that provides information about the
// Source."
var SourceDescriptionDescribedBy = &engine.Rule{
	ID: "RS-SD-DESCRIBEDBY", Section: "8", Level: engine.Should, Scope: engine.ScopeHeader,
	Applies: []rs.Kind{rs.SourceDescription},
	Title:   "The Source Description links to a document about the Source (rel=\"describedby\")",
	Quote:   "A recommended <rs:ln> child element of <urlset> with the relation type describedby points to a document that provides information about the Source.",
	Check: func(p *engine.Pass) error {
		if len(p.Doc.LinksByRel("describedby")) == 0 {
			p.Reportf(p.Doc.Pos, "the Source Description has no top-level <rs:ln rel=\"describedby\" href=\"...\"/>: it is recommended, to point to a document about the Source")
		}
		return nil
	},
}

// 8: "A recommended <rs:ln> child element with a describedby relation type
// points to a document that describes the set of resources described by the
// Capability List."
var SourceDescriptionEntryDescribedBy = &engine.Rule{
	ID: "RS-SD-ENTRY-DESCRIBEDBY", Section: "8", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.SourceDescription},
	Title:   "Each Source Description entry links to a document about its set of resources (rel=\"describedby\")",
	Quote:   "A recommended <rs:ln> child element with a describedby relation type points to a document that describes the set of resources described by the Capability List.",
	Doc:     "Reported on each entry without one: a Source with several Capability Lists needs these links for a Destination to choose between them.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if len(e.LinksByRel("describedby")) == 0 {
				p.Reportf(e.Pos, "the entry for %s has no <rs:ln rel=\"describedby\" href=\"...\"/>: it is recommended, to point to a document describing the Capability List's set of resources", kindsLocName(e))
			}
		}
		return nil
	},
}

// 8: "The <lastmod> elements should be omitted from the Source Description
// unless the Source updates the Source Description every time it updates
// one of the Capability Lists."
var SourceDescriptionLastmod = &engine.Rule{
	ID: "RS-SD-LASTMOD", Section: "8", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.SourceDescription},
	Title:   "The Source Description has no <lastmod>, unless it is updated with every Capability List",
	Quote:   "The <lastmod> elements should be omitted from the Source Description unless the Source updates the Source Description every time it updates one of the Capability Lists.",
	Doc: "The exception cannot be verified on one document, so any <lastmod> is reported, once per document at the first one, and the message states the exception: a Source that does keep them current can suppress the rule (--rules '-RS-SD-LASTMOD'). " +
		"A stale <lastmod> misleads a Destination into thinking a Capability List has not changed.",
	Check: func(p *engine.Pass) error {
		ReportLastmod(p, "Source Description", "Capability Lists")
		return nil
	},
}

// 8: "One <url> child element of <urlset> should be included for each
// Capability List offered by the Source."
var SourceDescriptionEntryUnique = &engine.Rule{
	ID: "RS-SD-ENTRY-UNIQUE", Section: "8", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.SourceDescription},
	Title:   "Each Capability List is listed once in the Source Description",
	Quote:   "One <url> child element of <urlset> should be included for each Capability List offered by the Source.",
	Doc:     "Two entries with the same <loc> (compared as written) list one Capability List twice; the second is reported, with the first as related position.",
	Check: func(p *engine.Pass) error {
		kindsReportDuplicateLocs(p, "Capability List")
		return nil
	},
}

// kindsLocName names an entry by its <loc> for messages.
func kindsLocName(e *rs.Entry) string {
	if e.Loc == "" {
		return "the entry"
	}
	return truncateValue(e.Loc)
}

// ReportLastmod reports the first <lastmod> of a document whose
// <lastmod>s should be omitted, with the number of them. It reads the
// entries once.
func ReportLastmod(p *engine.Pass, doc, children string) {
	var pos rs.Pos // of the first <lastmod>, or of its entry
	n := 0
	for e := range p.Entries() {
		if e.LastmodPos.IsValid() || e.Lastmod != "" {
			if n == 0 {
				pos = e.LastmodPos
				if !pos.IsValid() {
					pos = e.Pos
				}
			}
			n++
		}
	}
	if n == 0 {
		return
	}
	what := "<lastmod> should"
	if n > 1 {
		what = fmt.Sprintf("%d entries have <lastmod> (the first here): <lastmod> elements should", n)
	}
	p.Reportf(pos, "%s be omitted from a %s unless the Source updates the %s every time it updates one of its %s (rsconform cannot tell from one document; suppress the rule if the Source does)", what, doc, doc, children)
}

// kindsReportDuplicateLocs reports every entry whose <loc> an earlier entry
// already gave, reading the entries once.
func kindsReportDuplicateLocs(p *engine.Pass, what string) {
	first := engine.NewFingerprints()
	defer first.Release()
	for e := range p.Entries() {
		if e.Loc == "" {
			continue
		}
		if f, ok := first.Seen(e.Loc, kindsLocPos(e)); ok {
			p.ReportRelated(kindsLocPos(e), []rs.Pos{f}, "%s is listed twice (first at line %d): one entry per %s", truncateValue(e.Loc), f.Line, what)
		}
	}
}

// kindsLocPos is where an entry's <loc> stands, or the entry.
func kindsLocPos(e *rs.Entry) rs.Pos {
	if e.LocPos.IsValid() {
		return e.LocPos
	}
	return e.Pos
}

func init() {
	engine.Register(SourceDescriptionEntryCapability, SourceDescriptionDescribedBy, SourceDescriptionEntryDescribedBy,
		SourceDescriptionLastmod, SourceDescriptionEntryUnique)
}
