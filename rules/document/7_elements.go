package document

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Elements of section 7 the XML Schema lets through: repeated <rs:md>,
// undefined elements of the ResourceSync namespace, the values of the
// Sitemap elements <changefreq> and <priority>, and resources repeated in
// snapshots.
//
// Misplaced entries (<url> in a <sitemapindex>, <sitemap> in a <urlset>)
// and repeated <loc>, <lastmod>, <changefreq> or <priority> children are
// schema errors, reported by RS-XSD: no rule here reports them again.

// 7: "this specification adds one mandatory and one optional child element
// to the child elements of the Sitemap document formats: <rs:md> – In this
// context, the element conveys information about the document itself."
var MdTopOnce = &engine.Rule{
	ID: "RS-MD-TOP-ONCE", Section: "7", Level: engine.Must, Scope: engine.ScopeHeader,
	Title: "The root element has one <rs:md> child, not several",
	Quote: "<urlset> or <sitemapindex> – These elements are the root elements of ResourceSync documents; this specification adds one mandatory and one optional child element to the child elements of the Sitemap document formats: <rs:md> – In this context, the element conveys information about the document itself. Its use is mandatory",
	Doc: "Section 7 calls <rs:ln> repeatable and <rs:md> not: the one <rs:md> says what the document is. With several, the document is ambiguous (two capabilities, two at values): rsconform takes the first as the document's and reports every further one. " +
		"The XML Schema cannot say this (rs:md arrives through a wildcard), so it is a rule.",
	Check: func(p *engine.Pass) error {
		d := p.Doc
		if d.Md == nil {
			return nil
		}
		for _, m := range d.ExtraMd {
			p.ReportRelated(m.Pos, []rs.Pos{d.Md.Pos}, "a second top-level <rs:md> (the first is on line %d): a document has one <rs:md> child of %s; merge their attributes into one", d.Md.Pos.Line, rootName(d))
		}
		return nil
	},
}

// 7: "<rs:md> – In this context, the element conveys metadata pertaining
// to the resource with the URI provided in <loc>. The element is not
// repeatable"
var MdEntryOnce = &engine.Rule{
	ID: "RS-MD-ENTRY-ONCE", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "An entry has at most one <rs:md>",
	Quote: "<rs:md> – In this context, the element conveys metadata pertaining to the resource with the URI provided in <loc>. The element is not repeatable, and is mandatory for some documents and optional for others, as described in the appropriate sections.",
	Doc:   "Every further <rs:md> of an entry is reported, with the first as related location. The other rules still check the attributes of every <rs:md>.",
	Check: func(p *engine.Pass) error {
		for e := range p.EntriesWith(engine.EntryExtraMd) {
			if e.Md == nil {
				continue
			}
			for _, m := range e.ExtraMd {
				p.ReportRelated(m.Pos, []rs.Pos{e.Md.Pos}, "a second <rs:md> in this %s (the first is on line %d): the element is not repeatable; merge their attributes into one", entryName(p.Doc), e.Md.Pos.Line)
			}
		}
		return nil
	},
}

// 7: "The <rs:md> and <rs:ln> elements are introduced to express metadata
// and links, respectively. Both are in the ResourceSync XML Namespace"
var ElementUnknown = &engine.Rule{
	ID: "RS-ELEMENT-UNKNOWN", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "The only elements of the ResourceSync namespace are <rs:md> and <rs:ln>",
	Quote: "The <rs:md> and <rs:ln> elements are introduced to express metadata and links, respectively. Both are in the ResourceSync XML Namespace and may have attributes.",
	Doc: "ResourceSync defines two elements in its namespace, and its XML Schema declares only those. Communities extend documents in their own namespaces (section 7 requires that of attributes; Sitemap extensions such as image:image do the same for elements), never in the ResourceSync one. " +
		"An element such as <rs:lnk> or <rs:link> is therefore a mistake, and one a Destination silently ignores. rsconform's schema processes extension elements laxly and cannot exclude one namespace, so the check is a rule. " +
		"Checked among the children of the root and of each entry.",
	Check: func(p *engine.Pass) error {
		report := func(el rs.Element, where string) {
			if el.Space != rs.RSNS {
				return
			}
			msg := fmt.Sprintf("<rs:%s> in %s is not an element of ResourceSync: its namespace defines only <rs:md> (metadata) and <rs:ln> (links)", el.Local, where)
			if s := attrElementSuggestion(el.Local); s != "" {
				msg += fmt.Sprintf("; did you mean <rs:%s>?", s)
			}
			p.Reportf(el.Pos, "%s", msg)
		}
		for e := range p.EntriesWith(engine.EntryUnknown) {
			for _, el := range e.Unknown {
				report(el, entryName(p.Doc))
			}
		}
		for _, el := range p.Doc.Unknown { // complete once the entries are read
			report(el, rootName(p.Doc))
		}
		return nil
	},
}

// attrElementSuggestion guesses which of md and ln a misspelt local name
// meant.
func attrElementSuggestion(local string) string {
	l := strings.ToLower(local)
	switch {
	case l == "md" || strings.HasPrefix(l, "meta") || l == "m" || l == "mds":
		return "md"
	case l == "ln" || strings.HasPrefix(l, "lin") || strings.HasPrefix(l, "ln") || l == "l":
		return "ln"
	}
	return ""
}

