package graph

import (
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Archives (ResourceSync Archives 0.9.1 draft): archives links and what
// archive entries lead to.

// archivedCapability is the capability an archive kind archives:
// changelist for a Change List Archive.
func archivedCapability(k rs.Kind) rs.Capability {
	return rs.Capability(strings.TrimSuffix(string(k.Base()), "-archive"))
}

// Archives 2.2: "Individual capability documents such as a Change List or
// a Change List Index may provide a link to the corresponding archive by
// means of a top-level <rs:ln> element with the archives relation type."
var ArchivesLink = &engine.Rule{
	ID: "RS-ARCHIVES-LINK", Section: "Archives 2.2", Level: engine.Must,
	Title:   "The archives link of a capability document leads to the archive of its capability",
	Quote:   "「Change List」や「Change List Index」などの個々の機能ドキュメントは、関係タイプ archives を持つトップレベルの <rs:ln> 要素を使用して、対応するアーカイブへのリンクを提供することができます",
	English: "Capability documents such as a Change List or a Change List Index may link to the corresponding archive with a top-level <rs:ln rel=\"archives\">.",
	Doc:     "The corresponding archive of a Change List is a Change List Archive (or its index), of a Resource List a Resource List Archive, and so on. A target that could not be fetched is left to RS-HTTP-STATUS.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			base := n.Kind.Base()
			switch base {
			case rs.ResourceList, rs.ResourceDump, rs.ChangeList, rs.ChangeDump:
			default:
				continue
			}
			want := rs.Kind(string(base) + "-archive")
			for _, l := range n.Doc.LinksByRel("archives") {
				t := p.Graph.Target(n.URL, l.Href)
				if unknownTarget(t) {
					continue
				}
				if !t.Parsed() || t.Kind.Base() != want {
					p.Reportf(n.URL, l.Pos, "the archives link leads to %s, which is %s, not a %s", t.URL, t.KindName(), want.Title())
				}
			}
		}
		return nil
	}),
}

// Archives 1.2: "The Resource List Archive, Change List Archive, Resource
// Dump Archive and Change Dump Archive documents all point at archived
// instances of the corresponding core capability documents."
var ArchiveTarget = &engine.Rule{
	ID: "RS-ARCHIVE-TARGET", Section: "Archives 1.2", Level: engine.Must,
	Title:   "The entries of an archive are documents of the archived capability",
	Quote:   "「Resource List Archive」、「Change List Archive」、「Resource Dump Archive」および「Change Dump Archive」のドキュメントはすべて、それぞれ対応するコア機能ドキュメント（「Resource List」、「Change List」、「Resource Dump」および「Change Dump」）のアーカイブ済みのインスタンスを指しています。",
	English: "The Resource List Archive, Change List Archive, Resource Dump Archive and Change Dump Archive documents all point at archived instances of the corresponding core capability documents (Resource List, Change List, Resource Dump, Change Dump).",
	Doc:     "Sections 3 to 6 of the draft: each <loc> gives the URI of such a document. An archived Resource List may itself be an index. The entries of an archive index are archives of the same capability: see RS-LISTED-KIND.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			if !n.Kind.IsArchive() || n.Kind.IsIndex() {
				continue
			}
			want := archivedCapability(n.Kind)
			for _, e := range n.Doc.Entries {
				if e.Loc == "" {
					continue
				}
				t := p.Graph.Target(n.URL, e.Loc)
				if unknownTarget(t) {
					continue
				}
				if !t.Parsed() || t.Kind.Capability() != want {
					p.Reportf(n.URL, entryLocPos(e), "%s is %s; a %s lists %ss", t.URL, t.KindName(), n.Kind.Title(), rs.Kind(want).Title())
				}
			}
		}
		return nil
	}),
}

func init() { engine.Register(ArchivesLink, ArchiveTarget) }
