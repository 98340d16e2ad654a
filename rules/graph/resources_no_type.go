package graph

import (
	"net/http"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
)

// RFC 9110 section 8.3: "A sender that generates a message containing
// content SHOULD generate a Content-Type header field in that message
// unless the intended media type of the enclosed representation is unknown
// to the sender." SHOULD: a warning. Section 7's type attribute conveys
// the Media Type of the representation returned, which the Content-Type
// names.
var RepNoContentType = &engine.Rule{
	ID: "RS-REP-NO-CONTENT-TYPE", Section: "7", Level: engine.Should,
	Title: "Sampled resources are served with a Content-Type",
	Quote: "A sender that generates a message containing content SHOULD generate a Content-Type header field in that message unless the intended media type of the enclosed representation is unknown to the sender.",
	Doc: "The sentence is RFC 9110's (section 8.3): its SHOULD makes this a warning. Section 7: \"type – The value of the attribute conveys the Media Type of a resource representation returned when the URI in <loc> is dereferenced.\" " +
		"A response without one leaves each Destination to guess, and one seen in the wild made a client wait for ever. Documents have RS-HTTP-CONTENT-TYPE; this rule is the resources the crawl samples (--sample), reported once each, at the first <loc> that lists it. " +
		"A Content-Type header that is present but empty counts as none.",
	CheckGraph: Check(func(p *Pass) error {
		// Once a resource, at the first claim by URL and line: the
		// crawl's order of edges is not fixed.
		first := map[*Node]Edge{}
		var order []*Node
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			if n.Role != RoleResource || hasContentType(n.Header) {
				return
			}
			f, ok := first[n]
			switch {
			case !ok:
				order = append(order, n)
			case e.From > f.From || e.From == f.From && (e.Pos.Line > f.Pos.Line || e.Pos.Line == f.Pos.Line && e.Pos.Column >= f.Pos.Column):
				return
			}
			first[n] = e
		})
		for _, n := range order {
			e := first[n]
			p.Reportf(e.From, e.Pos, "the resource %s is served without a Content-Type: a Destination has to guess what it is", n.URL)
		}
		return nil
	}),
}

func hasContentType(h http.Header) bool { return strings.TrimSpace(h.Get("Content-Type")) != "" }

func init() { engine.Register(RepNoContentType) }
