package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Resource Dump Manifests (11.2) and Change Dump Manifests (13.2). That
// every path names a bitstream of the package, and no path leads out of it,
// is for the crawl with --packages (RS-PKG-PATHS, RS-PKG-UNSAFE-PATH).

// 11.2: "A mandatory <rs:md> child element must have a path attribute to
// convey the location of the bitstream within the package. The value of
// the attribute is relative to root of the package, and it is expressed
// with a leading slash (/)."
var ResourceDumpManifestPath = &engine.Rule{
	ID: "RS-RDM-PATH", Section: "11.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDumpManifest},
	Title:   "Every Resource Dump Manifest entry has <rs:md path=\"/...\"> with a leading slash",
	Quote:   "A mandatory <rs:md> child element must have a path attribute to convey the location of the bitstream within the package. The value of the attribute is relative to root of the package, and it is expressed with a leading slash (/).",
	Doc:     "Without the path a Destination cannot find the entry's bitstream in the package.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md == nil {
				p.Reportf(e.Pos, "the entry for %s has no <rs:md>: every Resource Dump Manifest entry must have <rs:md path=\"/...\"/> giving its bitstream in the package", kindsLocName(e))
				continue
			}
			kindsCheckPath(p, e, "Resource Dump Manifest")
		}
		return nil
	},
}

// kindsCheckPath reports a missing path, or one without a leading slash.
func kindsCheckPath(p *engine.Pass, e *rs.Entry, doc string) {
	v, ok := e.Md.Get("path")
	switch {
	case !ok:
		p.Reportf(e.Md.Pos, "the <rs:md> of the entry for %s has no path: a %s entry must give the location of its bitstream in the package, e.g. path=\"/resources/res1\"", kindsLocName(e), doc)
	case v == "":
		p.Reportf(e.Md.AttrPosition("path"), "path is empty: it must give the location of the bitstream in the package, with a leading slash")
	case v[0] != '/':
		p.Reportf(e.Md.AttrPosition("path"), "path %q has no leading slash: it is relative to the root of the package and expressed with a leading slash (%q)", truncateValue(v), "/"+truncateValue(v))
	}
}

// 11.2: "The use of the type attribute in the <rs:md> element is
// recommended to help Destinations determine the Media Type of the
// bitstream."
var ResourceDumpManifestType = &engine.Rule{
	ID: "RS-RDM-TYPE", Section: "11.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDumpManifest},
	Title:   "Resource Dump Manifest entries give the bitstream's Media Type",
	Quote:   "The use of the type attribute in the <rs:md> element is recommended to help Destinations determine the Media Type of the bitstream.",
	Doc:     "A bitstream in a ZIP package has no Content-Type header: type is all a Destination has. An entry without <rs:md> is RS-RDM-PATH's.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md != nil && !e.Md.Has("type") {
				p.Reportf(e.Md.Pos, "the <rs:md> of the entry for %s has no type: the bitstream's Media Type is recommended", kindsLocName(e))
			}
		}
		return nil
	},
}

// 11.2: "One <url> child element of <urlset> per bitstream."
var ResourceDumpManifestPathUnique = &engine.Rule{
	ID: "RS-RDM-PATH-UNIQUE", Section: "11.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDumpManifest},
	Title:   "No two Resource Dump Manifest entries give the same path",
	Quote:   "One <url> child element of <urlset> per bitstream. This element does not have attributes, but uses child elements to convey information about the bitstream.",
	Doc:     "Two entries with one path describe one bitstream twice, as two resources: at least one of them has no bitstream of its own. Paths are compared as written (by a 95-bit fingerprint, as RS-LOC-DUPLICATE compares locs).",
	Check: func(p *engine.Pass) error {
		kindsCheckPathUnique(p)
		return nil
	},
}

// kindsCheckPathUnique reports every path an earlier entry gave, reading
// the entries once; it keeps a fingerprint of each path and where it was
// first given.
func kindsCheckPathUnique(p *engine.Pass) {
	first := engine.NewFingerprints()
	defer first.Release()
	for e := range p.Entries() {
		if e.Md == nil {
			continue
		}
		v, ok := e.Md.Get("path")
		if !ok || v == "" {
			continue
		}
		pos := e.Md.AttrPosition("path")
		if f, dup := first.Seen(v, pos); dup {
			p.ReportRelated(pos, []rs.Pos{f},
				"path %q is given by an earlier entry too (line %d): each entry describes its own bitstream", truncateValue(v), f.Line)
		}
	}
}

// 13.2: "All entries in a Change Dump Manifest must be provided in forward
// chronological order: the bitstream associated with the least recent
// resource change is listed first, and the bitstream associated with the
// most recent change is listed last."
var ChangeDumpManifestOrder = &engine.Rule{
	ID: "RS-CDM-ORDER", Section: "13.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest}, Requires: []engine.Value{entryTimes},
	Title: "Change Dump Manifest entries are in forward chronological order",
	Quote: "All entries in a Change Dump Manifest must be provided in forward chronological order: the bitstream associated with the least recent resource change is listed first, and the bitstream associated with the most recent change is listed last.",
	Doc:   "Checked as RS-CL-ORDER: on the datetime attribute under 1.1, on <lastmod> under the 1.0 profile; entries without a change time are skipped.",
	Check: func(p *engine.Pass) error {
		checkForwardOrder(p, func(e *rs.Entry) (rs.Datetime, rs.Pos, bool) { return changeTimeOf(p, e) }, "change time", forwardOrder)
		return nil
	},
}

