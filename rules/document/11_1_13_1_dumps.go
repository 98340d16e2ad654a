package document

import (
	"fmt"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Resource Dumps (11.1) and Change Dumps (13.1): the entries are packages.
// Whether a package holds its manifest, and whether a contents link leads
// to a copy of it, is for the crawl (RS-PKG-MANIFEST, RS-DUMP-CONTENTS).

// 11.1: "A recommended <rs:md> child element to convey the Media Type and
// the length of the package using the type and length attribute,
// respectively."
var ResourceDumpEntryMd = &engine.Rule{
	ID: "RS-RD-ENTRY-MD", Section: "11.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDump},
	Title:   "Every Resource Dump entry gives the package's type and length in <rs:md>",
	Quote:   "A recommended <rs:md> child element to convey the Media Type and the length of the package using the type and length attribute, respectively.",
	Doc:     "The type tells a Destination which packaging format to expect before it downloads the package, the length how large the download is.",
	Check: func(p *engine.Pass) error {
		kindsCheckPackageMd(p)
		return nil
	},
}

// 13.1: the same sentence for Change Dumps.
var ChangeDumpEntryMd = &engine.Rule{
	ID: "RS-CD-ENTRY-MD", Section: "13.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDump},
	Title:   "Every Change Dump entry gives the package's type and length in <rs:md>",
	Quote:   "A recommended <rs:md> child element to convey the Media Type and the length of the package using the type and length attribute, respectively.",
	Doc:     "As RS-RD-ENTRY-MD. The from and until of the package are RS-TIME-ENTRY-FROM's (Appendix A).",
	Check: func(p *engine.Pass) error {
		kindsCheckPackageMd(p)
		return nil
	},
}

func kindsCheckPackageMd(p *engine.Pass) {
	for e := range p.Entries() {
		if e.Md == nil {
			p.Reportf(e.Pos, "the package %s has no <rs:md type=\"...\" length=\"...\"/>: its Media Type and length are recommended", kindsLocName(e))
			continue
		}
		var missing []string
		for _, a := range []string{"type", "length"} {
			if !e.Md.Has(a) {
				missing = append(missing, a)
			}
		}
		if len(missing) > 0 {
			p.Reportf(e.Md.Pos, "the <rs:md> of the package %s has no %s: the package's Media Type and length are recommended", kindsLocName(e), strings.Join(missing, " and no "))
		}
	}
}

// 11.1: "A Resource Dump should only point to packages of the same format."
var ResourceDumpSameFormat = &engine.Rule{
	ID: "RS-RD-SAME-FORMAT", Section: "11.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDump},
	Title:   "All packages of a Resource Dump have the same format",
	Quote:   "A Resource Dump should only point to packages of the same format.",
	Doc: "The format is read from the type of each entry's <rs:md>, compared without parameters and case aside; application/x-zip and application/x-zip-compressed count as ZIP. " +
		"Entries without type are not compared (RS-RD-ENTRY-MD). Each entry whose format differs from the first typed entry's is reported.",
	Check: func(p *engine.Pass) error {
		kindsCheckSameFormat(p)
		return nil
	},
}

// 13.1: "A Change Dump should only point to packages of the same format."
var ChangeDumpSameFormat = &engine.Rule{
	ID: "RS-CD-SAME-FORMAT", Section: "13.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDump},
	Title:   "All packages of a Change Dump have the same format",
	Quote:   "A Change Dump should only point to packages of the same format.",
	Doc:     "As RS-RD-SAME-FORMAT.",
	Check: func(p *engine.Pass) error {
		kindsCheckSameFormat(p)
		return nil
	},
}

// kindsPackageFormat normalises a package's media type: lower case, no
// parameters, the ZIP aliases folded into application/zip.
func kindsPackageFormat(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	t = strings.ToLower(strings.TrimSpace(t))
	switch t {
	case "application/x-zip", "application/x-zip-compressed":
		return "application/zip"
	}
	return t
}

// kindsCheckSameFormat compares each package's format with the first
// typed package's, of which it keeps copies of what its messages need.
func kindsCheckSameFormat(p *engine.Pass) {
	var first rs.Pos
	var firstFormat, firstType string
	have := false
	for e := range p.Entries() {
		if e.Md == nil {
			continue
		}
		v, ok := e.Md.Get("type")
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		f := kindsPackageFormat(v)
		if !have {
			first, firstFormat, firstType, have = e.Md.AttrPosition("type"), strings.Clone(f), strings.Clone(e.Md.Type), true
			continue
		}
		if f != firstFormat {
			p.ReportRelated(e.Md.AttrPosition("type"), []rs.Pos{first},
				"the package %s is %q but the first package (line %d) is %q: a %s should only point to packages of the same format", kindsLocName(e), v, first.Line, firstType, p.Kind.Title())
		}
	}
}

// 11.1: "The ResourceSync framework recommends the use of the ZIP file
// format as the packaging format."
var ResourceDumpZip = &engine.Rule{
	ID: "RS-RD-ZIP", Section: "11.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDump},
	Title:   "Resource Dump packages are ZIP files",
	Quote:   "The ResourceSync framework recommends the use of the ZIP file format as the packaging format. Communities may define their own packaging format, but need to be aware that doing so will have a negative impact on cross-community interoperability.",
	Doc: "Read from the type of each entry's <rs:md> (application/zip, or its aliases application/x-zip and application/x-zip-compressed); entries without type are not checked. " +
		"Reported once per document, at the first package of another format, with the count.",
	Check: func(p *engine.Pass) error {
		kindsCheckZip(p)
		return nil
	},
}

// 13.1: "The ResourceSync framework specifies the use of the ZIP file
// format as the packaging format. Communities may define their own
// packaging format."
var ChangeDumpZip = &engine.Rule{
	ID: "RS-CD-ZIP", Section: "13.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDump},
	Title:   "Change Dump packages are ZIP files",
	Quote:   "The ResourceSync framework specifies the use of the ZIP file format as the packaging format. Communities may define their own packaging format.",
	Doc:     "Since communities may define their own format, another format is a warning, not an error. Checked as RS-RD-ZIP.",
	Check: func(p *engine.Pass) error {
		kindsCheckZip(p)
		return nil
	},
}

// kindsCheckZip reports the first package of another format than ZIP,
// with the count, keeping a copy of its type.
func kindsCheckZip(p *engine.Pass) {
	var first rs.Pos
	var firstType string
	n := 0
	for e := range p.Entries() {
		if e.Md == nil {
			continue
		}
		v, ok := e.Md.Get("type")
		if !ok || strings.TrimSpace(v) == "" || kindsPackageFormat(v) == "application/zip" {
			continue
		}
		if n == 0 {
			first, firstType = e.Md.AttrPosition("type"), strings.Clone(e.Md.Type)
		}
		n++
	}
	if n == 0 {
		return
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %d more packages)", n-1)
	}
	p.Reportf(first, "package type %q%s: ResourceSync packages are ZIP files (application/zip); another format harms interoperability", firstType, more)
}