// attrChangefreqValues are the values of <changefreq> (section 7, from the
// Sitemap protocol).
var attrChangefreqValues = []string{"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

// 7: "<changefreq> – An optional element that provides a hint about the
// change frequency of the resource with the URI provided in <loc>. Defined
// values are always, hourly, daily, weekly, monthly, yearly, and never."
var ChangefreqValue = &engine.Rule{
	ID: "RS-CHANGEFREQ-VALUE", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "<changefreq> is always, hourly, daily, weekly, monthly, yearly or never",
	Quote: "<changefreq> – An optional element that provides a hint about the change frequency of the resource with the URI provided in <loc>. Defined values are always, hourly, daily, weekly, monthly, yearly, and never.",
	Doc: "The list is the Sitemap protocol's, whose schema enumerates exactly these values (lower case); any other value makes the document an invalid Sitemap. " +
		"White space around the value is ignored; case is not.",
	Check: func(p *engine.Pass) error {
		for e := range p.EntriesWith(engine.EntryChangefreq) {
			if !e.ChangefreqPos.IsValid() || slices.Contains(attrChangefreqValues, e.Changefreq) {
				continue
			}
			msg := fmt.Sprintf("<changefreq> %q is not a defined value (always, hourly, daily, weekly, monthly, yearly, never)", truncateValue(e.Changefreq))
			for _, v := range attrChangefreqValues {
				if strings.EqualFold(v, e.Changefreq) {
					msg += fmt.Sprintf("; values are lower case: %q", v)
				}
			}
			p.Reportf(e.ChangefreqPos, "%s", msg)
		}
		return nil
	},
}

// The Sitemap protocol, of <priority>: "Valid values range from 0.0 to
// 1.0." (its schema: xs:decimal, minInclusive 0.0, maxInclusive 1.0). No
// keyword: the sentence defines the values, and a value outside them
// makes the document an invalid Sitemap, so an error.
var PriorityValue = &engine.Rule{
	ID: "RS-PRIORITY-VALUE", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "<priority> is a decimal number from 0.0 to 1.0",
	Quote: "Valid values range from 0.0 to 1.0.",
	Doc: "The sentence is the Sitemap protocol's, of <priority>. ResourceSync does not use <priority> (section 7 and Table 3 do not list it), but section 7 uses the Sitemap document formats, so a ResourceSync document is a Sitemap, and the Sitemap protocol defines <priority> as a decimal whose \"Valid values range from 0.0 to 1.0\" (its schema: xs:decimal, 0.0 to 1.0). " +
		"The sentence has no keyword: it defines the values, and a value outside them makes the document an invalid Sitemap for the search engines a Resource List is also meant for, so this is an error. White space around the value is ignored. <priority> in a <sitemap> is a schema error (RS-XSD).",
	Check: func(p *engine.Pass) error {
		for e := range p.EntriesWith(engine.EntryPriority) {
			if !e.PriorityPos.IsValid() {
				continue
			}
			if msg := attrPriorityProblem(e.Priority); msg != "" {
				p.Reportf(e.PriorityPos, "<priority> %q %s", truncateValue(e.Priority), msg)
			}
		}
		return nil
	},
}

// attrPriorityProblem checks an xs:decimal between 0.0 and 1.0.
func attrPriorityProblem(v string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")
	intPart, frac, hasDot := strings.Cut(s, ".")
	digits := func(x string) bool {
		for i := 0; i < len(x); i++ {
			if x[i] < '0' || x[i] > '9' {
				return false
			}
		}
		return true
	}
	if s == "" || !digits(intPart) || !digits(frac) || (intPart == "" && (!hasDot || frac == "")) {
		return "is not a decimal number: the priority is a value from 0.0 to 1.0, e.g. 0.5"
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		return "is out of range: valid values range from 0.0 to 1.0"
	}
	return ""
}

// 10.1: "One <url> child element of <urlset> should be included for each
// resource."
var LocDuplicate = &engine.Rule{
	ID: "RS-LOC-DUPLICATE", Section: "10.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceList, rs.ResourceDumpManifest},
	Title:   "A Resource List or Resource Dump Manifest lists each resource once",
	Quote:   "One <url> child element of <urlset> should be included for each resource.",
	Doc: "A Resource List is a snapshot: a resource has one state in it, so a second entry with the same <loc> either repeats the first or contradicts it (which hash, which length?). The second entry is reported, with the first as related location. " +
		"A Resource Dump is a snapshot too (11.1: it \"represents the Source's state at a point in time\"), and its manifest gives each bitstream the URI of the resource it is the state of (11.2, \"One <url> child element of <urlset> per bitstream\"): two bitstreams for one URI are reported the same way. A resource with several representations is listed under their specific URIs (14.3). " +
		"Change Lists and Change Dump Manifests legitimately list a resource once per change (12.1: \"then it will be listed multiple times, once per change\"; Example 23) and are not checked. " +
		"It is a warning, from the SHOULD of 10.1. URIs are compared as written, after trimming white space (by a 95-bit fingerprint: memory does not grow with the length of the URIs, and two different URIs would be taken for one with a probability of about 3x10^-20 in a list of 50,000); duplicates across the Resource Lists of an index are RS-RLI-DUPLICATE's, in a crawl.",
	Check: func(p *engine.Pass) error {
		first := engine.NewFingerprints()
		defer first.Release()
		for e := range p.Entries() {
			if e.Loc == "" {
				continue
			}
			if prev, ok := first.Seen(e.Loc, e.LocPos); ok {
				p.ReportRelated(e.LocPos, []rs.Pos{prev}, "<loc> %q is listed again (first on line %d): a %s is a snapshot with one entry per resource", truncateValue(e.Loc), prev.Line, p.Kind.Title())
			}
		}
		return nil
	},
}

func init() {
	engine.Register(MdTopOnce, MdEntryOnce, ElementUnknown, ChangefreqValue, PriorityValue, LocDuplicate)
}
