package crawldiscovery

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/rsconform/rsconform/discovery"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// 6.3.3 (said of the HTML <link> and again of the HTTP Link header): "The
// Capability List that is made discoverable in this way must pertain to
// the resource that provides the link. This means that the resource must
// be covered by the capabilities listed in the linked Capability List."
var DiscoveryCovered = &engine.Rule{
	ID: "RS-DISCOVERY-COVERED", Section: "6.3.3", Level: engine.Must,
	Title: "A resource that links to a Capability List for discovery is covered by that Capability List's capabilities",
	Quote: "The Capability List that is made discoverable in this way must pertain to the resource that provides the link. This means that the resource must be covered by the capabilities listed in the linked Capability List.",
	Doc: "Section 6.3.3 says it of the HTML <link rel=\"resourcesync\"> and again of the HTTP Link header, which \"may be included with a representation of a resource of any content-type\". " +
		"The crawl reads such links at its entry point (a site root, an HTML page, or a resource of any other type with a Link header). Only those two ways of discovery are judged: a Source Description or Capability List found at the well-known URI or through robots.txt pertains to no resource in particular. " +
		"\"Covered by the capabilities\" is read as: the URI of the resource that gives the link (the URL the crawl asked for, or any URL of its redirect chain; scheme and host in any case, a default port or not, a root path \"/\" or none) is the <loc> of an entry of a Resource List, a Change List (an entry of any change, a deletion too), or a Resource or Change Dump Manifest of that Capability List: reached from its entries, through indexes and archives (Archives draft), and for a dump through each package's manifest (the copy its contents link gives, or the package's manifest.xml with --packages). " +
		"The Capability List's own documents are not resources it has to cover. " +
		"The error is only given when the crawl read every document of the Capability List that can list resources (every Resource List, Change List, index, archive, dump and manifest it leads to) and the URI is in none of them. " +
		"When the crawl could not read one of them (not fetched, another origin refused by --allow-host, a budget spent, an error, a dump package's manifest not read without --packages, a capability rsconform does not know) and the URI is in none of those it read, the crawl cannot tell: an info at the link names what was not read. " +
		"A link whose target is not a Capability List is RS-DISCOVERY-LINK's.",
	CheckGraph: graph.Check(func(p *graph.Pass) error {
		g := p.Graph
		cover := map[string]*coverage{}
		for _, d := range g.Discovery {
			if d.Method != discovery.MethodHTMLLink && d.Method != discovery.MethodHTTPLink {
				continue
			}
			cl := g.Node(d.Target)
			if !cl.Parsed() || cl.Kind != rs.CapabilityList {
				continue
			}
			if page := g.Node(d.From); page != nil && page.Role == graph.RoleDocument {
				continue
			}
			c := cover[cl.URL]
			if c == nil {
				c = walkCapabilities(g, cl)
				cover[cl.URL] = c
			}
			uris := pageURIs(g, d.From)
			if c.own(uris) || c.covers(g, uris) {
				continue
			}
			link := "<link rel=\"resourcesync\">"
			if d.Method == discovery.MethodHTTPLink {
				link = "Link header"
			}
			related := []engine.Location{engine.NewLocation(cl.URL, cl.Doc.Pos)}
			read := c.readSummary()
			if len(c.unread) > 0 {
				msg := fmt.Sprintf("the crawl cannot tell whether %s is covered by the Capability List %s its %s points to: it did not read %s",
					d.From, cl.URL, link, c.unreadSummary())
				if read != "" {
					msg += "; " + d.From + " is in none of the " + read + " it read"
				}
				p.ReportSeverity(engine.SeverityInfo, d.From, rs.Pos{Line: d.Line}, "%s", msg)
				continue
			}
			in := "it is in none of its " + read + ", all of which the crawl read"
			if read == "" {
				in = "the Capability List leads to no Resource List, Change List or dump manifest"
			}
			p.ReportRelated(d.From, rs.Pos{Line: d.Line}, related,
				"%s is covered by none of the capabilities of the Capability List %s its %s points to: %s; list it there, or link to the Capability List that covers it",
				d.From, cl.URL, link, in)
		}
		return nil
	}),
}

// coverage is what a crawl read of the documents of one Capability List
// that can list resources.
type coverage struct {
	// docs holds the URL of every document reached from the Capability
	// List (the Capability List too).
	docs map[string]bool
	// read are the Resource Lists, Change Lists and manifests read.
	read []*graph.Node
	// unread names what could not be read.
	unread []string
}

// maxDepth bounds how deep indexes and archives are followed.
const maxDepth = 5

