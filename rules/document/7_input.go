package document

import (
	"strings"

	"github.com/rsconform/rsconform/internal/digits"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Rules about the input as a whole: well-formedness, the XML Schema, and
// the community limits of section 7. They run on facts gathered before the
// document rules (Input), so they report even when nothing could be parsed.

// 7: "the Sitemap (root element <urlset>) and Sitemap index (root element
// <sitemapindex>) document formats introduced by the Sitemap protocol are
// used"; the Sitemap protocol (sitemaps.org/protocol.html, XML tag
// definitions): "The Sitemap protocol format consists of XML tags. All data
// values in a Sitemap must be entity-escaped. The file itself must be UTF-8
// encoded."
var XMLWellFormed = &engine.Rule{
	ID: "RS-XML-WELLFORMED", Section: "7", Level: engine.Must, Input: true,
	Title: "The document is well-formed UTF-8 XML without a DOCTYPE",
	Quote: "The Sitemap protocol format consists of XML tags. All data values in a Sitemap must be entity-escaped. The file itself must be UTF-8 encoded.",
	Doc: "Section 7 uses the document formats of the Sitemap protocol, whose sentence is quoted: a document that is not well-formed XML is not a Sitemap, so it is reported here and its status is 'error': nothing else can be checked. " +
		"The Sitemap protocol requires UTF-8. A DOCTYPE is refused outright: Sitemap documents have none, and refusing it means no entity is ever expanded and no file or URL named by one is ever read (XXE, entity bombs).",
	Check: func(p *engine.Pass) error {
		if se := p.Input.Syntax; se != nil {
			p.Reportf(se.Pos, "%s", se.Msg)
		}
		return nil
	},
}

// 7 and Table 3: the XML Schema of the Sitemap protocol and of the rs terms.
var SchemaValid = &engine.Rule{
	ID: engine.SchemaRuleID, Section: "7", Level: engine.Must, Input: true,
	Title: "The document is valid against the Sitemap and ResourceSync XML Schemas",
	Quote: "A W3C XML Schema (available at http://www.openarchives.org/rs/resourcesync.xsd) is provided to validate the elements introduced by ResourceSync.",
	Doc: "rsconform validates against its own XSDs, written from the Sitemap protocol and Table 3 of the specification and embedded in the binary; no schemaLocation is ever fetched. " +
		"The XSDs check structure (which elements and attributes may appear where); values (datetimes, hashes, lengths, capability names) are left to the rules that cite their sections, so that each problem is reported once, with the section that states it.",
	Check: func(p *engine.Pass) error {
		for _, e := range p.Input.Schema {
			pos := rs.Pos{Line: e.Line, Column: e.Column}
			if pos.Column == 0 && p.Doc != nil {
				pos = findElement(p.Doc, e.Line, e.Element, pos)
			}
			p.Reportf(pos, "%s", strings.TrimSpace(e.Message))
		}
		return nil
	},
}

// findElement gives the column of the element named local that starts on
// line, from the parsed model, since libxml2 reports lines only.
func findElement(d *rs.Document, line int, local string, def rs.Pos) rs.Pos {
	try := func(p rs.Pos, name string) bool {
		if p.Line == line && (local == "" || local == name) {
			def = p
			return true
		}
		return false
	}
	if try(d.Pos, d.RootLocal) {
		return def
	}
	mdln := func(mds []*rs.Md, lns []*rs.Ln) bool {
		for _, m := range mds {
			if m != nil && try(m.Pos, "md") {
				return true
			}
		}
		for _, l := range lns {
			if try(l.Pos, "ln") {
				return true
			}
		}
		return false
	}
	if mdln(append([]*rs.Md{d.Md}, d.ExtraMd...), d.Links) {
		return def
	}
	for _, u := range d.Unknown {
		if try(u.Pos, u.Local) {
			return def
		}
	}
	for _, e := range d.Entries {
		if e.Pos.Line > line {
			break
		}
		name := "url"
		if d.Root == rs.RootSitemapIndex {
			name = "sitemap"
		}
		if try(e.Pos, name) || try(e.LocPos, "loc") || try(e.LastmodPos, "lastmod") ||
			try(e.ChangefreqPos, "changefreq") || try(e.PriorityPos, "priority") {
			return def
		}
		if mdln(append([]*rs.Md{e.Md}, e.ExtraMd...), e.Links) {
			return def
		}
		for _, u := range e.Unknown {
			if try(u.Pos, u.Local) {
				return def
			}
		}
	}
	return def
}

// 7: "At time of publication of this specification, the limit is 50,000
// items per document and a document size of 50 MB."
var LimitSize = &engine.Rule{
	ID: "RS-LIMIT-SIZE", Section: "7", Level: engine.Must, Input: true,
	Title: "The document is not larger than the size limit (50 MB uncompressed)",
	Quote: "The ResourceSync framework follows community-defined limits for when to publish multiple documents of the <urlset> format. At time of publication of this specification, the limit is 50,000 items per document and a document size of 50 MB.",
	Doc:   "50 MB is the Sitemap protocol's 50MB, which sitemaps.org gives as 52,428,800 bytes: the default of --max-size. The limit applies to the uncompressed document (the Sitemap protocol's reading). rsconform stops reading at the limit (--max-size), so a larger document is reported here and not checked further; raise --max-size to check it anyway.",
	Check: func(p *engine.Pass) error {
		if le := p.Input.TooLarge; le != nil {
			p.Reportf(rs.Pos{}, "the %s is larger than the size limit of %s bytes (--max-size; the Sitemap protocol's 50MB is 52,428,800 bytes, section 7); split it and group the parts in an index (rsconform stopped reading at the limit; raise --max-size to check it anyway)", le.What, digits.Grouped(le.Limit))
		}
		return nil
	},
}

var LimitEntries = &engine.Rule{
	ID: "RS-LIMIT-ENTRIES", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "The document has no more than 50,000 entries",
	Quote: LimitSize.Quote,
	Doc:   "The limit is --max-entries (default 50,000, the Sitemap protocol's). A Source with more resources publishes several documents grouped in an index.",
	Check: func(p *engine.Pass) error {
		n := 0
		var over rs.Pos // the first entry over the limit
		for e := range p.Entries() {
			n++
			if n == p.Limits.MaxEntries+1 {
				over = e.Pos
			}
		}
		if n > p.Limits.MaxEntries {
			p.Reportf(over, "the document has %d entries, more than the limit of %d (section 7); entry %d is the first over the limit: split the document and group the parts in an index", n, p.Limits.MaxEntries, p.Limits.MaxEntries+1)
		}
		return nil
	},
}

// 7: the attributes of <rs:md> and <rs:ln> are those of Table 3 and
// communities' own, in their own namespaces; the specification sets no
// number. The limit is rsconform's (rs.MaxAttributes): see Doc.
var LimitAttributes = &engine.Rule{
	ID: "RS-LIMIT-ATTRS", Section: "7", Level: engine.Must, Input: true,
	Title: "No element has more than 256 attributes",
	Quote: "The <rs:md> and <rs:ln> elements are introduced to express metadata and links, respectively. Both are in the ResourceSync XML Namespace and may have attributes. The attributes of these elements defined by ResourceSync are listed in Table 3 and detailed below.",
	Doc: "The specification sets no number, and needs few: Table 3 defines eleven attributes of <rs:md> and seven of <rs:ln>, and the Sitemap elements have none but namespace declarations. " +
		"rsconform refuses an element with more than 256 attributes (namespace declarations included) before its XML parser sees it, at the element's start tag: libxml2 checks an element's attributes for duplicates in time that grows with the square of their number (one element with 200,000 attributes, 2.7 MB, took 34 s), so such an element would stop the tool, not inform a Destination. " +
		"As for the size limit, the document is not checked further and the finding makes it fail: rsconform cannot say it conforms.",
	Check: func(p *engine.Pass) error {
		if ae := p.Input.TooManyAttributes; ae != nil {
			p.Reportf(ae.Pos, "the element <%s> has more than %d attributes (namespace declarations included): rsconform refuses it, and did not check the document further (no ResourceSync element needs more than a few; section 7, Table 3)", ae.Name, ae.Limit)
		}
		return nil
	},
}

func init() { engine.Register(XMLWellFormed, SchemaValid, LimitSize, LimitEntries, LimitAttributes) }
