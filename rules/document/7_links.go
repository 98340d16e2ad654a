package document

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Attributes of <rs:ln> (section 7): rel, href and pri.

// attrIANARelations is the IANA Link Relation Types registry
// (https://www.iana.org/assignments/link-relations/), as of 2025. Names
// are compared case-insensitively (RFC 8288, Sec. 2.1.1).
var attrIANARelations = attrSet(
	"about", "acl", "alternate", "amphtml", "api-catalog", "appendix", "apple-touch-icon",
	"apple-touch-startup-image", "archives", "author", "blocked-by", "bookmark", "c2pa-manifest",
	"canonical", "chapter", "cite-as", "collection", "compression-dictionary", "contents",
	"convertedfrom", "copyright", "create-form", "current", "deprecation", "describedby",
	"describes", "disclosure", "dns-prefetch", "duplicate", "edit", "edit-form", "edit-media",
	"enclosure", "external", "first", "geofeed", "glossary", "help", "hosts", "hub", "ice-server",
	"icon", "index", "intervalafter", "intervalbefore", "intervalcontains", "intervaldisjoint",
	"intervalduring", "intervalequals", "intervalfinishedby", "intervalfinishes", "intervalin",
	"intervalmeets", "intervalmetby", "intervaloverlappedby", "intervaloverlaps",
	"intervalstartedby", "intervalstarts", "item", "last", "latest-version", "license", "linkset",
	"lrdd", "manifest", "mask-icon", "me", "media-feed", "memento", "micropub", "modulepreload",
	"monitor", "monitor-group", "next", "next-archive", "nofollow", "noopener", "noreferrer",
	"opener", "openid2.local_id", "openid2.provider", "original", "p3pv1", "payment", "pingback",
	"preconnect", "predecessor-version", "prefetch", "preload", "prerender", "prev",
	"prev-archive", "preview", "previous", "privacy-policy", "profile", "publication",
	"rdap-active", "rdap-bottom", "rdap-down", "rdap-top", "rdap-up", "related", "replies",
	"restconf", "ruleinput", "search", "section", "self", "service", "service-desc",
	"service-doc", "service-meta", "sip-trunking-capability", "sponsored", "start", "status",
	"stylesheet", "subsection", "successor-version", "sunset", "tag", "terms-of-service",
	"timegate", "timemap", "type", "ugc", "up", "version-history", "via", "webmention",
	"working-copy", "working-copy-of",
)

// attrSpecRelations are relation names the ResourceSync specification
// itself defines without a URI: resourcesync (6.3.3).
var attrSpecRelations = attrSet("resourcesync")

func attrSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// attrRSPatch is the relation type of 14.4, a URI.
const attrRSPatch = "http://www.openarchives.org/rs/terms/patch"

// 7: "Relation types other than the ones listed above may be used in the
// ResourceSync Framework. Valid relation types must be registered in the
// IANA Link Relation Type Registry or expressed as URIs as specified in
// RFC 5988, Sec. 4.2."
var LinkRel = &engine.Rule{
	ID: "RS-LINK-REL", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "rel is a relation type registered with IANA or an absolute URI",
	Quote: "Relation types other than the ones listed above may be used in the ResourceSync Framework. Valid relation types must be registered in the IANA Link Relation Type Registry or expressed as URIs as specified in RFC 5988, Sec. 4.2.",
	Doc: "rsconform embeds the IANA Link Relation Types registry as of 2025 (including archives, which the Archives draft uses and which HTML registered) and compares registered names case-insensitively (RFC 5988/8288). It also accepts resourcesync, which the specification itself defines for discovery links (6.3.3). " +
		"A value with a colon is an extension relation type and must be an absolute URI (RFC 5988, Sec. 4.2), such as http://www.openarchives.org/rs/terms/patch (14.4). " +
		"Table 3 takes <rs:ln> and rel from RFC 4287, where rel holds one relation type: a value with several space-separated types is reported (use one <rs:ln> per relation). A missing rel is reported by RS-XSD. A relation registered after 2025 would be reported here: it can be written as a URI meanwhile.",
	Check: func(p *engine.Pass) error {
		for ref := range p.Lns() {
			l := ref.Ln
			if _, ok := l.Get("rel"); !ok {
				continue
			}
			if msg := attrRelProblem(l.Rel); msg != "" {
				p.Reportf(l.AttrPosition("rel"), "rel %q %s", truncateValue(l.Rel), msg)
			}
		}
		return nil
	},
}

