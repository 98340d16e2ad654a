package graph

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Navigation between documents (6.1, 6.2): where up and index links lead,
// and whether documents are what their parents announce.

// 6.2: "This pointer has up as the value for the rel attribute, and the URI
// of the document that sits higher in the hierarchy is provided as the
// value of the href attribute."
var UpTarget = &engine.Rule{
	ID: "RS-UP-TARGET", Section: "6.2", Level: engine.Must,
	Title: "The up link leads to the document above: the Capability List, or for a Capability List the Source Description",
	Quote: "A link for upward navigation is provided by means of an <rs:ln> child element of the <urlset> or <sitemapindex> element of a document. This pointer has up as the value for the rel attribute, and the URI of the document that sits higher in the hierarchy is provided as the value of the href attribute. Following consecutive up links eventually leads to the Source Description.",
	Doc: "Section 7: up is \"for linking from a Capability List to the Source Description and from a document that conveys a capability, such as a Resource List, to the Capability List under which it resides\". " +
		"So the target of a Capability List's up link must be a Source Description, and that of any other document under a Capability List (lists, indexes, dumps, manifests, archives) a Capability List. " +
		"When the crawl reached the document from a Capability List (or the Capability List from a Source Description), the up link must lead back to that very document. " +
		"And the document the up link leads to must be the one it resides under: it lists the document, or an index, archive or dump (through <loc> and contents links) under which the document is listed; this is checked when the crawl fetched everything that document lists. A target that could not be fetched is left to RS-HTTP-STATUS.",
	CheckGraph: Check(func(p *Pass) error {
		aliases := p.Graph.redirectAliases()
		for _, n := range p.Graph.docs() {
			base := n.Kind.Base()
			if base == rs.SourceDescription {
				continue
			}
			up := n.Doc.Link("up")
			if up == nil || up.Href == "" {
				continue
			}
			want := rs.CapabilityList
			if base == rs.CapabilityList {
				want = rs.SourceDescription
			}
			t := p.Graph.Target(n.URL, up.Href)
			if unknownTarget(t) {
				continue
			}
			if !t.Parsed() || t.Kind.Base() != want {
				p.Reportf(n.URL, up.Pos, "the up link leads to %s, which is %s: the up link of a %s leads to its %s", t.URL, t.KindName(), n.Kind.Title(), want.Title())
				continue
			}
			// The document above that lists this one.
			reported := false
			for _, e := range n.In {
				from := p.Graph.Node(e.From)
				if e.Rel != "loc" || !from.Parsed() || from.Kind != want || from.URL == t.URL {
					continue
				}
				p.ReportRelated(n.URL, up.Pos, []engine.Location{loc(from.URL, e.Pos)}, "the up link leads to %s, but the document is listed by the %s %s", t.URL, want.Title(), from.URL)
				reported = true
				break
			}
			if !reported && !p.Graph.leadsDown(t, n.URL, aliases) && p.Graph.sawBelow(t) {
				p.ReportRelated(n.URL, up.Pos, []engine.Location{loc(t.URL, t.Doc.Pos)}, "the up link leads to the %s %s, which lists neither this document nor an index, archive or dump that does", want.Title(), t.URL)
			}
		}
		return nil
	}),
}

// 6.2: "This pointer has index as the value for the rel attribute, and the
// URI of the index document is provided as the value of the href attribute."
var IndexTarget = &engine.Rule{
	ID: "RS-INDEX-TARGET", Section: "6.2", Level: engine.Must,
	Title: "The index link leads to an index of the same capability that lists the document",
	Quote: "A link for navigation from a document to the index under which it resides, if one exists, is provided by means of an <rs:ln> child element of the <urlset> element of the document. This pointer has index as the value for the rel attribute, and the URI of the index document is provided as the value of the href attribute.",
	Doc:   "The index under which a Resource List resides is a Resource List Index: a <sitemapindex> with the same capability (6.1), with a <sitemap> entry whose <loc> is the document. A target that could not be fetched is left to RS-HTTP-STATUS.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			for _, l := range n.Doc.LinksByRel("index") {
				if l.Href == "" {
					continue
				}
				t := p.Graph.Target(n.URL, l.Href)
				if unknownTarget(t) {
					continue
				}
				want := n.Kind.Base().Index()
				if !t.Parsed() || t.Kind != want {
					p.Reportf(n.URL, l.Pos, "the index link leads to %s, which is %s, not a %s", t.URL, t.KindName(), want.Title())
					continue
				}
				if !lists(t, n.URL) {
					p.ReportRelated(n.URL, l.Pos, []engine.Location{loc(t.URL, t.Doc.Pos)}, "the index link leads to %s, which does not list this document", t.URL)
				}
			}
		}
		return nil
	}),
}

