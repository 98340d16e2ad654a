// Package crawldiscovery holds the crawl rules of discovery (section 6.3):
// where the Source Description is published (6.3.2), and what an HTML
// <link> or HTTP Link header with rel="resourcesync" leads to and must
// pertain to (6.3.3). Like the other cross-document rules they read the
// crawl's graph (rules/graph: Graph.Discovery lists what the crawl tried
// from its entry point); their fixture Sources are
// fixtures/sites/RS-DISCOVERY-*/.
package crawldiscovery

import (
	"cmp"
	"net/http"

	"github.com/rsconform/rsconform/discovery"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// 6.3.2: "A Source must publish a Source Description, such as the one
// shown in Example 7, and it should be published at the well-known URI
// [RFC 5785] /.well-known/resourcesync, as defined here."
var DiscoveryWellKnown = &engine.Rule{
	ID: "RS-DISCOVERY-WELLKNOWN", Section: "6.3.2", Level: engine.Should,
	Title: "The Source Description is published at /.well-known/resourcesync",
	Quote: "A Source must publish a Source Description, such as the one shown in Example 7, and it should be published at the well-known URI [RFC 5785] /.well-known/resourcesync, as defined here.",
	Doc: "The crawl probes /.well-known/resourcesync of the entry point's host whatever the entry point. The finding is reported on the entry point (the document or page the crawl started from). " +
		"A redirect from the well-known URI to the Source Description is fine.",
	CheckGraph: graph.Check(func(p *graph.Pass) error {
		for _, d := range p.Graph.Discovery {
			if d.Method != discovery.MethodWellKnown {
				continue
			}
			n := p.Graph.Node(d.Target)
			if n == nil || n.Skipped != "" {
				continue
			}
			switch {
			case n.Parsed() && n.Kind.Base() == rs.SourceDescription:
			case n.StatusCode == 0 && n.FetchError != "":
				// A network failure says nothing about the Source.
			case n.HTTPFailed():
				p.Reportf(p.Graph.Entry, rs.Pos{}, "no Source Description at %s: it answers HTTP %d %s", d.Target, n.StatusCode, http.StatusText(n.StatusCode))
			case n.Parsed():
				p.Reportf(p.Graph.Entry, rs.Pos{}, "%s is %s, not the Source Description", d.Target, n.KindName())
			default:
				p.Reportf(p.Graph.Entry, rs.Pos{}, "no Source Description at %s: %s", d.Target, cmp.Or(n.FetchError, "not a ResourceSync document"))
			}
			return nil
		}
		return nil
	}),
}

// 6.3.3: "This <link> must have a rel attribute with a value of
// resourcesync." ... "The target of this link is the URI of a Capability
// List and the value of its rel attribute is resourcesync."
var DiscoveryLink = &engine.Rule{
	ID: "RS-DISCOVERY-LINK", Section: "6.3.3", Level: engine.Must,
	Title: "An HTML <link> or HTTP Link with rel=\"resourcesync\" points to a Capability List",
	Quote: "In order to include a discovery link in an HTML document, a <link> element is introduced in the <head> of the document that points to a Capability List. This <link> must have a rel attribute with a value of resourcesync.",
	Doc: "Section 6.3.3 says the same of the HTTP Link header: \"The target of this link is the URI of a Capability List and the value of its rel attribute is resourcesync.\" " +
		"Reported on the page, at the line of the <link> element (HTML) or without a line (HTTP header), when the target answers an error or is not a Capability List.",
	CheckGraph: graph.Check(func(p *graph.Pass) error {
		for _, d := range p.Graph.Discovery {
			if d.Method != discovery.MethodHTMLLink && d.Method != discovery.MethodHTTPLink {
				continue
			}
			n := p.Graph.Node(d.Target)
			if n == nil || n.Skipped != "" {
				continue
			}
			what := "<link rel=\"resourcesync\">"
			if d.Method == discovery.MethodHTTPLink {
				what = "the Link header's rel=\"resourcesync\""
			}
			pos := rs.Pos{Line: d.Line}
			switch {
			case n.HTTPFailed():
				p.Reportf(d.From, pos, "%s points to %s, which answers HTTP %d %s", what, d.Target, n.StatusCode, http.StatusText(n.StatusCode))
			case n.FetchError != "":
			case n.Kind.Base() != rs.CapabilityList:
				p.Reportf(d.From, pos, "%s points to %s, which is %s: it must point to a Capability List", what, d.Target, n.KindName())
			}
		}
		return nil
	}),
}

func init() { engine.Register(DiscoveryWellKnown, DiscoveryLink) }
