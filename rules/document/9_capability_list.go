package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Capability Lists (section 9). The up link is RS-LINK-UP, the discouraged
// index RS-CAPLIST-NO-INDEX; whether an entry's capability value is one a
// Destination knows is a section 7 matter.

// 9: "A mandatory <rs:md> child element must have a capability attribute
// to convey the type of the respective capability."
var CapabilityListEntryMd = &engine.Rule{
	ID: "RS-CAPLIST-ENTRY-MD", Section: "9", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "Every Capability List entry has an <rs:md> with a capability attribute",
	Quote:   "A mandatory <rs:md> child element must have a capability attribute to convey the type of the respective capability.",
	Doc:     "Without it a Destination cannot tell a Resource List from a Change List without fetching it. This rule checks that the attribute is there; which values it may take is checked by the rules on capability values.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			switch {
			case e.Md == nil:
				p.Reportf(e.Pos, "the entry for %s has no <rs:md>: every Capability List entry must say what it points to with <rs:md capability=\"...\"/>", kindsLocName(e))
			case !e.Md.Has("capability"):
				p.Reportf(e.Md.Pos, "the <rs:md> of a Capability List entry must have a capability attribute (resourcelist, resourcedump, changelist, changedump, ...)")
			}
		}
		return nil
	},
}

// 9: "A Capability List must only contain one entry per capability."
var CapabilityListUnique = &engine.Rule{
	ID: "RS-CAPLIST-UNIQUE", Section: "9", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "A Capability List has one entry per capability",
	Quote:   "A Capability List must only contain one entry per capability.",
	Doc: "Entries are compared on their capability value as written, whatever it is (capabilities of other specifications included). " +
		"A Source with more Resource Lists than one document holds lists a Resource List Index in the one resourcelist entry; a Source with several sets of resources publishes one Capability List per set.",
	Check: func(p *engine.Pass) error {
		first := engine.NewFingerprints() // each capability with where it was first given
		defer first.Release()
		for e := range p.Entries() {
			if e.Md == nil {
				continue
			}
			v, ok := e.Md.Get("capability")
			if !ok || v == "" {
				continue
			}
			pos := e.Md.AttrPosition("capability")
			if f, dup := first.Seen(v, pos); dup {
				p.ReportRelated(pos, []rs.Pos{f},
					"capability %q again (first at line %d): a Capability List must only contain one entry per capability; group several documents of a capability in an index", v, f.Line)
			}
		}
		return nil
	},
}

// 9: "A Capability List points at the capability documents for its set of
// resources: Resource List (10.1), Resource Dump (11.1), Change List
// (12.1), and Change Dump (13.1)."
var CapabilityListEntryKind = &engine.Rule{
	ID: "RS-CAPLIST-ENTRY-KIND", Section: "9", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "A Capability List lists capability documents, not Capability Lists, Source Descriptions or manifests",
	Quote:   "A Capability List points at the capability documents for its set of resources: Resource List (10.1), Resource Dump (11.1), Change List (12.1), and Change Dump (13.1).",
	Doc: "The hierarchy of section 6.1 has the Source Description list Capability Lists and each Capability List list capability documents; an entry with capability capabilitylist or description points back up or sideways, and a manifest is not published on its own but inside its package (sections 11.2 and 13.2). " +
		"The archives of the Archives draft (resourcelist-archive, ...) are capability documents too, and so are capabilities of other specifications.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md == nil {
				continue
			}
			v, ok := e.Md.Get("capability")
			if !ok {
				continue
			}
			var why string
			switch rs.Capability(v) {
			case rs.CapCapabilityList:
				why = "a Capability List is listed by the Source Description, not by another Capability List"
			case rs.CapDescription:
				why = "the Source Description sits above the Capability List (its up link), it is not one of its capabilities"
			case rs.CapResourceDumpManifest, rs.CapChangeDumpManifest:
				why = "a manifest is part of its package and is reached through the dump, not listed as a capability"
			default:
				continue
			}
			p.Reportf(e.Md.AttrPosition("capability"), "capability %q in a Capability List: %s", v, why)
		}
		return nil
	},
}

// 9: "A recommended <rs:ln> child element of <urlset> with the relation
// type describedby points to a document that provides information about
// the set of resources covered by the Capability List."
var CapabilityListDescribedBy = &engine.Rule{
	ID: "RS-CAPLIST-DESCRIBEDBY", Section: "9", Level: engine.Should, Scope: engine.ScopeHeader,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "The Capability List links to a document about its set of resources (rel=\"describedby\")",
	Quote:   "A recommended <rs:ln> child element of <urlset> with the relation type describedby points to a document that provides information about the set of resources covered by the Capability List.",
	Check: func(p *engine.Pass) error {
		if len(p.Doc.LinksByRel("describedby")) == 0 {
			p.Reportf(p.Doc.Pos, "the Capability List has no top-level <rs:ln rel=\"describedby\" href=\"...\"/>: it is recommended, to point to a document about the set of resources it covers")
		}
		return nil
	},
}

// 9: "The <lastmod> elements should be omitted from the Capability List
// unless the Source updates the Capability List every time it updates one
// of the capability documents."
var CapabilityListLastmod = &engine.Rule{
	ID: "RS-CAPLIST-LASTMOD", Section: "9", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "The Capability List has no <lastmod>, unless it is updated with every capability document",
	Quote:   "The <lastmod> elements should be omitted from the Capability List unless the Source updates the Capability List every time it updates one of the capability documents.",
	Doc:     "As for RS-SD-LASTMOD: the exception cannot be verified on one document, so any <lastmod> is reported, once per document, and the message states the exception.",
	Check: func(p *engine.Pass) error {
		ReportLastmod(p, "Capability List", "capability documents")
		return nil
	},
}

func init() {
	engine.Register(CapabilityListEntryMd, CapabilityListUnique, CapabilityListEntryKind, CapabilityListDescribedBy, CapabilityListLastmod)
}