// leadsDown reports whether the document at u sits under top: top lists
// it, or lists an index, archive or dump that does (through <loc> and
// contents links, a few levels deep).
func (g *Graph) leadsDown(top *Node, u string, aliases map[string][]string) bool {
	seen := map[string]bool{}
	var under func(u string, depth int) bool
	under = func(u string, depth int) bool {
		n := g.Node(u)
		if n == nil || depth > 4 || seen[u] {
			return false
		}
		seen[u] = true
		parents := make([]string, 0, len(n.In)+1)
		// A URL that redirected here counts as this one.
		for _, a := range append([]string{u}, aliases[u]...) {
			an := g.Node(a)
			if an == nil {
				continue
			}
			for _, e := range an.In {
				if e.Rel == "loc" || e.Rel == "contents" || e.Rel == "manifest" {
					parents = append(parents, e.From)
				}
			}
		}
		// The index the document says it resides under (RS-INDEX-TARGET
		// judges whether it lists the document).
		if n.Doc != nil {
			for _, l := range n.Doc.LinksByRel("index") {
				parents = append(parents, targetURL(u, l.Href))
			}
		}
		for _, pu := range parents {
			if pu == top.URL {
				return true
			}
			from := g.Node(pu)
			between := from != nil && (from.Role == RolePackage ||
				from.Parsed() && (from.Kind.IsIndex() || from.Kind.IsArchive() || from.Kind == rs.ResourceDump || from.Kind == rs.ChangeDump))
			if between && under(pu, depth+1) {
				return true
			}
		}
		return false
	}
	return under(u, 0)
}

// redirectAliases maps the URL a redirect ended at to the URLs that
// redirected there.
func (g *Graph) redirectAliases() map[string][]string {
	out := map[string][]string{}
	for _, n := range g.Sorted() {
		if len(n.Redirects) > 1 {
			final := n.Redirects[len(n.Redirects)-1]
			out[final] = append(out[final], n.URL)
		}
	}
	return out
}

// sawBelow reports whether the crawl fetched every document top lists, so
// that what lies under it is known.
func (g *Graph) sawBelow(top *Node) bool {
	for _, e := range top.Doc.Entries {
		if e.Loc == "" {
			continue
		}
		if t := g.Target(top.URL, e.Loc); t == nil || t.Skipped != "" {
			return false
		}
	}
	return true
}

// 10.1: "In case a Resource List Index (see 10.2) exists, a recommended
// <rs:ln> child element of <urlset> points to it with the relation type
// index." (11.1, 12.1 and 13.1 say the same of Resource Dumps, Change
// Lists and Change Dumps.)
var IndexLink = &engine.Rule{
	ID: "RS-INDEX-LINK", Section: "10.1", Level: engine.Should,
	Title: "A list that an index lists links to it with rel=\"index\"",
	Quote: "In case a Resource List Index (see 10.2) exists, a recommended <rs:ln> child element of <urlset> points to it with the relation type index.",
	Doc: "Sections 11.1, 12.1 and 13.1 recommend the same link for Resource Dumps, Change Lists and Change Dumps; 10.2 adds that the link is \"meant to ease navigation for Destinations\". " +
		"Checked on every Resource List, Resource Dump, Change List and Change Dump the crawl found listed by an index of its capability: recommended, so a warning when the link is missing. " +
		"A link that leads elsewhere than an index that lists the document is an error of RS-INDEX-TARGET.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			switch n.Kind {
			case rs.ResourceList, rs.ResourceDump, rs.ChangeList, rs.ChangeDump:
			default:
				continue
			}
			if len(n.Doc.LinksByRel("index")) > 0 {
				continue
			}
			for _, e := range n.In {
				from := p.Graph.Node(e.From)
				if e.Rel != "loc" || !from.Parsed() || from.Kind != n.Kind.Index() {
					continue
				}
				p.ReportRelated(n.URL, n.Doc.Pos, []engine.Location{loc(from.URL, e.Pos)}, "the %s %s lists this %s, which has no <rs:ln rel=\"index\"> to it (recommended)", from.Kind.Title(), from.URL, n.Kind.Title())
				break
			}
		}
		return nil
	}),
}

// lists reports whether a parsed document (with its entries kept) has an
// entry whose <loc> is u.
func lists(n *Node, u string) bool {
	for _, e := range n.Doc.Entries {
		if e.Loc != "" && targetURL(n.URL, e.Loc) == u {
			return true
		}
	}
	return false
}

