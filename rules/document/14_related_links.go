package document

import (
	"fmt"
	"hash/maphash"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Links to related resources (section 14): what each relation type of
// 14.2 to 14.8 requires of the <rs:ln> child of an entry. The syntax of
// pri and whether a relation type is registered are checked elsewhere;
// these rules check what a relation type asks for beyond rel and href.
//
// Only links of entries are checked: section 14 is about the <rs:ln> child
// of <url>, and a top-level link says something about the document, not
// about a resource.

// relatedLinkKinds are the documents that 14.1 names: "Such links may occur
// in Resource Lists, Resource Dump Manifests, Change Lists, and Change Dump
// Manifests."
var relatedLinkKinds = []rs.Kind{rs.ResourceList, rs.ResourceDumpManifest, rs.ChangeList, rs.ChangeDumpManifest}

// relPatch is the relation type of 14.4.
const relPatch = "http://www.openarchives.org/rs/terms/patch"

// RelatedEntryLinks calls fn for each link of an entry with relation rel,
// reading the entries that have links once (Pass.EntriesWith).
func RelatedEntryLinks(p *engine.Pass, rel string, fn func(e *rs.Entry, l *rs.Ln)) {
	for e := range p.EntriesWith(engine.EntryLinks) {
		for _, l := range e.Links {
			if l.Is(rel) {
				fn(e, l)
			}
		}
	}
}

// relatedReportRepeats reports the second and later links of one relation
// type in an entry, with the first as related position.
func relatedReportRepeats(p *engine.Pass, rel, why string) {
	for e := range p.EntriesWith(engine.EntryLinks) {
		links := e.LinksByRel(rel)
		for _, l := range links[min(1, len(links)):] {
			p.ReportRelated(l.Pos, []rs.Pos{links[0].Pos}, "%d %s links in the entry for %s (first at line %d): %s", len(links), rel, RelatedEntryName(e), links[0].Pos.Line, why)
		}
	}
}

// RelatedEntryName names an entry by its <loc> for messages.
func RelatedEntryName(e *rs.Entry) string {
	if e.Loc == "" {
		return "the entry without <loc>"
	}
	return truncateValue(e.Loc)
}

// relatedBefore reports whether position a comes before b in the input.
func relatedBefore(a, b rs.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// relatedMdAttrs are the attributes <rs:md> and <rs:ln> share and that
// describe a representation (Table 3).
var relatedMdAttrs = []string{"hash", "length", "type", "encoding", "path"}

// 14.2: "Since the three locations conveyed by <rs:ln> elements point to
// duplicates of the resource specified in <loc>, the values for each of the
// attributes of <rs:md> are expected to be identical for the resource and
// its mirrors. Hence, they should be omitted from the <rs:ln> elements."
var LinkDuplicateMd = &engine.Rule{
	ID: "RS-LINK-DUPLICATE-MD", Section: "14.2", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "Mirror links (rel=\"duplicate\") leave out the <rs:md> attributes (hash, length, type, encoding, path)",
	Quote:   "Since the three locations conveyed by <rs:ln> elements point to duplicates of the resource specified in <loc>, the values for each of the attributes of <rs:md> are expected to be identical for the resource and its mirrors. Hence, they should be omitted from the <rs:ln> elements. [...] Even though the resources are duplicates, their last modified datetimes may vary.",
	Doc: "rsconform reads 'they should be omitted' as applying whatever the values: a duplicate link that repeats hash, length, type, encoding or path of the entry's <rs:md> is redundant, one that gives other values contradicts the claim that the mirror is a duplicate, and one that gives a value the <rs:md> lacks puts resource metadata in the wrong place. The message says which case it is. " +
		"modified is not an attribute of <rs:md> and may vary between mirrors, so it is allowed, as are pri and extension attributes. path is considered in manifests only: elsewhere RS-PATH-PLACE reports it. One finding per link, at its first such attribute.",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, "duplicate", func(e *rs.Entry, l *rs.Ln) {
			var parts []string
			var first rs.Pos
			for _, a := range relatedMdAttrs {
				v, ok := l.Get(a)
				if !ok || a == "path" && !p.Kind.IsManifest() {
					continue // outside manifests path is RS-PATH-PLACE's
				}
				if pos := l.AttrPosition(a); len(parts) == 0 || relatedBefore(pos, first) {
					first = pos
				}
				parts = append(parts, relatedDuplicateAttr(a, v, e.Md))
			}
			if len(parts) > 0 {
				p.Reportf(first, "the duplicate link to %s carries %s: the <rs:md> values hold for the resource and its mirrors alike and should be omitted from the link", truncateValue(l.Href), strings.Join(parts, ", "))
			}
		})
		return nil
	},
}

