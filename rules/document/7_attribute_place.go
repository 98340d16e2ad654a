package document

import (
	"fmt"
	"slices"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Where the entry-level attributes of section 7 may appear: path, change,
// datetime and capability, and the value of capability in Capability List
// entries.

// attrPlaceCheck reports attribute name wherever it stands on an <rs:md>
// (onMd) or <rs:ln> (onLn) that allowed does not accept. why completes the
// message.
func attrPlaceCheck(p *engine.Pass, name string, onMd, onLn bool, allowed func(entry *rs.Entry) bool, why func(entry *rs.Entry) string) {
	for a := range attrValues(p, name, onMd, onLn) {
		if allowed(a.entry) {
			continue
		}
		where := "the " + a.elem + " of an entry"
		if a.entry == nil {
			where = "the top-level " + a.elem
		}
		p.Reportf(a.pos(), "the %s attribute on %s of a %s: %s", name, where, p.Kind.Title(), why(a.entry))
	}
}

// 7: "path – The attribute is only used in Resource Dump Manifests (11.2)
// and Change Dump Manifests (13.2)."
var PathPlace = &engine.Rule{
	ID: "RS-PATH-PLACE", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: KnownKinds,
	Title:   "path appears only on entries of Resource Dump Manifests and Change Dump Manifests",
	Quote:   "path – The attribute is only used in Resource Dump Manifests (11.2) and Change Dump Manifests (13.2). Its value conveys the file path of the bitstream associated with the URI in <loc> in the ZIP file.",
	Doc: "Checked on <rs:md> and on <rs:ln>: section 7 gives path to <rs:ln> \"with meanings as described earlier in this section\", and 14.4 uses it on the <rs:ln> of a Change Dump Manifest entry that points to a change description inside the package. " +
		"A path names a bitstream of an entry, so on the top-level <rs:md> or <rs:ln> of a manifest it has no meaning either. Elsewhere there is no package for the path to point into. " +
		"Whether manifest entries carry path where it is mandatory, and the form of its value (leading slash), belong to the rules of 11.2 and 13.2.",
	Check: func(p *engine.Pass) error {
		manifest := p.Kind.IsManifest()
		attrPlaceCheck(p, "path", true, true,
			func(e *rs.Entry) bool { return manifest && e != nil },
			func(e *rs.Entry) string {
				if manifest {
					return "a path locates the bitstream of an entry in the package; it belongs on the entries' <rs:md> and <rs:ln>"
				}
				return "path is only used in Resource Dump Manifests and Change Dump Manifests, to locate a bitstream in the ZIP package"
			})
		return nil
	},
}

// attrChangeKinds are the documents where change and datetime are used.
var attrChangeKinds = []rs.Kind{rs.ChangeList, rs.ChangeDumpManifest}

// 7: "change – ... This attribute is used in Change Lists (12.1) and
// Change Dump Manifests (13.2)." No keyword, and nothing forbids change
// elsewhere: a hint (info).
var ChangePlace = &engine.Rule{
	ID: "RS-CHANGE-PLACE", Section: "7", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: KnownKinds,
	Title:   "change appears only on entries of Change Lists and Change Dump Manifests",
	Quote:   "change – The value of the attribute conveys the type of change that a resource underwent. Values defined in this specification are created, updated, and deleted, which convey the creation, update, and deletion of a resource, respectively. This attribute is used in Change Lists (12.1) and Change Dump Manifests (13.2).",
	Doc: "Section 7 names the documents that use change, with no keyword, and does not forbid it elsewhere (unlike path, \"only used\"): a document with change elsewhere is valid, so this is a hint (info), neither an error nor a warning. In a Resource List, a Resource Dump Manifest, an index or a Capability List a change has no defined meaning, and it usually betrays a Change List writer reused for another document. " +
		"On the top-level <rs:md> it is reported in Change Lists too: change describes the resource in an entry's <loc>, and the top-level <rs:md> describes the document.",
	Check: func(p *engine.Pass) error {
		inChange := slices.Contains(attrChangeKinds, p.Kind)
		attrPlaceCheck(p, "change", true, false,
			func(e *rs.Entry) bool { return inChange && e != nil },
			func(e *rs.Entry) string {
				if inChange {
					return "change conveys the change a resource underwent and belongs on the entries' <rs:md>"
				}
				return "change is used in Change Lists and Change Dump Manifests, where an entry is a change; here it has no defined meaning"
			})
		return nil
	},
}

// 7: "datetime -- ... This attribute may be used in Change Lists (Section
// 12.1) and Change Dump Manifests (Section 13.2)." The may makes it
// optional there and forbids nothing elsewhere: a hint (info).
var DatetimePlace = &engine.Rule{
	ID: "RS-DATETIME-PLACE", Section: "7", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: KnownKinds, Specs: []engine.Spec{engine.Spec11},
	Title: "datetime appears only on entries of Change Lists and Change Dump Manifests",
	Quote: "datetime -- The value of the attribute conveys the datetime of the change event for the resource. The value is expressed as a W3C Datetime as described earlier in this section. This attribute may be used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2).",
	Doc: "The datetime of a change event only means something where entries are change events. As for change (RS-CHANGE-PLACE), section 7 names the documents (with may) without forbidding others, so this is a hint (info). " +
		"A snapshot time belongs in at/completed, a last modification time in <lastmod>. On the top-level <rs:md> it is reported in Change Lists too: the document's interval is from/until. " +
		"ResourceSync 1.0 has no datetime attribute at all (RS-V10-DATETIME), so this rule belongs to the 1.1 profile.",
	Check: func(p *engine.Pass) error {
		inChange := slices.Contains(attrChangeKinds, p.Kind)
		attrPlaceCheck(p, "datetime", true, false,
			func(e *rs.Entry) bool { return inChange && e != nil },
			func(e *rs.Entry) string {
				if inChange {
					return "datetime is the time of an entry's change event; the document's interval is from/until"
				}
				return "datetime is the time of a change event, used in Change Lists and Change Dump Manifests (a snapshot time is at/completed, a modification time <lastmod>)"
			})
		return nil
	},
}

// attrCapabilityEntryKinds are the documents whose entries carry
// capability: Source Descriptions and Capability Lists, and their indexes
// (whose entries point at further parts of the same document).
var attrCapabilityEntryKinds = []rs.Kind{rs.SourceDescription, rs.SourceDescriptionIndex, rs.CapabilityList, rs.CapabilityListIndex}

// 7: "capability – This attribute is mandatory in Source Descriptions and
// Capability Lists. Its value indicates the nature of the resource
// identified by the URI in the <loc> element" The mandatory is about
// those two documents; nothing forbids capability on other entries: a
// hint (info).
var CapabilityEntryPlace = &engine.Rule{
	ID: "RS-CAPABILITY-ENTRY-PLACE", Section: "7", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: kindsExcept(attrCapabilityEntryKinds...),
	Title:   "Entries carry capability only in Source Descriptions and Capability Lists",
	Quote:   "capability – This attribute is mandatory in Source Descriptions and Capability Lists. Its value indicates the nature of the resource identified by the URI in the <loc> element, e.g., a Resource List, a Change List, a Change Dump, etc. Values defined in this specification are resourcelist, changelist, resourcedump, changedump, and capabilitylist.",
	Doc: "On an entry, capability says that the URI in <loc> is a capability document. In every other document the entries are resources, packages, bitstreams or parts of an index, and none of the sections 10 to 13 (nor the Archives draft) lists capability among their attributes: on a Resource List entry it would claim the resource is itself a ResourceSync document. " +
		"The sentence's mandatory is about Source Descriptions and Capability Lists, and no sentence forbids capability on other entries, so this is a hint (info). Indexes of Source Descriptions and Capability Lists are not checked. Whether Source Description and Capability List entries carry it (mandatory) is checked by the rules of sections 8 and 9.",
	Check: func(p *engine.Pass) error {
		for x := range p.ElementsWith(mdCapability.Set(), 0) {
			if m := x.Md; x.Entry != nil {
				p.Reportf(m.AttrPosition("capability"), "capability=%q on an entry of a %s: entries carry capability in Source Descriptions and Capability Lists, where <loc> is a capability document; here it has no defined meaning", truncateValue(m.Capability), p.Kind.Title())
			}
		}
		return nil
	},
}

// 6.1: "The capabilities defined in this ResourceSync specification are
// Resource List, Change List, Resource Dump, and Change Dump. Additional
// capabilities may be defined in other specifications." A value rsconform
// does not know may be another specification's: a hint (info).
var CapabilityEntryValue = &engine.Rule{
	ID: "RS-CAPABILITY-ENTRY-VALUE", Section: "9", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.CapabilityList},
	Title:   "Capability List entries name capabilities a Destination knows",
	Quote:   "A mandatory <rs:md> child element must have a capability attribute to convey the type of the respective capability.",
	Doc: "Section 6.1: \"The capabilities defined in this ResourceSync specification are Resource List, Change List, Resource Dump, and Change Dump. Additional capabilities may be defined in other specifications.\" The Archives draft defines resourcelist-archive, resourcedump-archive, changelist-archive and changedump-archive. " +
		"The sentence's must is about the attribute being there, and a value none of these define may be another specification's (the may of 6.1), so it is neither an error nor a warning; but a ResourceSync Destination that knows no such specification cannot use the capability it announces: a hint (info), with a suggestion when it differs from a known value only in case (values are case-sensitive). " +
		"Known values that are not capabilities offered in a Capability List (description, capabilitylist, the manifests) are left to the rules of section 9 and to crawling (RS-LISTED-KIND). Source Description entries must say capabilitylist (section 8), which the rules of section 8 check.",
	Check: func(p *engine.Pass) error {
		for x := range p.ElementsWith(mdCapability.Set(), 0) {
			if m := x.Md; x.Entry != nil && !rs.Capability(m.Capability).Known() {
				msg := fmt.Sprintf("capability %q is not defined by ResourceSync or its Archives draft (resourcelist, changelist, resourcedump, changedump, resourcelist-archive, resourcedump-archive, changelist-archive, changedump-archive): a Destination will not know what the document at <loc> offers unless another specification it implements defines it", truncateValue(m.Capability))
				if c := caseFold(m.Capability); c != "" {
					msg += fmt.Sprintf("; values are case-sensitive: did you mean %q?", c)
				}
				p.Reportf(m.AttrPosition("capability"), "%s", msg)
			}
		}
		return nil
	},
}

// mdCapability is the capability attribute of <rs:md>, named once.
var mdCapability = rs.MdAttrOf("capability")

func init() {
	engine.Register(PathPlace, ChangePlace, DatetimePlace, CapabilityEntryPlace, CapabilityEntryValue)
}