func attrRelProblem(v string) string {
	types := strings.Fields(v)
	switch {
	case len(types) == 0:
		return "is empty: a link needs a relation type, e.g. rel=\"up\""
	case len(types) > 1:
		return fmt.Sprintf("holds %d relation types: an <rs:ln> conveys one relation (RFC 4287 atom:link); write one <rs:ln> per relation", len(types))
	case types[0] != v:
		return "has white space around the relation type"
	}
	if strings.Contains(v, ":") {
		u, err := url.Parse(v)
		if err != nil || !u.IsAbs() || strings.ContainsAny(v, " \t") {
			return "is neither a registered relation type nor an absolute URI (an extension relation type is a URI with a scheme, RFC 5988 Sec. 4.2)"
		}
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
			return "is an extension relation type URI without a host"
		}
		return ""
	}
	low := strings.ToLower(v)
	if attrIANARelations[low] || attrSpecRelations[low] {
		return ""
	}
	msg := "is not registered in the IANA Link Relation Type Registry and is not a URI: use a registered relation type or an extension relation type expressed as an absolute URI (RFC 5988, Sec. 4.2)"
	if low == "patch" {
		msg += "; the patch relation of 14.4 is " + attrRSPatch
	}
	return msg
}

// 7: "href – A mandatory attribute to convey the URI of the other
// document." (top level) and "href – A mandatory attribute to convey the
// URI of the related resource." (entries)
var LinkHref = &engine.Rule{
	ID: "RS-LINK-HREF", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "href holds an absolute URI",
	Quote: "href – A mandatory attribute to convey the URI of the related resource.",
	Doc: "As for <loc> (RS-LOC-URI), the URI must be absolute: a relative reference in a Sitemap has no agreed base, and a Destination cannot dereference it. Schemes other than http(s) are accepted (Example 24 uses gsiftp://). " +
		"A missing href is reported by RS-XSD; an empty href on the one up link by RS-LINK-UP.",
	Check: func(p *engine.Pass) error {
		report := func(l *rs.Ln) {
			if msg := absoluteURIProblem(l.Href); msg != "" {
				p.Reportf(l.AttrPosition("href"), "href %q %s", truncateValue(l.Href), msg)
			}
		}
		var emptyUp []*rs.Ln // decided once every top-level link is known
		for ref := range p.Lns() {
			l := ref.Ln
			if _, ok := l.Get("href"); !ok {
				continue
			}
			if l.Href == "" && ref.Entry == nil && l.Is("up") {
				emptyUp = append(emptyUp, l)
				continue
			}
			report(l)
		}
		if len(p.Doc.LinksByRel("up")) != 1 { // else RS-LINK-UP: "the up link has no href"
			for _, l := range emptyUp {
				report(l)
			}
		}
		return nil
	},
}

// 7: "pri – An optional attribute used to express a priority among links
// with the same relation type. The attribute value is an integer between 1
// and 999,999"
var LinkPri = &engine.Rule{
	ID: "RS-LINK-PRI", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "pri is an integer between 1 and 999,999",
	Quote: "pri – An optional attribute used to express a priority among links with the same relation type. The attribute value is an integer between 1 and 999,999, with a lower integer indicating a higher priority and the absence of the attribute indicating a value of 999,999.",
	Doc:   "Decimal digits only (leading zeros accepted), no sign, no digit grouping: pri=\"999,999\" is not an integer.",
	Check: func(p *engine.Pass) error {
		for ref := range p.Lns() {
			l := ref.Ln
			if _, ok := l.Get("pri"); !ok {
				continue
			}
			if msg := attrPriProblem(l.Pri); msg != "" {
				p.Reportf(l.AttrPosition("pri"), "pri %q %s", truncateValue(l.Pri), msg)
			}
		}
		return nil
	},
}

func attrPriProblem(v string) string {
	if v == "" {
		return "is empty: pri is an integer between 1 (highest priority) and 999999"
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < '0' || c > '9' {
			return fmt.Sprintf("is not an integer (character %q at position %d): pri is an integer between 1 and 999999, digits only", c, i+1)
		}
	}
	digits := strings.TrimLeft(v, "0")
	if digits == "" {
		return "is 0: pri is between 1 (highest priority) and 999999"
	}
	if n, err := strconv.Atoi(digits); err != nil || len(digits) > 6 || n > 999999 {
		return "is above 999999, the lowest priority"
	}
	return ""
}

func init() { engine.Register(LinkRel, LinkHref, LinkPri) }