// relatedDuplicateAttr describes attribute a=v of a duplicate link against
// the entry's <rs:md>: repeated, contradicting it, or missing from it.
func relatedDuplicateAttr(a, v string, md *rs.Md) string {
	mv, ok := md.Get(a)
	switch {
	case !ok:
		return fmt.Sprintf("%s=%q (not on <rs:md>: give it there)", a, truncateValue(v))
	case strings.Join(strings.Fields(mv), " ") == strings.Join(strings.Fields(v), " "):
		return fmt.Sprintf("%s (same as <rs:md>)", a)
	case a != "hash":
		return fmt.Sprintf("%s=%q (<rs:md> has %q, yet a mirror is a duplicate)", a, truncateValue(v), truncateValue(mv))
	}
	// Digests of different algorithms do not contradict each other.
	mine := relatedDigests(mv)
	for alg, d := range relatedDigests(v) {
		if md, ok := mine[alg]; ok && md != d {
			return fmt.Sprintf("hash=%q (<rs:md> gives another %s digest, yet a mirror is a duplicate)", truncateValue(v), alg)
		}
	}
	return fmt.Sprintf("hash=%q (digests of the resource: give them on <rs:md>)", truncateValue(v))
}

// relatedDigests maps the algorithms of a hash value to their digests,
// both lower-cased; tokens without a colon are ignored (RS-HASH-SYNTAX).
func relatedDigests(v string) map[string]string {
	out := map[string]string{}
	for _, tok := range strings.Fields(v) {
		if alg, d, ok := strings.Cut(tok, ":"); ok {
			out[strings.ToLower(alg)] = strings.ToLower(d)
		}
	}
	return out
}

// 14.3: "A recommended type attribute that conveys the Media Type of the
// alternate representation."
var LinkAlternateType = &engine.Rule{
	ID: "RS-LINK-ALTERNATE-TYPE", Section: "14.3", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "Alternate representation links (rel=\"alternate\") give the Media Type in type",
	Quote:   "A recommended type attribute that conveys the Media Type of the alternate representation.",
	Doc:     "Without type a Destination must fetch each alternate representation to learn which one it wants. An empty type is reported too. The canonical link of 14.3 has no such recommendation.",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, "alternate", func(e *rs.Entry, l *rs.Ln) {
			v, ok := l.Get("type")
			switch {
			case !ok:
				p.Reportf(l.Pos, "the alternate link to %s has no type: the Media Type of the alternate representation is recommended", truncateValue(l.Href))
			case strings.TrimSpace(v) == "":
				p.Reportf(l.AttrPosition("type"), "the alternate link to %s has an empty type: give the Media Type of the alternate representation", truncateValue(l.Href))
			}
		})
		return nil
	},
}