// walkCapabilities collects the documents of the Capability List cl that
// can list resources.
func walkCapabilities(g *graph.Graph, cl *graph.Node) *coverage {
	c := &coverage{docs: map[string]bool{cl.URL: true}}
	for _, e := range cl.Doc.Entries {
		if e.Loc == "" {
			continue
		}
		u := rs.Resolve(cl.URL, e.Loc)
		t := g.Node(u)
		capability := ""
		if e.Md != nil {
			capability = e.Md.Capability
		}
		switch rs.Capability(capability) {
		case rs.CapDescription, rs.CapCapabilityList:
			continue
		}
		if !rs.Capability(capability).Known() && (!t.Parsed() || t.Kind.Base() == rs.CapabilityList || t.Kind.Base() == rs.SourceDescription) {
			why := fmt.Sprintf("capability %q, which rsconform does not know", capability)
			if capability == "" {
				why = "an entry without a capability"
			}
			c.unread = append(c.unread, u+" ("+why+")")
			continue
		}
		c.walk(g, u, 0)
	}
	return c
}

// walk adds the document at u and what it leads to.
func (c *coverage) walk(g *graph.Graph, u string, depth int) {
	if c.docs[u] || depth > maxDepth {
		return
	}
	c.docs[u] = true
	n := g.Node(u)
	if !n.Parsed() {
		c.unread = append(c.unread, u+" ("+notRead(n)+")")
		return
	}
	switch k := n.Kind; {
	case k == rs.ResourceList || k == rs.ChangeList || k.IsManifest():
		c.read = append(c.read, n)
	case k.IsIndex() || k.IsArchive():
		for _, e := range n.Doc.Entries {
			if e.Loc != "" {
				c.walk(g, rs.Resolve(u, e.Loc), depth+1)
			}
		}
	case k == rs.ResourceDump || k == rs.ChangeDump:
		for _, e := range n.Doc.Entries {
			if e.Loc == "" {
				continue
			}
			m := graph.ManifestOf(g, n, e)
			if m == nil {
				c.unread = append(c.unread, "the manifest of the package "+rs.Resolve(u, e.Loc))
				continue
			}
			c.docs[m.URL] = true
			c.read = append(c.read, m)
		}
	}
}

// notRead says why the crawl has no document at a node.
func notRead(n *graph.Node) string {
	switch {
	case n == nil:
		return "not fetched"
	case n.Skipped != "":
		return n.Skipped
	case n.FetchError != "":
		return n.FetchError
	}
	return n.KindName()
}

// own reports whether one of uris is a document of the Capability List.
func (c *coverage) own(uris []string) bool {
	for _, u := range uris {
		if c.docs[u] {
			return true
		}
	}
	return false
}

// covers reports whether a document read lists one of uris.
func (c *coverage) covers(g *graph.Graph, uris []string) bool {
	for _, u := range uris {
		rec, fp := g.History.Latest(u), graph.LocFingerprint(u)
		for _, n := range c.read {
			if n.Kind == rs.ChangeList {
				if rec != nil {
					for i := range rec.Series {
						if rec.Series[i].List == n.URL {
							return true
						}
					}
				}
				continue
			}
			if _, ok := n.LocFingerprints[fp]; ok {
				return true
			}
		}
	}
	return false
}

// readSummary counts what was read ("2 Resource Lists, 3 Change Lists
// and 1 dump manifest", leaving out what there is none of); "" for nothing.
func (c *coverage) readSummary() string {
	var rl, cl, m int
	for _, n := range c.read {
		switch n.Kind {
		case rs.ResourceList:
			rl++
		case rs.ChangeList:
			cl++
		default:
			m++
		}
	}
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{rl, "Resource List"}, {cl, "Change List"}, {m, "dump manifest"}} {
		switch {
		case x.n == 1:
			parts = append(parts, "1 "+x.what)
		case x.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", x.n, x.what))
		}
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// unreadSummary names the first few documents not read.
func (c *coverage) unreadSummary() string {
	const shown = 3
	if len(c.unread) <= shown {
		return strings.Join(c.unread, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(c.unread[:shown], ", "), len(c.unread)-shown)
}

// pageURIs are the spellings of the URI of the resource at u: the URL the
// crawl asked for and those of its redirect chain.
func pageURIs(g *graph.Graph, u string) []string {
	urls := []string{u}
	if n := g.Node(u); n != nil {
		urls = append(urls, n.Redirects...)
	}
	seen := map[string]bool{}
	var out []string
	for _, raw := range urls {
		for _, s := range spellings(raw) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// spellings are ways of writing the URI raw that name the same resource:
// as given; with scheme and host in lower case and without the scheme's
// default port; each with a root path of "/" or none.
func spellings(raw string) []string {
	out := []string{raw}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return out
	}
	norm := *u
	norm.Scheme, norm.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if p := norm.Port(); p == "80" && norm.Scheme == "http" || p == "443" && norm.Scheme == "https" {
		norm.Host = strings.TrimSuffix(norm.Host, ":"+p)
	}
	for _, v := range []url.URL{*u, norm} {
		out = append(out, v.String())
		switch v.Path {
		case "":
			v.Path = "/"
		case "/":
			v.Path = ""
		default:
			continue
		}
		out = append(out, v.String())
	}
	return out
}

func init() { engine.Register(DiscoveryCovered) }
