package graph

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
)

// Section 9: "A recommended <rs:ln> child element of <urlset> with the
// relation type describedby points to a document that provides information
// about the set of resources covered by the Capability List."
var DescribedByTarget = &engine.Rule{
	ID: "RS-DESCRIBEDBY-TARGET", Section: "9", Level: engine.Should,
	Title: "A describedby link points to a document the Source serves",
	Quote: "A recommended <rs:ln> child element of <urlset> with the relation type describedby points to a document that provides information about the set of resources covered by the Capability List.",
	Doc: "Section 8 says the same of the Source Description and of its entries (\"A recommended <rs:ln> child element with a describedby relation type points to a document that describes the set of resources described by the Capability List\"). " +
		"The crawl asks once for each distinct target of a describedby link of a document's <urlset> or <sitemapindex>, and of the entries of Source Descriptions, Capability Lists, indexes, archives and dumps: HEAD, then GET when HEAD answers 405 or 501 (a server need not implement HEAD), retried as every request. " +
		"An answer of 4xx or 5xx after the retries is a warning (the link is recommended, so a link that points nowhere is a recommendation not followed), at the link, naming the status and the method. " +
		"A target that gave no answer (the network, the time-out) is info: that is not evidence the document is missing. " +
		"A target on an origin the crawl may not fetch (--allow-host), or beyond the crawl's bound on such targets, is not judged. What the target says is not judged.",
	CheckGraph: Check(func(p *Pass) error {
		for _, t := range p.Graph.Sorted() {
			if t.Skipped != "" || !linkedBy(t, "describedby") {
				continue
			}
			var seen, why string
			sev := p.Rule.Level.Severity()
			switch {
			case t.FetchError != "" && t.StatusCode == 0:
				seen, why = "gave no answer: "+t.FetchError, "the crawl cannot say whether it is served"
				sev = engine.SeverityInfo
			case t.StatusCode >= 400:
				seen = "answered " + answer(t)
				why = "it does not point to a document the Source serves"
			default:
				continue
			}
			for _, e := range t.In {
				if e.Rel != "describedby" {
					continue
				}
				p.ReportSeverity(sev, e.From, e.Pos, "the describedby link's target %s %s: %s", t.URL, seen, why)
			}
		}
		return nil
	}),
}

// linkedBy reports whether a link of relation rel leads to n.
func linkedBy(n *Node, rel string) bool {
	for _, e := range n.In {
		if e.Rel == rel {
			return true
		}
	}
	return false
}

// answer is what the wire showed of n's final answer: status, method, and
// the statuses answered before it (a 503 retried, a HEAD's 405).
func answer(n *Node) string {
	method := n.Method
	if method == "" {
		method = http.MethodGet
	}
	s := fmt.Sprintf("HTTP %d %s to %s", n.StatusCode, http.StatusText(n.StatusCode), method)
	if len(n.EarlierStatus) > 0 {
		var e []string
		for _, st := range n.EarlierStatus {
			e = append(e, fmt.Sprint(st))
		}
		s += " (earlier answers: " + strings.Join(e, ", ") + ")"
	}
	return s
}

func init() { engine.Register(DescribedByTarget) }
