package graph

import (
	"net/http"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
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
			if e.Md == nil && e.Lastmod == "" || !from.Parsed() {
				continue
			}
			fn(n, e, from)
		}
	}
}

// A resource that cannot be retrieved: explained when the Source's Change
// Lists record its deletion (or a later change) after the claim; else an
// error when they cover the time since the claim (they say they hold every
// change, and hold no deletion of it), a warning when they do not.

// unretrievable calls fn for every claim about a sampled resource that
// answers an HTTP error and that no recorded change explains, with whether
// the Change Lists cover the time since the claim and a note saying what
// they cover.
func unretrievable(g *Graph, fn func(n *Node, e Edge, from *Node, covered bool, note string)) {
	for _, n := range g.Sorted() {
		if n.Role != RoleResource || !n.HTTPFailed() {
			continue
		}
		for _, e := range n.In {
			from := g.Node(e.From)
			if !from.Parsed() || laterChange(g, n, e, from) != "" {
				continue
			}
			t, ok := claimTime(g, n, e, from)
			if !ok {
				fn(n, e, from, false, "the claim has no time to compare with the Change Lists")
				continue
			}
			covered, spans := changeListCoverage(g, t)
			note := "no Change List was read"
			if len(spans) > 0 {
				note = "the Change Lists read cover " + strings.Join(spans, ", ")
			}
			fn(n, e, from, covered, note)
		}
	}
}

func gone(status int) bool { return status == http.StatusNotFound || status == http.StatusGone }

// 12.1: "The from attribute indicates that the Change List includes all
// changes that occurred to the set of resources at the Source since the
// datetime expressed as the value of the attribute."
var RepGone = &engine.Rule{
	ID: "RS-REP-GONE", Section: "12.1", Level: engine.Must,
	Title: "A listed resource that is gone has its deletion in the Change Lists",
	Quote: "The from attribute indicates that the Change List includes all changes that occurred to the set of resources at the Source since the datetime expressed as the value of the attribute.",
	Doc: "A sampled resource that answers 404 or 410 is compared with the Source's own history: the Change Lists the crawl read (open and closed, archived ones when reached, and the open ones fetched once more after the resources). " +
		"When they record its deletion, or any change, that comes or may come after the claim (placed by datetime, else <lastmod>, else by forward chronological order and the lists' from and until: docs/history.md), it is not an error (RS-REP-CHANGED says so). " +
		"When they cover the time since the claim (from at or before it, contiguous up to an open list) and record no deletion, the Source broke the promise of from, which is mandatory: an error. " +
		"When they do not cover it, RS-REP-STATUS reports a warning instead.",
	CheckGraph: Check(func(p *Pass) error {
		unretrievable(p.Graph, func(n *Node, e Edge, from *Node, covered bool, note string) {
			if covered && gone(n.StatusCode) {
				p.Reportf(e.From, e.Pos, "the resource %s answers HTTP %d %s, but no deletion of it is recorded since the claim (%s)", n.URL, n.StatusCode, http.StatusText(n.StatusCode), note)
			}
		})
		return nil
	}),
}

// 10.1: "A Resource List is introduced to list and describe the resources
// that a Source makes available for synchronization."
var RepStatus = &engine.Rule{
	ID: "RS-REP-STATUS", Section: "10.1", Level: engine.Should,
	Title: "Listed resources can be retrieved",
	Quote: "A Resource List is introduced to list and describe the resources that a Source makes available for synchronization.",
	Doc: "Checked on the resources the crawl samples (--sample): from an open Change List the last change of each resource unless it is a deletion, and from Resource Lists. Archived lists are not sampled. " +
		"A failure that the Source's Change Lists explain (a deletion or any change recorded, or that may be recorded, after the claim: docs/history.md) is not reported here but as RS-REP-CHANGED, an info; a 404 or 410 in the time the Change Lists cover is an error of its own (RS-REP-GONE). " +
		"What is left is a warning, saying what the Change Lists read cover: a resource deleted in time no Change List covers may be rightly gone. A network failure or time-out is not reported.",
	CheckGraph: Check(func(p *Pass) error {
		unretrievable(p.Graph, func(n *Node, e Edge, from *Node, covered bool, note string) {
			if !covered || !gone(n.StatusCode) {
				p.Reportf(e.From, e.Pos, "the resource %s answers HTTP %d %s (%s)", n.URL, n.StatusCode, http.StatusText(n.StatusCode), note)
			}
		})
		return nil
	}),
}