// 13.2: "A mandatory <rs:md> child element must have a change attribute to
// convey the type of change the resource underwent. The change attribute
// value may be created, updated, or deleted."
var ChangeDumpManifestChange = &engine.Rule{
	ID: "RS-CDM-CHANGE", Section: "13.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "Every Change Dump Manifest entry has an <rs:md> with a change attribute",
	Quote:   "A mandatory <rs:md> child element must have a change attribute to convey the type of change the resource underwent. The change attribute value may be created, updated, or deleted.",
	Doc:     "This rule checks that the attribute is there; its value (created, updated or deleted) is RS-CHANGE-VALUE's.",
	Check: func(p *engine.Pass) error {
		kindsCheckChange(p, "Change Dump Manifest")
		return nil
	},
}

// 13.2: "Except in the case of change="deleted", the element must also have
// a path attribute to convey the location of the bitstream within the ZIP
// package. The path is relative to the root of the package and it is
// expressed with a leading slash (/)."
var ChangeDumpManifestPath = &engine.Rule{
	ID: "RS-CDM-PATH", Section: "13.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "Every Change Dump Manifest entry but a deletion has path=\"/...\" with a leading slash",
	Quote:   "Except in the case of change=\"deleted\", the element must also have a path attribute to convey the location of the bitstream within the ZIP package. The path is relative to the root of the package and it is expressed with a leading slash (/).",
	Doc: "An entry with change=\"deleted\" need not have a path (a deleted resource has no bitstream; see RS-CDM-DELETED-PATH); any other entry, including one whose change is missing or unknown, must. A path, wherever given, has a leading slash. " +
		"An entry without <rs:md> is RS-CDM-CHANGE's.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md == nil {
				continue
			}
			if e.Md.Change == "deleted" && !e.Md.Has("path") {
				continue
			}
			kindsCheckPath(p, e, "Change Dump Manifest")
		}
		return nil
	},
}

// 13.2: "Except in the case of change="deleted", the element must also have
// a path attribute" (the exemption, read with Example 23).
var ChangeDumpManifestDeletedPath = &engine.Rule{
	ID: "RS-CDM-DELETED-PATH", Section: "13.2", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "A change=\"deleted\" entry has no path",
	Quote:   "Except in the case of change=\"deleted\", the element must also have a path attribute to convey the location of the bitstream within the ZIP package.",
	Doc: "The specification exempts deletions from the path without forbidding one. A deleted resource has no state to package (Example 23 gives its deletion neither path, type, hash nor length), so a path there points at a bitstream a Destination will not use: " +
		"rsconform says so as a hint, not as a warning.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md != nil && e.Md.Change == "deleted" && e.Md.Has("path") {
				p.Reportf(e.Md.AttrPosition("path"), "the entry records a deletion but gives path %q: a deleted resource has no bitstream, and a Destination deletes its copy without reading one", truncateValue(e.Md.Path))
			}
		}
		return nil
	},
}

// 13.2: "The use of the type attribute in the <rs:md> element is strongly
// recommended to help Destinations determine the Media Type of the
// bitstream."
var ChangeDumpManifestType = &engine.Rule{
	ID: "RS-CDM-TYPE", Section: "13.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "Change Dump Manifest entries give the bitstream's Media Type",
	Quote:   "The use of the type attribute in the <rs:md> element is strongly recommended to help Destinations determine the Media Type of the bitstream.",
	Doc:     "Not checked on change=\"deleted\" entries, which have no bitstream (Example 23). An entry without <rs:md> is RS-CDM-CHANGE's.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.Md != nil && e.Md.Change != "deleted" && !e.Md.Has("type") {
				p.Reportf(e.Md.Pos, "the <rs:md> of the entry for %s has no type: the bitstream's Media Type is strongly recommended", kindsLocName(e))
			}
		}
		return nil
	},
}

// 13.2: "One <url> child element of <urlset> should be included for each
// resource change, and hence for each bitstream."
var ChangeDumpManifestPathUnique = &engine.Rule{
	ID: "RS-CDM-PATH-UNIQUE", Section: "13.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "No two Change Dump Manifest entries give the same path",
	Quote:   "One <url> child element of <urlset> should be included for each resource change, and hence for each bitstream.",
	Doc:     "A resource changed twice has two bitstreams at two paths (Example 23: /changes/res7.html and /changes/res7-v2.html); one path given twice makes two changes share one bitstream. Paths are compared as written (by a 95-bit fingerprint, as RS-LOC-DUPLICATE compares locs).",
	Check: func(p *engine.Pass) error {
		kindsCheckPathUnique(p)
		return nil
	},
}

func init() {
	engine.Register(ResourceDumpManifestPath, ResourceDumpManifestType, ResourceDumpManifestPathUnique,
		ChangeDumpManifestOrder, ChangeDumpManifestChange, ChangeDumpManifestPath, ChangeDumpManifestDeletedPath,
		ChangeDumpManifestType, ChangeDumpManifestPathUnique)
}