// 14.4: "A mandatory type attribute that conveys the Media Type of the
// change description."
var LinkPatchType = &engine.Rule{
	ID: "RS-LINK-PATCH-TYPE", Section: "14.4", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeList, rs.ChangeDumpManifest},
	Title:   "Patch links (rel=\"http://www.openarchives.org/rs/terms/patch\") give the Media Type of the change description",
	Quote:   "A mandatory type attribute that conveys the Media Type of the change description. That Media Type must be such that it allows the unambiguous application of the described changes to the previous version of the resource to construct the current one.",
	Doc: "A missing or empty type is reported. Whether the Media Type allows the unambiguous application of the changes cannot be checked: a Destination that does not understand it ignores the link (14.4). " +
		"Patch links in other documents are reported by RS-LINK-PATCH-KIND.",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, relPatch, func(e *rs.Entry, l *rs.Ln) {
			v, ok := l.Get("type")
			switch {
			case !ok:
				p.Reportf(l.Pos, "the patch link to %s has no type: the Media Type of the change description is mandatory (e.g. application/json-patch)", truncateValue(l.Href))
			case strings.TrimSpace(v) == "":
				p.Reportf(l.AttrPosition("type"), "the patch link to %s has an empty type: the Media Type of the change description is mandatory", truncateValue(l.Href))
			}
		})
		return nil
	},
}

// 14.4: "Expressing resource changes in this manner is only applicable to
// Change Lists (as in Example 27) and Change Dumps."
var LinkPatchKind = &engine.Rule{
	ID: "RS-LINK-PATCH-KIND", Section: "14.4", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: kindsExcept(rs.ChangeList, rs.ChangeDumpManifest),
	Title:   "Patch links appear only in Change Lists and Change Dump Manifests",
	Quote:   "Expressing resource changes in this manner is only applicable to Change Lists (as in Example 27) and Change Dumps. When doing so for a Change Dump, the entry in the Change Dump Manifest must have the path attribute for the <rs:ln> element that points to the change description that is included in the content package.",
	Doc: "For Change Dumps the sentence that follows places the patch link on the entry of the Change Dump Manifest, whose change description is in the package; the entries of a Change Dump itself are packages, which are not patched. " +
		"So a patch link on an entry of any other document (a Resource List, where a Destination has no previous version to patch, a dump, an index, an archive) is reported. rsconform reads 'only applicable' as a requirement, as it reads 'is not used' in section 7 (RS-TIME-NOT-USED).",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, relPatch, func(e *rs.Entry, l *rs.Ln) {
			where := "in Change Lists and Change Dump Manifests"
			if p.Kind.Base() == rs.ChangeDump {
				where = "in Change Lists and, for a Change Dump, on the entry of the Change Dump Manifest in the package (with path)"
			}
			p.Reportf(l.Pos, "a patch link in a %s: describing changes by patches is only applicable %s", p.Kind.Title(), where)
		})
		return nil
	},
}

// 14.4: "When doing so for a Change Dump, the entry in the Change Dump
// Manifest must have the path attribute for the <rs:ln> element that points
// to the change description that is included in the content package."
var LinkPatchPath = &engine.Rule{
	ID: "RS-LINK-PATCH-PATH", Section: "14.4", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeDumpManifest},
	Title:   "Patch links in a Change Dump Manifest give the path of the change description in the package",
	Quote:   "When doing so for a Change Dump, the entry in the Change Dump Manifest must have the path attribute for the <rs:ln> element that points to the change description that is included in the content package.",
	Doc:     "A missing or empty path is reported. Whether the path names a bitstream of the package is checked in crawls (RS-PKG-PATHS).",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, relPatch, func(e *rs.Entry, l *rs.Ln) {
			v, ok := l.Get("path")
			switch {
			case !ok:
				p.Reportf(l.Pos, "the patch link to %s has no path: in a Change Dump Manifest it must give the path of the change description in the package", truncateValue(l.Href))
			case strings.TrimSpace(v) == "":
				p.Reportf(l.AttrPosition("path"), "the patch link to %s has an empty path: it must give the path of the change description in the package", truncateValue(l.Href))
			}
		})
		return nil
	},
}

