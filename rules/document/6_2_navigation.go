package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Navigation links (6.2) and the link attributes of section 7.

// 6.2, 9 to 13: every document under a Capability List links up to it, and
// the Capability List links up to the Source Description.
var LinkUp = &engine.Rule{
	ID: "RS-LINK-UP", Section: "6.2", Level: engine.Must, Scope: engine.ScopeHeader,
	Applies: kindsExcept(rs.SourceDescription, rs.SourceDescriptionIndex),
	Title:   "The document has an <rs:ln rel=\"up\"> to the document above it",
	Quote:   "A mandatory <rs:ln> child element of <urlset> points to the Capability List with the relation type up.",
	Doc: "Sections 9 to 13 make the up link mandatory in Capability Lists (to the Source Description) and in every Resource List, Resource List Index, Resource Dump, Resource Dump Manifest, Change List, Change List Index, Change Dump and Change Dump Manifest (to the Capability List); Resource and Change Dump Indexes are built 'in a manner similar' and the Archives draft requires it of archives and their indexes. " +
		"The walkthrough of section 1.3 (Examples 1 to 5 and 8) omits it; rsconform reports it there too, and its fixtures record that.",
	Check: func(p *engine.Pass) error {
		ups := p.Doc.LinksByRel("up")
		switch {
		case len(ups) == 0:
			target := "Capability List"
			if p.Kind.Base() == rs.CapabilityList {
				target = "Source Description"
			}
			p.Reportf(p.Doc.Pos, "a %s must have a top-level <rs:ln rel=\"up\" href=\"...\"/> pointing to its %s", p.Kind.Title(), target)
		case len(ups) > 1:
			var rel []rs.Pos
			for _, l := range ups[:len(ups)-1] {
				rel = append(rel, l.Pos)
			}
			p.ReportRelated(ups[len(ups)-1].Pos, rel, "%d up links: a document sits under exactly one document, so it has one up link", len(ups))
		case ups[0].Href == "":
			p.Reportf(ups[0].Pos, "the up link has no href")
		}
		return nil
	},
}

func init() { engine.Register(LinkUp) }