// 6.1: "The <urlset> or <sitemapindex> documents used for a specific
// capability (e.g., Resource List) have the same value for the capability
// attribute (e.g., resourcelist)."
var ListedKind = &engine.Rule{
	ID: "RS-LISTED-KIND", Section: "6.1", Level: engine.Must,
	Title: "A document is what the Source Description, Capability List or index that lists it announces",
	Quote: "The <urlset> or <sitemapindex> documents used for a specific capability (e.g., Resource List) have the same value for the capability attribute (e.g., resourcelist).",
	Doc: "Checked on every <loc> of a Source Description (its entries are Capability Lists, section 8), of a Capability List (the entry's capability is the document's, section 9: \"A mandatory <rs:md> child element must have a capability attribute to convey the type of the respective capability\"; a <urlset> or a <sitemapindex> may implement it) and of an index (its entries are <urlset> documents of the index's capability, section 6.1). " +
		"Capabilities that rsconform does not know (other specifications may define some) are not checked. Archives have RS-ARCHIVE-TARGET.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			k := n.Kind
			for _, e := range n.Doc.Entries {
				if e.Loc == "" {
					continue
				}
				t := p.Graph.Target(n.URL, e.Loc)
				if unknownTarget(t) {
					continue
				}
				var ok bool
				var want string
				switch {
				case k.IsIndex() && !k.IsManifest():
					ok, want = t.Kind == k.Base(), "a "+k.Base().Title()+" (a <urlset> with capability \""+string(k.Capability())+"\")"
				case k == rs.SourceDescription:
					ok, want = t.Kind.Base() == rs.CapabilityList, "a Capability List"
				case k == rs.CapabilityList:
					c := rs.Capability("")
					if e.Md != nil {
						c = rs.Capability(e.Md.Capability)
					}
					if !c.Known() || c == rs.CapDescription || c == rs.CapCapabilityList {
						continue
					}
					ok, want = t.Kind.Capability() == c, "a "+rs.Kind(c).Title()+" or its index (capability \""+string(c)+"\")"
				default:
					continue
				}
				if !ok {
					p.Reportf(n.URL, entryLocPos(e), "%s is %s; the %s announces %s", t.URL, t.KindName(), k.Title(), want)
				}
			}
		}
		return nil
	}),
}

// 10.2: the <rs:md> of a <sitemap> entry conveys "the datetime at which the
// process of taking a snapshot of resources for their inclusion in the
// Resource List respectively started and ended"; 12.2: "the temporal
// interval covered by the Change List".
var IndexTimes = &engine.Rule{
	ID: "RS-INDEX-TIMES", Section: "10.2", Level: engine.Must,
	Title: "The at, completed, from and until of an index or archive entry are those of the document it lists",
	Quote: "An optional <rs:md> child element with an at attribute and possibly a completed attribute to convey the datetime at which the process of taking a snapshot of resources for their inclusion in the Resource List respectively started and ended.",
	Doc: "Section 12.2 says the same of Change List Index entries (\"A recommended <rs:md> child element with the from and possibly until attributes to convey the temporal interval covered by the Change List\"), and the Archives draft of archive entries. " +
		"Each of at, completed, from and until given on the entry must be given, with the same instant, on the listed document's top-level <rs:md>. An until on the entry of an open Change List, or none on that of a closed one, is RS-CLI-OPEN.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			if !(n.Kind.IsIndex() || n.Kind.IsArchive()) || n.Kind.IsManifest() {
				continue
			}
			for _, e := range n.Doc.Entries {
				if e.Loc == "" || e.Md == nil {
					continue
				}
				t := p.Graph.Target(n.URL, e.Loc)
				if !t.Parsed() || t.Doc.Md == nil {
					continue
				}
				for _, attr := range []string{"at", "completed", "from", "until"} {
					v, ok := e.Md.Get(attr)
					if !ok {
						continue
					}
					tv, tok := t.Doc.Md.Get(attr)
					switch {
					case !tok && attr == "until":
						// an open document: RS-CLI-OPEN
					case !tok:
						p.ReportRelated(n.URL, e.Md.AttrPosition(attr), []engine.Location{loc(t.URL, t.Doc.Md.Pos)}, "the entry gives %s=%q but %s has no %s", attr, v, t.URL, attr)
					case !sameInstant(v, tv):
						p.ReportRelated(n.URL, e.Md.AttrPosition(attr), []engine.Location{loc(t.URL, t.Doc.Md.AttrPosition(attr))}, "the entry gives %s=%q but %s says %s=%q", attr, v, t.URL, attr, tv)
					}
				}
			}
		}
		return nil
	}),
}

func init() { engine.Register(UpTarget, IndexTarget, IndexLink, ListedKind, IndexTimes) }