// 7: "length – The value of the attribute conveys the content length of a
// resource representation returned when the URI in <loc> is dereferenced.
// The value of the length attribute should be equal to the value of the
// Content-Length header in the HTTP response and must be computed as
// defined in RFC 2616, Sec. 4.4."
var RepLength = &engine.Rule{
	ID: "RS-REP-LENGTH", Section: "7", Level: engine.Must,
	Title: "length is the length of the representation the <loc> returns",
	Quote: "The value of the length attribute should be equal to the value of the Content-Length header in the HTTP response and must be computed as defined in RFC 2616, Sec. 4.4.",
	Doc: "The body is counted as received (RFC 2616 4.4: the entity length, content codings included; rsconform asks for the encoding the entry's encoding attribute gives, and for none otherwise), and the Content-Length header is compared too. " +
		"Checked on sampled resources and, with --packages, on dump packages. A claim is not checked when the Source says the resource changed, or may have changed, after it (RS-REP-CHANGED then says so, an info): its Change Lists record a change that comes or may come later (a later entry of the same list whatever its time, an entry of a later list, or one whose datetime, else <lastmod>, else place between timed entries and within its list's from and until, may be later than the Resource List's at to completed), or its Last-Modified, read in any common form, is later. " +
		"With --revisit, such a body is compared with every state the Change Lists record after the claim: one that is none of them is an error. docs/history.md has the whole table.",
	CheckGraph: Check(func(p *Pass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			msg := lengthDiffers(n, e)
			if msg == "" {
				return
			}
			pos := e.Md.AttrPosition("length")
			if laterChange(p.Graph, n, e, from) != "" {
				if msg := unrecordedState(p.Graph, n, e, from, lengthState); msg != "" {
					p.Reportf(e.From, pos, "%s returns a body whose length is that of no state the Change Lists record since the claim: %s", n.URL, msg)
				}
				return
			}
			p.Reportf(e.From, pos, "%s", msg)
		})
		return nil
	}),
}

// 7: "hash – The value of the attribute conveys fixity information for a
// resource representation returned when the URI in <loc> is dereferenced."
var RepHash = &engine.Rule{
	ID: "RS-REP-HASH", Section: "7", Level: engine.Must,
	Title: "Every digest of hash is that of the representation the <loc> returns",
	Quote: "hash – The value of the attribute conveys fixity information for a resource representation returned when the URI in <loc> is dereferenced.",
	Doc: "Every algorithm given that rsconform computes (" + rs.ComputedAlgorithms + ") is checked against the body as received. " +
		"Checked on sampled resources and, with --packages, on dump packages. A claim is not checked when the Source says the resource changed, or may have changed, after it (RS-REP-CHANGED then says so, an info): its Change Lists record a change that comes or may come later (a later entry of the same list whatever its time, an entry of a later list, or one whose datetime, else <lastmod>, else place between timed entries and within its list's from and until, may be later than the Resource List's at to completed), or its Last-Modified, read in any common form, is later. " +
		"With --revisit, such a body is compared with every state the Change Lists record after the claim: one that is none of them is an error. docs/history.md has the whole table.",
	CheckGraph: Check(func(p *Pass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			if e.Md == nil || n.Body == nil || n.Body.Truncated {
				return
			}
			wrong := hashDiffers(e.Md.Hashes(), n)
			if len(wrong) == 0 {
				return
			}
			if laterChange(p.Graph, n, e, from) != "" {
				if msg := unrecordedState(p.Graph, n, e, from, hashState); msg != "" {
					p.Reportf(e.From, e.Md.AttrPosition("hash"), "%s returns a body whose hash is that of no state the Change Lists record since the claim: %s", n.URL, msg)
				}
				return
			}
			for _, w := range wrong {
				p.Reportf(e.From, e.Md.AttrPosition("hash"), "%s", w)
			}
		})
		return nil
	}),
}