// 14.5: "If required, the inter-relationship between the resources is
// expressed by means of an <rs:ln> element with appropriate relation types
// added to each block."
var LinkDescribesPair = &engine.Rule{
	ID: "RS-LINK-DESCRIBES-PAIR", Section: "14.5", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "A resource and its metadata listed in one document link to each other (describedby and describes)",
	Quote:   "If required, the inter-relationship between the resources is expressed by means of an <rs:ln> element with appropriate relation types added to each block. [...] When pointing from a resource to metadata that describes it, the rel attribute's value is describedby; when pointing from metadata to the resource described by the metadata, its value is describes.",
	Doc: "Checked only when both resources are listed in the document: an entry linking describedby to a URI that another entry lists, none of whose entries links describes back (or the converse), is reported at the link. URIs are compared as written. " +
		"The sentence has no keyword and the interrelationship is optional ('if required'), so this is a hint: a Destination filtering on metadata (14.5) may not find the resource from its metadata record.",
	Check: func(p *engine.Pass) error {
		// One pass, since a link may point to an entry before or after it.
		// Kept: a hash and a position per listed URI, the links of 14.5 as
		// hashes, and what the messages need of the links to check (copies:
		// the model's strings are views of the parser's buffers).
		seed := maphash.MakeSeed()
		hash := func(s string) uint64 { return maphash.String(seed, s) }
		type listed struct {
			loc uint64
			pos engine.Pos32
		}
		type edge struct {
			from, to uint64
			rel      string
		}
		type link struct {
			edge
			back      string
			pos       rs.Pos
			href, loc string
		}
		var locs engine.Blocks[listed]
		var links []link
		edges := map[edge]bool{}
		for e := range p.Entries() {
			if e.Loc == "" {
				continue // neither listed nor linking from a listed URI
			}
			from := hash(e.Loc)
			locs.Add(listed{from, engine.NewPos32(e.Pos)})
			for _, l := range e.Links {
				rel, back := "describedby", "describes"
				if l.Is(back) {
					rel, back = back, rel
				} else if !l.Is(rel) {
					continue
				}
				ed := edge{from, hash(l.Href), rel}
				edges[ed] = true
				if l.Href != e.Loc {
					links = append(links, link{ed, back, l.Pos, strings.Clone(truncateValue(l.Href)), strings.Clone(truncateValue(e.Loc))})
				}
			}
		}
		if len(links) == 0 {
			return nil // most lists: no index of the locs is built
		}
		first := make(map[uint64]rs.Pos, locs.Len())
		for x := range locs.All() {
			if _, ok := first[x.loc]; !ok {
				first[x.loc] = x.pos.Pos()
			}
		}
		for _, l := range links {
			pos, listed := first[l.to]
			if !listed || edges[edge{l.to, l.from, l.back}] {
				continue
			}
			p.ReportRelated(l.pos, []rs.Pos{pos}, "the %s link points to %s, listed at line %d without a %s link back to %s: 14.5 adds the link to each block", l.rel, l.href, pos.Line, l.back, l.loc)
		}
		return nil
	},
}

// 14.6: "This is achieved by introducing a single <rs:ln> element with the
// following attributes: A mandatory rel attribute with a value of memento."
var LinkMementoSingle = &engine.Rule{
	ID: "RS-LINK-MEMENTO-SINGLE", Section: "14.6", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "An entry has at most one memento link, to the version of its last modification",
	Quote:   "A first approach consists of conveying the time-specific URI of the resource that corresponds with the time of last modification, as given in the <lastmod> element. This is achieved by introducing a single <rs:ln> element with the following attributes: A mandatory rel attribute with a value of memento.",
	Doc: "The memento link names the one version that corresponds with the time of last modification; several memento links leave a Destination to guess which one that is. Other versions are reached through a TimeGate or listed in a TimeMap (the second and third approaches). " +
		"There is no keyword; rsconform reports the second and later memento links of an entry as a warning.",
	Check: func(p *engine.Pass) error {
		relatedReportRepeats(p, "memento", "the first approach of 14.6 gives a single memento link, to the version of the last modification; list other versions in a TimeMap (rel=\"timemap\")")
		return nil
	},
}

