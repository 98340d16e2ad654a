package rules

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// The <lastmod> finding stands at the entry's <loc>: the Graph keeps no
// entries of lists, and the edge keeps the position of the <loc>.

// What a list says of a resource (or a dump of a package) against what the
// Source serves at its <loc>: status, length, hash, type, lastmod
// (section 7). The crawler samples resources (--sample) and downloads
// packages (--packages); findings are reported on the entry that makes the
// claim.

// claims calls fn for every edge that carries an entry's claims about a
// fetched resource or package answered 2xx and read to its end.
func claims(g *Graph, fn func(n *Node, e Edge, from *Node)) {
	for _, n := range g.Sorted() {
		if n.Role != RoleResource && n.Role != RolePackage || !httpOK(n) {
			continue
		}
		for _, e := range n.In {
			from := g.Node(e.From)
			if e.Md == nil && e.Lastmod == "" || !parsed(from) {
				continue
			}
			fn(n, e, from)
		}
	}
}

// hasChangeList reports whether the Capability List above a document
// (its up link) lists a Change List.
func hasChangeList(g *Graph, n *Node) bool {
	up := n.Doc.Link("up")
	if up == nil {
		return false
	}
	cl := g.target(n.URL, up.Href)
	if !parsed(cl) || cl.Kind != rs.CapabilityList {
		return false
	}
	for _, e := range cl.Doc.Entries {
		if e.Md != nil && rs.Capability(e.Md.Capability) == rs.CapChangeList {
			return true
		}
	}
	return false
}

// changedSince reports whether the resource was modified (Last-Modified)
// after the snapshot of the Resource List that lists it ended (completed,
// else at): its representation may then rightly differ from the entry.
func changedSince(n *Node, from *Node) bool {
	if from.Kind != rs.ResourceList || from.Doc.Md == nil {
		return false
	}
	lm, err := http.ParseTime(n.Header.Get("Last-Modified"))
	if err != nil {
		return false
	}
	end := from.Doc.Md.Completed
	if end == "" {
		end = from.Doc.Md.At
	}
	t, ok := instant(end)
	return ok && lm.After(t)
}

// 10.1: "A Resource List is introduced to list and describe the resources
// that a Source makes available for synchronization."
var RepStatus = &Rule{
	ID: "RS-REP-STATUS", Section: "10.1", Level: Should,
	Title: "Listed resources can be retrieved",
	Quote: "A Resource List is introduced to list and describe the resources that a Source makes available for synchronization.",
	Doc: "Checked on the resources the crawl samples (--sample): from an open Change List the last change of each resource unless it is a deletion (the Change List includes every change up to now, so the resource is there), and from a Resource List whose Capability List has no Change List (else the resource may rightly have been deleted since the snapshot). " +
		"Archived lists are not sampled. A network failure or time-out is not reported.",
	CheckGraph: func(p *GraphPass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleResource || !httpFailed(n) {
				continue
			}
			for _, e := range n.In {
				from := p.Graph.Node(e.From)
				if !parsed(from) || from.Kind == rs.ResourceList && hasChangeList(p.Graph, from) {
					continue
				}
				p.Reportf(e.From, e.Pos, "the resource %s answers HTTP %d %s", n.URL, n.StatusCode, http.StatusText(n.StatusCode))
			}
		}
		return nil
	},
}

// 7: "length – The value of the attribute conveys the content length of a
// resource representation returned when the URI in <loc> is dereferenced.
// The value of the length attribute should be equal to the value of the
// Content-Length header in the HTTP response and must be computed as
// defined in RFC 2616, Sec. 4.4."
var RepLength = &Rule{
	ID: "RS-REP-LENGTH", Section: "7", Level: Must,
	Title: "length is the length of the representation the <loc> returns",
	Quote: "The value of the length attribute should be equal to the value of the Content-Length header in the HTTP response and must be computed as defined in RFC 2616, Sec. 4.4.",
	Doc: "The body is counted as received (RFC 2616 4.4: the entity length, content codings included; rsconform asks for the encoding the entry's encoding attribute gives, and for none otherwise), and the Content-Length header is compared too. " +
		"Checked on sampled resources and, with --packages, on dump packages. A resource modified (Last-Modified) after its Resource List's snapshot ended is not checked.",
	CheckGraph: func(p *GraphPass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			want, ok, err := e.Md.ContentLength()
			if !ok || err != nil || changedSince(n, from) {
				return
			}
			pos := e.Md.AttrPosition("length")
			switch {
			case n.Body != nil && !n.Body.Truncated && n.Body.Length != want:
				p.Reportf(e.From, pos, "length=%d but %s returns %d bytes", want, n.URL, n.Body.Length)
			case n.Header.Get("Content-Length") != "" && n.Header.Get("Content-Length") != strconv.FormatInt(want, 10):
				p.Reportf(e.From, pos, "length=%d but %s is served with Content-Length: %s", want, n.URL, n.Header.Get("Content-Length"))
			}
		})
		return nil
	},
}