// 7: "type – The value of the attribute conveys the Media Type of a
// resource representation returned when the URI in <loc> is dereferenced."
var RepType = &engine.Rule{
	ID: "RS-REP-TYPE", Section: "7", Level: engine.Should,
	Title: "type is the media type the <loc> is served with",
	Quote: "type – The value of the attribute conveys the Media Type of a resource representation returned when the URI in <loc> is dereferenced.",
	Doc:   "Compared with the Content-Type of the response, without parameters and case aside. A server may negotiate another representation than the one the Source described, so this is a warning.",
	CheckGraph: Check(func(p *Pass) error {
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
	}),
}

// 7: "<lastmod> -- An element that conveys the last modification time of
// the resource with the URI provided in <loc>, as defined in RFC 2616,
// Sec. 14.29."
var RepLastmod = &engine.Rule{
	ID: "RS-REP-LASTMOD", Section: "7", Level: engine.Info,
	Title: "<lastmod> agrees with the Last-Modified header of the resource",
	Quote: "<lastmod> -- An element that conveys the last modification time of the resource with the URI provided in <loc>, as defined in RFC 2616, Sec. 14.29.",
	Doc:   "Section 7 notes that \"there is significant variation in practices for the use and maintenance of last modification times\", so a difference is only a hint. An HTTP-date has a precision of a second; so is the comparison, on both sides (a Last-Modified in ISO 8601 may carry a fraction). A claim the Source says is outdated (a later change recorded, a later Last-Modified) is not checked.",
	CheckGraph: Check(func(p *Pass) error {
		claims(p.Graph, func(n *Node, e Edge, from *Node) {
			if e.Lastmod == "" {
				return
			}
			lm, _, ok := ParseLastModified(n.Header.Get("Last-Modified"))
			if !ok || laterChange(p.Graph, n, e, from) != "" {
				return
			}
			t, ok := instant(e.Lastmod)
			if !ok || t.Truncate(time.Second).Equal(lm.Truncate(time.Second)) {
				return
			}
			p.Reportf(e.From, e.Pos, "<lastmod> is %s but %s is served with Last-Modified: %s", e.Lastmod, n.URL, n.Header.Get("Last-Modified"))
		})
		return nil
	}),
}

// 7: "<lastmod> -- An element that conveys the last modification time of
// the resource with the URI provided in <loc>, as defined in RFC 2616,
// Sec. 14.29." (RFC 9110 8.8.2, which replaces it: "Last-Modified =
// HTTP-date".)
var HTTPLastModifiedDate = &engine.Rule{
	ID: "RS-HTTP-LASTMOD-DATE", Section: "7", Level: engine.Should,
	Title: "A resource's Last-Modified is an HTTP-date",
	Quote: "<lastmod> -- An element that conveys the last modification time of the resource with the URI provided in <loc>, as defined in RFC 2616, Sec. 14.29.",
	Doc: "Section 7 defines <lastmod> by the Last-Modified header, which RFC 9110 (8.8.2, 5.6.7) writes as an HTTP-date: IMF-fixdate (\"Sun, 06 Nov 1994 08:49:37 GMT\"), or one of the two obsolete forms recipients accept. " +
		"rsconform reads a Last-Modified in other common forms too (numeric zones, ISO 8601) to judge a resource against its history, and says here that a Destination may not: a warning, on each sampled resource whose Last-Modified is not an HTTP-date.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleResource || !httpOK(n) {
				continue
			}
			v := n.Header.Get("Last-Modified")
			if _, httpDate, ok := ParseLastModified(v); v != "" && !httpDate {
				how := "rsconform cannot read it either"
				if ok {
					how = "rsconform reads it, a strict HTTP client may not"
				}
				p.Reportf(n.URL, rs.Pos{}, "Last-Modified: %s is not an HTTP-date such as %q (%s)", v, "Sun, 06 Nov 1994 08:49:37 GMT", how)
			}
		}
		return nil
	}),
}

func init() {
	engine.Register(HTTPLastModifiedDate, RepStatus, RepGone, RepLength, RepHash, RepType, RepLastmod, RepChanged)
}
