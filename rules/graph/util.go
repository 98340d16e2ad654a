package graph

import (
	"mime"
	"net/http"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Helpers of the cross-document rules.

// Parsed reports whether a node yielded a ResourceSync document of a
// known kind (false for a nil node).
func (n *Node) Parsed() bool {
	return n != nil && n.Skipped == "" && n.FetchError == "" && n.Doc != nil && n.Kind != rs.KindUnknown
}

// unknownTarget reports whether nothing can be said of what a link leads
// to: not fetched, fetch failed (RS-HTTP-STATUS), or not XML
// (RS-XML-WELLFORMED reports it on the document itself).
func unknownTarget(t *Node) bool {
	return t == nil || t.Skipped != "" || t.Doc == nil
}

// Target is the node a link or <loc> of the document at from points to,
// or nil when the crawl has none.
func (g *Graph) Target(from, href string) *Node {
	return g.Node(rs.Resolve(from, href))
}

// targetURL is the URL a link or <loc> of the document at from points to.
func targetURL(from, href string) string {
	return rs.Resolve(from, href)
}

// docs returns the parsed document nodes in the graph's Order.
func (g *Graph) docs() []*Node {
	var out []*Node
	for _, n := range g.Sorted() {
		if n.Parsed() {
			out = append(out, n)
		}
	}
	return out
}

// HTTPFailed reports whether the node was answered with an HTTP status
// other than 2xx.
func (n *Node) HTTPFailed() bool {
	return n != nil && n.Skipped == "" && n.StatusCode != 0 && (n.StatusCode < 200 || n.StatusCode > 299)
}

// httpOK reports whether the node was answered 2xx and its body read.
func httpOK(n *Node) bool {
	return n != nil && n.Skipped == "" && n.StatusCode >= 200 && n.StatusCode <= 299
}

// headerMediaType is the media type of a Content-Type header, lower case,
// without parameters.
func headerMediaType(h http.Header) string {
	v := h.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(v))
	}
	return strings.ToLower(mt)
}

// KindName names a node's kind for messages ("a Resource List", "not a
// ResourceSync document").
func (n *Node) KindName() string {
	if n.Kind == rs.KindUnknown {
		return "not a ResourceSync document"
	}
	return "a " + n.Kind.Title()
}

// instant parses a W3C Datetime; ok is false when it does not parse.
func instant(v string) (time.Time, bool) {
	d, err := rs.ParseDatetime(strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, false
	}
	return d.Time, true
}

// sameInstant compares two datetimes as instants ("2013-01-03T09:00:00Z"
// and "2013-01-03T10:00:00+01:00" are the same).
func sameInstant(a, b string) bool {
	ta, oka := instant(a)
	tb, okb := instant(b)
	if !oka || !okb {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return ta.Equal(tb)
}

// entryLocPos is where an entry's <loc> stands.
func entryLocPos(e *rs.Entry) rs.Pos {
	if e.LocPos.IsValid() {
		return e.LocPos
	}
	return e.Pos
}

// loc is a Location in another document, for Related.
func loc(url string, pos rs.Pos) engine.Location { return engine.NewLocation(url, pos) }

// linkRel says what kind of link an edge is, for messages.
func linkRel(rel string) string {
	switch rel {
	case "loc":
		return "<loc>"
	case "up", "index", "contents", "archives":
		return "<rs:ln rel=\"" + rel + "\">"
	}
	return rel
}