// 7: "hash – The value of the attribute conveys fixity information for a
// resource representation returned when the URI in <loc> is dereferenced."
var RepHash = &Rule{
	ID: "RS-REP-HASH", Section: "7", Level: Must,
	Title: "Every digest of hash is that of the representation the <loc> returns",
	Quote: "hash – The value of the attribute conveys fixity information for a resource representation returned when the URI in <loc> is dereferenced.",
	Doc: "Every algorithm given that rsconform computes (" + rs.ComputedAlgorithms + ") is checked against the body as received. " +
		"Checked on sampled resources and, with --packages, on dump packages. A resource modified (Last-Modified) after its Resource List's snapshot ended is not checked.",
	CheckGraph: func(p *GraphPass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			if e.Md == nil || n.Body == nil || n.Body.Truncated || changedSince(n, from) {
				return
			}
			for _, h := range e.Md.Hashes() {
				got, known := n.Body.Digests[h.Algorithm()]
				if known && !h.Matches(got) {
					p.Reportf(e.From, e.Md.AttrPosition("hash"), "hash gives %s:%s but %s returns a body with %s:%s", h.Algorithm(), h.Digest, n.URL, h.Algorithm(), got)
				}
			}
		})
		return nil
	},
}

// 7: "type – The value of the attribute conveys the Media Type of a
// resource representation returned when the URI in <loc> is dereferenced."
var RepType = &Rule{
	ID: "RS-REP-TYPE", Section: "7", Level: Should,
	Title: "type is the media type the <loc> is served with",
	Quote: "type – The value of the attribute conveys the Media Type of a resource representation returned when the URI in <loc> is dereferenced.",
	Doc:   "Compared with the Content-Type of the response, without parameters and case aside. A server may negotiate another representation than the one the Source described, so this is a warning.",
	CheckGraph: func(p *GraphPass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			v, ok := e.Md.Get("type")
			if !ok || strings.TrimSpace(v) == "" {
				return
			}
			want := strings.ToLower(strings.TrimSpace(strings.SplitN(v, ";", 2)[0]))
			got := headerMediaType(n.Header)
			if got != "" && got != want {
				p.Reportf(e.From, e.Md.AttrPosition("type"), "type=%q but %s is served as %s", v, n.URL, got)
			}
		})
		return nil
	},
}

// 7: "<lastmod> -- An element that conveys the last modification time of
// the resource with the URI provided in <loc>, as defined in RFC 2616,
// Sec. 14.29."
var RepLastmod = &Rule{
	ID: "RS-REP-LASTMOD", Section: "7", Level: Info,
	Title: "<lastmod> agrees with the Last-Modified header of the resource",
	Quote: "<lastmod> -- An element that conveys the last modification time of the resource with the URI provided in <loc>, as defined in RFC 2616, Sec. 14.29.",
	Doc:   "Section 7 notes that \"there is significant variation in practices for the use and maintenance of last modification times\", so a difference is only a hint. Last-Modified has a precision of a second; so is the comparison. A resource modified after its Resource List's snapshot ended is not checked.",
	CheckGraph: func(p *GraphPass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			if e.Lastmod == "" {
				return
			}
			lm, err := http.ParseTime(n.Header.Get("Last-Modified"))
			if err != nil || changedSince(n, from) {
				return
			}
			t, ok := instant(e.Lastmod)
			if !ok || t.Truncate(time.Second).Equal(lm) {
				return
			}
			p.Reportf(e.From, e.Pos, "<lastmod> is %s but %s is served with Last-Modified: %s", e.Lastmod, n.URL, n.Header.Get("Last-Modified"))
		})
		return nil
	},
}

func init() { register(RepStatus, RepLength, RepHash, RepType, RepLastmod) }