// 13.1: "All entries in a Change Dump should be provided in forward
// chronological order: the least recently published package listed at the
// beginning of the Change Dump, the most recently published package listed
// at the end of the document."
var ChangeDumpOrder = &engine.Rule{
	ID: "RS-CD-ORDER", Section: "13.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDump},
	Title:   "Change Dump entries are in forward chronological order",
	Quote:   "All entries in a Change Dump should be provided in forward chronological order: the least recently published package listed at the beginning of the Change Dump, the most recently published package listed at the end of the document.",
	Doc: "The publication time of a package is not conveyed; its from (the start of the changes it packages) is, and a package is published after the packages of earlier changes. " +
		"So the order is checked on the from of each entry's <rs:md>: each must not be earlier than the from of an entry listed before it. Entries without from are skipped (RS-TIME-ENTRY-FROM); <lastmod> is not used.",
	Check: func(p *engine.Pass) error {
		checkForwardOrder(p, func(e *rs.Entry) (rs.Datetime, rs.Pos, bool) { return kindsMdTime(e.Md, "from") },
			"from", "Change Dump entries should be in forward chronological order, the least recently published package first")
		return nil
	},
}

func init() {
	engine.Register(ResourceDumpEntryMd, ChangeDumpEntryMd, ResourceDumpSameFormat, ChangeDumpSameFormat,
		ResourceDumpZip, ChangeDumpZip, ChangeDumpOrder)
}
