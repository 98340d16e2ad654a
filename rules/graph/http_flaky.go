package graph

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// 6.2: "A link for downward navigation is provided by the content of a
// <url> element: the URI of the document that sits lower in the hierarchy
// is provided as the value of its <loc> child element"
var HTTPFlaky = &engine.Rule{
	ID: "RS-HTTP-FLAKY", Section: "6.2", Level: engine.Should,
	Title: "Documents do not answer 404 Not Found for a moment",
	Quote: "A link for downward navigation is provided by the content of a <url> element: the URI of the document that sits lower in the hierarchy is provided as the value of its <loc> child element, and its type is conveyed as the value of the capability attribute of the <rs:md> child element.",
	Doc: "A crawl that retries (--retries, 2 by default) asks a document that answers 404 once more, after the back-off. A document that then answers 200 is not missing (RS-HTTP-STATUS), and not fine either: a Source seen in the wild answered 404 for its Change List for a moment after writing it, and a Destination that polls at that moment may take the Change List for gone. " +
		"The specification states no requirement on availability, so this is a warning: it fails a run only under --strict. Reported on the document, with the statuses in the order they came.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleDocument || !httpOK(n) || !slices.Contains(n.EarlierStatus, http.StatusNotFound) {
				continue
			}
			var seq []string
			for _, s := range append(slices.Clone(n.EarlierStatus), n.StatusCode) {
				seq = append(seq, fmt.Sprint(s))
			}
			what := "document"
			if n.Kind != rs.KindUnknown {
				what = n.Kind.Title()
			}
			p.Reportf(n.URL, rs.Pos{}, "the %s answered 404 Not Found, then %d when asked again (%s): a Destination polling at that moment takes it for gone; publish a document only once it is served", what, n.StatusCode, strings.Join(seq, ", then "))
		}
		return nil
	}),
}

func init() { engine.Register(HTTPFlaky) }
