package rules

import "sort"

// levelReasons is the reviewed list of the rules whose level their quoted
// sentence's keyword does not carry, each with the reason the level stands.
// Kinds of reason:
//   - definition: the sentence defines a value, a format, an element or the
//     meaning of an attribute; a document that breaks the definition is not
//     valid (the XSD, the Sitemap protocol, a referenced format) or states
//     something false, and no keyword is needed for that;
//   - Sitemap protocol / RFC: the level rests on the referenced standard's
//     keyword, named in the reason;
//   - lowered: the sentence (or the definition) would carry more, and the
//     rule reports less, because its evidence is indirect;
//   - coverage / tool limit: the finding is about what rsconform could
//     check, not a requirement.
//
// A warning whose sentence has no should-class keyword and that rests on no
// definition the document breaks is lowered to info, not listed here.
// A new rule whose level its sentence does not carry fails the catalogue
// test (levels_test.go) until its reason is written here; a reason for a
// rule that no longer needs one fails it too.
var levelReasons = map[string]string{
	// Errors resting on a definition or a referenced standard.
	"RS-XSD":                 "definition: section 7 provides the XSD to validate the elements; a document it rejects is not a valid ResourceSync document",
	"RS-KIND-ROOT":           "definition: 6.1 implements every capability on <urlset> or <sitemapindex>, the only roots the Sitemap XSD declares",
	"RS-NAMESPACE-NEAR":      "definition: section 4 binds rs to http://www.openarchives.org/rs/terms/; another namespace name is another namespace (Namespaces in XML 2.3)",
	"RS-ELEMENT-UNKNOWN":     "definition: the rs namespace is for the elements the specification introduces (section 4), md and ln (section 7); no other element is ResourceSync's",
	"RS-PRIORITY-VALUE":      "Sitemap protocol: its schema defines <priority> as a decimal from 0.0 to 1.0; outside it the document is no valid Sitemap",
	"RS-CHANGEFREQ-VALUE":    "Sitemap protocol: its schema enumerates exactly these values; any other makes the document an invalid Sitemap",
	"RS-LIMIT-ENTRIES":       "Sitemap protocol: a Sitemap 'must have no more than 50,000 URLs', the community-defined limit section 7 follows",
	"RS-LIMIT-SIZE":          "Sitemap protocol: a Sitemap 'must be no larger than 50MB' (uncompressed), the community-defined limit section 7 follows",
	"RS-LIMIT-ATTRS":         "tool limit: rsconform refuses such an element before parsing it and cannot say the document conforms; no sentence states it",
	"RS-TIME-W3C":            "definition: the value 'is expressed as a W3C Datetime', a defined format; the recommendation in the sentence is RS-TIME-UTC's",
	"RS-HASH-SYNTAX":         "definition: section 7 defines the value as a list of token:hex-digest pairs; another value conveys no fixity information",
	"RS-TYPE-SYNTAX":         "definition: the value is a Media Type (RFC 4287, RFC 6838 syntax); a value that is none conveys no type",
	"RS-ENCODING-SYNTAX":     "definition: the value is a content-coding list as in RFC 2616 14.11; the sentence's should (equal to the header) is another check",
	"RS-LINK-PRI":            "definition: 'The attribute value is an integer between 1 and 999,999'; the optional is about the attribute, not its value",
	"RS-CHANGE-VALUE":        "definition: the values are defined, and 12.1 closes the list ('The value of the change attribute is created, updated, or deleted')",
	"RS-PATH-PLACE":          "definition: path 'is only used in' the two manifests; elsewhere it points into no package",
	"RS-TIME-NOT-USED":       "definition: at/from 'is not used for' the documents named; Appendix A (normative) leaves those cells empty",
	"RS-TIME-INTERVAL":       "definition: at/completed and from/until bound an interval; one that ends before it starts cannot be interpreted",
	"RS-TIME-ENTRY-SNAPSHOT": "definition: at 'provides a guarantee' for the whole document; a part taken outside the document's snapshot breaks it",
	"RS-TIME-ENTRY-INTERVAL": "definition: from/until say all changes of the interval are included; a closed document's entry past its until breaks it",
	"RS-CAPLIST-ENTRY-KIND":  "definition: 9 'A Capability List points at the capability documents'; an entry that is none is no Capability List entry",
	"RS-LIST-OF-LISTS":       "definition: 6.1 multiple documents are grouped by a <sitemapindex> 'introduced as an index to point at all individual <urlset> documents'",
	"RS-LISTED-KIND":         "definition: 6.1 the documents of a capability 'have the same value for the capability attribute'",
	"RS-UP-TARGET":           "definition: 6.2 the up link gives 'the URI of the document that sits higher in the hierarchy'",
	"RS-INDEX-TARGET":        "definition: 6.2 the index link gives 'the URI of the index document' under which the document resides",
	"RS-INDEX-TIMES":         "definition: the entry's <rs:md> conveys the listed document's snapshot times; different times state something false",
	"RS-HTTP-STATUS":         "definition: 6.2 <loc> provides 'the URI of the document that sits lower in the hierarchy'; a 4xx/5xx there provides none",
	"RS-REP-HASH":            "definition: hash 'conveys fixity information for a resource representation returned'; a different digest is false fixity",
	"RS-PKG-BITSTREAM":       "definition: section 7 hash and length convey the representation's fixity and length, in a manifest the bitstream's",
	"RS-PKG-UNSAFE-PATH":     "definition: the path is 'the relative file system path where the bitstream would reside if the ZIP were unpacked'",
	"RS-RL-AT-CHANGES":       "definition: at 'provides a guarantee' that each state is the result of all changes up to at; the rule checks that promise",
	"RS-REP-GONE":            "definition: the mandatory from says the Change List 'includes all changes' since then; an unrecorded deletion breaks it",
	"RS-CL-OVERLAP":          "definition: from says the Change List 'includes all changes' since then; a change in the overlap missing from one breaks it",
	"RS-REVISIT-AT":          "definition: at conveys when the snapshot process started; a later snapshot cannot have started earlier",
	"RS-REVISIT-CLOSED":      "definition: 12.1 until 'indicates that the document will not be updated anymore'",
	"RS-ARCHIVE-TARGET":      "definition: Archives 1.2 the archives 'point at archived instances of the corresponding core capability documents'",
	"RS-ARCHIVES-LINK":       "definition: the link is optional (できます), but it links 'to the corresponding archive'; the rule checks the target",

	// Warnings whose sentence or definition would carry more, or that rest
	// on another standard.
	"RS-CL-ORDER-LASTMOD":       "lowered: the must orders change times; <lastmod> only stands in for them and may rightly differ (a deletion)",
	"RS-CDM-DELETED-PATH":       "lowered: the must concerns entries other than deletions; for a deletion the sentence exempts the path, so a hint",
	"RS-CD-ZIP":                 "11.1: 'The ResourceSync framework recommends the use of the ZIP file format as the packaging format', framework-wide",
	"RS-RDM-PATH-UNIQUE":        "lowered: definition 'One <url> child element of <urlset> per bitstream'; kept a warning, as it was, never raised",
	"RS-LINK-MEMENTO-SINGLE":    "lowered: definition of the first approach, 'a single <rs:ln> element'; other versions have other approaches",
	"RS-HASH-ALGORITHM":         "lowered: the token 'identifies the utilized hash algorithm'; one rsconform does not know may still identify one",
	"RS-TIME-ENTRY-AT":          "lowered: definition, the optional <rs:md> is one 'with an at attribute'; at on entries is Optional in Appendix A",
	"RS-ARCHIVE-RL-ENTRY-AT":    "lowered: definition, the optional <rs:md> has the at attribute (at 属性...を持ち); as RS-TIME-ENTRY-AT",
	"RS-ARCHIVE-RD-ENTRY-AT":    "lowered: definition, the optional <rs:md> has the at attribute (at 属性...を持ち); as RS-TIME-ENTRY-AT",
	"RS-REP-TYPE":               "lowered: definition, type conveys the Media Type returned; a server may negotiate another representation",
	"RS-REP-STATUS":             "lowered: definition, a Resource List lists resources the Source makes available; a resource may be rightly gone",
	"RS-HTTP-REDIRECTS":         "lowered: as RS-HTTP-STATUS, the linked document is out of reach; how many redirects to follow is the client's",
	"RS-HTTP-FLAKY":             "lowered: as RS-HTTP-STATUS, the link answered 404, then 200 on retry: the evidence is one answer",
	"RS-HTTP-LASTMOD-DATE":      "RFC 9110 5.6.7: a sender MUST generate HTTP-dates as IMF-fixdate; the resource's server, outside ResourceSync",
	"RS-REVISIT-LASTMOD":        "lowered: definition, <lastmod> conveys the last modification; a new one with the same hash is evidence, not proof",
	"RS-CAPABILITY-ENTRY-PLACE": "lowered: the mandatory is about Source Descriptions and Capability Lists; no sentence forbids capability elsewhere",
	"RS-CAPABILITY-ENTRY-VALUE": "lowered: the must is the attribute's presence; 6.1 'Additional capabilities may be defined in other specifications'",
	"RS-CRAWL-REACH":            "coverage: says the crawl checked nothing beyond the entry point, so --fail-level warning catches it",
}

// LevelReason is the reviewed reason a rule's level stands although the
// keyword of its quoted sentence does not carry it ("" when it does):
// rsconform explain and docs/rules.md print it as "Why LEVEL".
func LevelReason(id string) string { return levelReasons[id] }

// LevelReasonIDs lists the rules that have a reason, sorted.
func LevelReasonIDs() []string {
	ids := make([]string, 0, len(levelReasons))
	for id := range levelReasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