// 14.6 (1.1): "The last modified datetime of the resource version identified
// by the time-specific URI is conveyed by the value of the modified
// attribute." The list marks rel and href mandatory, and modified not: a
// hint (info).
var LinkMementoModified = &engine.Rule{
	ID: "RS-LINK-MEMENTO-MODIFIED", Section: "14.6", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Specs:   []engine.Spec{engine.Spec11},
	Title:   "A memento link gives the last-modified datetime of the version in modified",
	Quote:   "The last modified datetime of the resource version identified by the time-specific URI is conveyed by the value of the modified attribute.",
	Doc: "The sentence is one of the attributes 14.6 lists for the memento link, without a keyword, where the items before it say \"A mandatory rel attribute\" and \"A mandatory href attribute\": modified is not mandatory, so a memento link without it is valid, and rsconform reports it as a hint (info). It was added in 1.1: the 1.0 list has no such item, so the rule does not run under --spec 1.0. " +
		"The first approach says the memento corresponds with the time of last modification given in <lastmod>, but Example 29 gives modified=2013-01-02T18:00:00Z, <lastmod>2013-01-03T18:00:00Z and a URI stamped 20130103070000: rsconform does not compare modified with <lastmod>.",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, "memento", func(e *rs.Entry, l *rs.Ln) {
			if !l.Has("modified") {
				p.Reportf(l.Pos, "the memento link to %s has no modified: the last-modified datetime of the version it identifies is conveyed in modified", truncateValue(l.Href))
			}
		})
		return nil
	},
}

// relatedLnAttrsButRelHref are the attributes section 7 describes for the
// <rs:ln> child of <url>, other than rel and href.
var relatedLnAttrsButRelHref = []string{"type", "length", "hash", "modified", "path", "pri", "encoding"}

// 14.6: "The other attributes described for the <rs:ln> child element of
// <url> in Section 7 should not be used as they are meaningless for
// TimeGates."
var LinkTimegateAttrs = &engine.Rule{
	ID: "RS-LINK-TIMEGATE-ATTRS", Section: "14.6", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "TimeGate links (rel=\"timegate\") carry only rel and href",
	Quote:   "The other attributes described for the <rs:ln> child element of <url> in Section 7 should not be used as they are meaningless for TimeGates.",
	Doc:     "The attributes of section 7 other than rel and href are type, length, hash, modified, path, pri and encoding. Extension attributes in other namespaces are not 'described in Section 7' and are allowed. One finding per link, at its first such attribute.",
	Check: func(p *engine.Pass) error {
		RelatedEntryLinks(p, "timegate", func(e *rs.Entry, l *rs.Ln) {
			var names []string
			var first rs.Pos
			for _, a := range relatedLnAttrsButRelHref {
				if l.Has(a) {
					if pos := l.AttrPosition(a); len(names) == 0 || relatedBefore(pos, first) {
						first = pos
					}
					names = append(names, a)
				}
			}
			if len(names) > 0 {
				p.Reportf(first, "the timegate link to %s has %s: only rel and href should be used, the other attributes are meaningless for a TimeGate", truncateValue(l.Href), strings.Join(names, ", "))
			}
		})
		return nil
	},
}

// 14.8: "In this case each aggregator should maintain only the existing via
// link in order to convey information about the origin of the resource."
var LinkViaSingle = &engine.Rule{
	ID: "RS-LINK-VIA-SINGLE", Section: "14.8", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: relatedLinkKinds,
	Title:   "An entry has at most one via link, to the resource at the original Source",
	Quote:   "If a secondary aggregator obtains the changed resource by consuming the Change List of the primary aggregator and republishes its Change List, a chain of aggregations is created. In this case each aggregator should maintain only the existing via link in order to convey information about the origin of the resource.",
	Doc: "An aggregator keeps the via link it inherited instead of adding one to the aggregator it got the resource from (Example 33), so an entry never has more than one via link: the second and later are reported. " +
		"Whether the one via link points to the original Source cannot be told from one document.",
	Check: func(p *engine.Pass) error {
		relatedReportRepeats(p, "via", "an aggregator should maintain only the existing via link, to the resource at the original Source, rather than add one per aggregator in the chain")
		return nil
	},
}

func init() {
	engine.Register(LinkDuplicateMd, LinkAlternateType, LinkPatchType, LinkPatchKind, LinkPatchPath,
		LinkDescribesPair, LinkMementoSingle, LinkMementoModified, LinkTimegateAttrs, LinkViaSingle)
}
