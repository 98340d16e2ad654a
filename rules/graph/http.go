package graph

import (
	"net/http"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// HTTP facts of the documents of a crawl, and whether the crawl got beyond
// its entry point (discovery itself, section 6.3, is rules/crawldiscovery).

// 6.2: "A link for downward navigation is provided by the content of a
// <url> element: the URI of the document that sits lower in the hierarchy
// is provided as the value of its <loc> child element"
var HTTPStatus = &engine.Rule{
	ID: "RS-HTTP-STATUS", Section: "6.2", Level: engine.Must,
	Title: "Documents and packages a document links to answer 200",
	Quote: "A link for downward navigation is provided by the content of a <url> element: the URI of the document that sits lower in the hierarchy is provided as the value of its <loc> child element, and its type is conveyed as the value of the capability attribute of the <rs:md> child element.",
	Doc: "Reported on the linking document, at the <loc> or <rs:ln> (up, index, contents, archives) whose target answered an HTTP status other than 2xx after redirects: that is where the Source has to act. " +
		"A network failure or a time-out is not reported here (the Source may be fine and the network not): the document then has status error. Sampled resources have their own rule, RS-REP-STATUS.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if !n.HTTPFailed() || n.Role == RoleResource {
				continue
			}
			for _, e := range n.In {
				switch e.Rel {
				case "loc", "up", "index", "contents", "archives":
				default:
					continue
				}
				if from := p.Graph.Node(e.From); from == nil || from.Role != RoleDocument {
					continue
				}
				p.Reportf(e.From, e.Pos, "the %s target %s answers HTTP %d %s", linkRel(e.Rel), n.URL, n.StatusCode, http.StatusText(n.StatusCode))
			}
		}
		return nil
	}),
}

// documentTypes are the media types a ResourceSync document may be served
// with: XML (RFC 7303), or gzip for a compressed Sitemap.
var documentTypes = map[string]bool{
	"application/xml": true, "text/xml": true,
	"application/gzip": true, "application/x-gzip": true,
}

// RFC 9110 section 8.3: "A sender that generates a message containing
// content SHOULD generate a Content-Type header field in that message
// unless the intended media type of the enclosed representation is unknown
// to the sender." The specification names no media type for its
// documents; section 7 makes them Sitemaps, XML documents, whose media
// types are application/xml and text/xml (RFC 7303). SHOULD: a warning.
var HTTPContentType = &engine.Rule{
	ID: "RS-HTTP-CONTENT-TYPE", Section: "7", Level: engine.Should,
	Title: "Documents are served as application/xml or text/xml",
	Quote: "A sender that generates a message containing content SHOULD generate a Content-Type header field in that message unless the intended media type of the enclosed representation is unknown to the sender.",
	Doc: "The sentence is RFC 9110's (section 8.3): its SHOULD makes this a warning. The specification does not name a media type for its documents; section 7 makes them Sitemaps, XML documents, whose media types are application/xml and text/xml (RFC 7303), and Example 17 gives type=\"application/xml\" for a manifest. A compressed Sitemap (.xml.gz) may be served as application/gzip. " +
		"A document served without a Content-Type, or with one that is not its media type (text/html, text/plain, application/octet-stream), leaves a Destination that goes by Content-Type to refuse it.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleDocument || !httpOK(n) {
				continue
			}
			mt := headerMediaType(n.Header)
			switch {
			case mt == "":
				p.Reportf(n.URL, rs.Pos{}, "the document is served without a Content-Type; serve it as application/xml")
			case !documentTypes[mt]:
				p.Reportf(n.URL, rs.Pos{}, "the document is served as %s; serve it as application/xml (or text/xml)", mt)
			}
		}
		return nil
	}),
}

var HTTPRedirects = &engine.Rule{
	ID: "RS-HTTP-REDIRECTS", Section: "6.2", Level: engine.Should,
	Title: "Links lead to their documents without a redirect loop or a long redirect chain",
	Quote: HTTPStatus.Quote,
	Doc: "A Destination follows a bounded number of redirects (rsconform: --max-redirects, 5 by default); a loop or a longer chain leaves the document out of reach. " +
		"Reported on the URL that redirected, whose fetch then failed.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Skipped != "" || !strings.Contains(n.FetchError, "too many redirects") {
				continue
			}
			p.Reportf(n.URL, rs.Pos{}, "%s: %s", n.FetchError, strings.Join(n.Redirects, " → "))
		}
		return nil
	}),
}

// 6.2: "A link for downward navigation is provided by the content of a
// <url> element: the URI of the document that sits lower in the hierarchy
// is provided as the value of its <loc> child element"
var CrawlReach = &engine.Rule{
	ID: "RS-CRAWL-REACH", Section: "6.2", Level: engine.Should,
	Title: "The crawl checked documents beyond its entry point",
	Quote: HTTPStatus.Quote,
	Doc: "Nothing checked is not green. When no document beyond the entry point could be read and some it leads to (by its links or by discovery) are on another origin (another host, port or scheme) that the crawl does not leave for, the crawl checked nothing beyond the entry point: the Source is not shown to conform. " +
		"This says so on the entry point, naming the --allow-host values that would let the crawl follow; it is a warning (the Source may well be right: a Source may keep its documents on another host) so that --fail-level warning and --strict catch a crawl that checked nothing. " +
		"It says nothing when at least one document beyond the entry point was read.",
	CheckGraph: Check(func(p *Pass) error {
		g := p.Graph
		var hosts []string
		seen := map[string]bool{}
		refused := 0
		for _, n := range g.Sorted() {
			if n.URL == g.Entry || n.Role != RoleDocument {
				continue
			}
			if n.Parsed() {
				return nil
			}
			if n.AllowHost != "" {
				refused++
				if !seen[n.AllowHost] {
					seen[n.AllowHost] = true
					hosts = append(hosts, n.AllowHost)
				}
			}
		}
		if refused == 0 {
			return nil
		}
		flags := "--allow-host " + strings.Join(hosts, " --allow-host ")
		p.Reportf(g.Entry, rs.Pos{}, "no document beyond the entry point was checked: %d it leads to are on other origins (%s), which the crawl does not leave for; crawl with %s to check them", refused, strings.Join(hosts, ", "), flags)
		return nil
	}),
}

func init() {
	engine.Register(HTTPStatus, HTTPContentType, HTTPRedirects, CrawlReach)
}
