package graph

import (
	"regexp"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// A list of lists written as a <urlset>: a large aggregator seen in the
// wild split its Resource List into parts and listed the parts in another
// <urlset> with capability resourcelist, where a Resource List Index (a
// <sitemapindex>) is needed. A Destination then takes the parts for
// resources and copies the Resource Lists instead of what they list.

// SniffBytes is how much of a sampled resource SniffDocument looks at.
const SniffBytes = 4096

var (
	sniffRoot = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<(?:[A-Za-z_][\w.-]*:)?(urlset|sitemapindex)[\s>]`)
	})
	sniffMd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<[A-Za-z_][\w.-]*:md\s[^>]*\bcapability\s*=\s*["']([a-z-]+)["']`)
	})
)

// SniffDocument says what the start of a body is when it is a ResourceSync
// document: "urlset resourcelist", "sitemapindex changelist"; "" when it
// does not look like one (compressed bodies are not looked into).
func SniffDocument(head []byte) string {
	if rs.IsGzip(head) {
		return ""
	}
	root := sniffRoot().FindSubmatchIndex(head)
	if root == nil {
		return ""
	}
	md := sniffMd().FindSubmatch(head[root[1]:])
	if md == nil || !rs.Capability(md[1]).Known() {
		return ""
	}
	return string(head[root[2]:root[3]]) + " " + string(md[1])
}

// 6.1: "If multiple documents are required, each is expressed using the
// <urlset> document format, and a <sitemapindex> document is introduced as
// an index to point at all individual <urlset> documents." No keyword: a
// definition of how the documents of a capability are grouped.
var ListOfLists = &engine.Rule{
	ID: "RS-LIST-OF-LISTS", Section: "6.1", Level: engine.Must,
	Title: "Documents of a capability are listed by a <sitemapindex>, not by a <urlset> of that capability",
	Quote: "If multiple documents are required, each is expressed using the <urlset> document format, and a <sitemapindex> document is introduced as an index to point at all individual <urlset> documents. [...] The <urlset> or <sitemapindex> documents used for a specific capability (e.g., Resource List) have the same value for the capability attribute (e.g., resourcelist).",
	Doc: "The entries of a <urlset> Resource List, Change List, Resource Dump or Change Dump are resources (or packages); its parts are listed by an index, a <sitemapindex> with the same capability (a Resource List Index, a Change List Index ...). " +
		"Seen in the wild: a large aggregator listing the parts of its Resource List in a <urlset> with capability resourcelist, so that a Destination copied the lists instead of the resources. " +
		"Checked on the resources the crawl samples (--sample): one whose body starts as a ResourceSync document of the listing document's capability is reported at its <loc>.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleResource || n.Body == nil || n.Body.Document == "" || !httpOK(n) {
				continue
			}
			for _, e := range n.In {
				from := p.Graph.Node(e.From)
				if e.Rel != "loc" || !from.Parsed() || from.Doc.Root != rs.RootURLSet {
					continue
				}
				capability := string(from.Doc.Capability())
				if n.Body.Document != "urlset "+capability && n.Body.Document != "sitemapindex "+capability {
					continue
				}
				p.Reportf(e.From, e.Pos, "%s, listed as a resource, is itself a %s: a list of %ss is an index, a <sitemapindex> with capability %q whose <sitemap> entries name them", n.URL, from.Kind.Title(), from.Kind.Title(), capability)
			}
		}
		return nil
	}),
}

func init() { engine.Register(ListOfLists) }
