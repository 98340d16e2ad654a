package document

import (
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Document structure: root element, top-level <rs:md>, capability, and
// which root a capability may use.

// 6.1: "All capabilities in the ResourceSync framework are implemented on the
// basis of the <urlset> and <sitemapindex> Sitemap document formats."
var KindRoot = &engine.Rule{
	ID: "RS-KIND-ROOT", Section: "6.1", Level: engine.Must, Scope: engine.ScopeHeader,
	Title: "The root element is <urlset> or <sitemapindex> in the Sitemap namespace",
	Quote: "All capabilities in the ResourceSync framework are implemented on the basis of the <urlset> and <sitemapindex> Sitemap document formats.",
	Check: func(p *engine.Pass) error {
		d := p.Doc
		if d.Root != rs.RootUnknown {
			return nil
		}
		switch {
		case (d.RootLocal == "urlset" || d.RootLocal == "sitemapindex") && d.RootSpace == "":
			p.Reportf(d.Pos, "<%s> has no namespace: declare xmlns=%q", d.RootLocal, rs.SitemapNS)
		case d.RootLocal == "urlset" || d.RootLocal == "sitemapindex":
			p.Reportf(d.Pos, "<%s> is in namespace %q, not the Sitemap namespace %q", d.RootLocal, d.RootSpace, rs.SitemapNS)
		default:
			p.Reportf(d.Pos, "the root element is <%s>: a ResourceSync document is a <urlset> or a <sitemapindex>", d.RootLocal)
		}
		return nil
	},
}

// 7: "<rs:md> – In this context, the element conveys information about the
// document itself. Its use is mandatory"
var MdTopRequired = &engine.Rule{
	ID: "RS-MD-TOP", Section: "7", Level: engine.Must, Scope: engine.ScopeHeader,
	Title: "The root element has an <rs:md> child",
	Quote: "<rs:md> – In this context, the element conveys information about the document itself. Its use is mandatory and it may have the following attributes",
	Doc:   "Without a top-level <rs:md> nothing says which capability the document implements: to a Destination it is a plain Sitemap.",
	Check: func(p *engine.Pass) error {
		d := p.Doc
		if d.Md == nil && d.Root != rs.RootUnknown {
			p.Reportf(d.Pos, "%s has no <rs:md> child: a ResourceSync document must say what it is with <rs:md capability=\"...\"/> (a plain Sitemap is not a ResourceSync document)", rootName(d))
		}
		return nil
	},
}

// 7: "capability – This attribute is mandatory in all ResourceSync
// documents. ... Defined values are resourcelist, changelist, resourcedump,
// changedump, resourcedump-manifest, changedump-manifest, capabilitylist,
// and description."
var KindCapability = &engine.Rule{
	ID: "RS-KIND-CAPABILITY", Section: "7", Level: engine.Must, Scope: engine.ScopeHeader,
	Title: "The top-level <rs:md> has a capability attribute with a defined value",
	Quote: "capability – This attribute is mandatory in all ResourceSync documents. The value of the attribute conveys the nature of the document, e.g., whether the document is a Resource List, a Change List, a Manifest, etc. Defined values are resourcelist, changelist, resourcedump, changedump, resourcedump-manifest, changedump-manifest, capabilitylist, and description.",
	Doc: "The Archives draft adds resourcelist-archive, resourcedump-archive, changelist-archive and changedump-archive; rsconform accepts them. Values are case-sensitive: 'resourceList' (as in the walkthrough's Example 1) is not a defined value. " +
		"Other specifications may define further capabilities for Capability List entries (section 6.1); a document's own capability must still be one rsconform knows, or nothing about it can be checked.",
	Check: func(p *engine.Pass) error {
		d := p.Doc
		if d.Md == nil {
			return nil
		}
		v, ok := d.Md.Get("capability")
		switch {
		case !ok:
			p.Reportf(d.Md.Pos, "<rs:md> has no capability attribute: it is mandatory in every ResourceSync document")
		case !rs.Capability(v).Known():
			msg := "capability %q is not a defined value (%s)"
			if c := caseFold(v); c != "" {
				msg += "; values are case-sensitive: did you mean %q?"
				p.Reportf(d.Md.AttrPosition("capability"), msg, v, capabilityList(), c)
			} else {
				p.Reportf(d.Md.AttrPosition("capability"), msg, v, capabilityList())
			}
		}
		return nil
	},
}

func capabilityList() string {
	var s []string
	for _, c := range rs.Capabilities {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

func caseFold(v string) string {
	for _, c := range rs.Capabilities {
		if strings.EqualFold(string(c), v) && string(c) != v {
			return string(c)
		}
	}
	return ""
}

// 6.1: "If multiple documents are required, each is expressed using the
// <urlset> document format, and a <sitemapindex> document is introduced as
// an index"; 9: "no <sitemapindex> document structure is necessary and
// Sources should not generate such structures"; 11.2 and 13.2: the manifest
// "must be named manifest.xml and must be located at the top level of the ZIP package".
var KindIndex = &engine.Rule{
	ID: "RS-KIND-INDEX", Section: "6.1", Level: engine.Must, Scope: engine.ScopeHeader,
	Applies: []rs.Kind{rs.ResourceDumpManifestIndex, rs.ChangeDumpManifestIndex},
	Title:   "Manifests are <urlset> documents, never indexes",
	Quote:   "Each ZIP package referred to from a Resource Dump must contain a Resource Dump Manifest file that describes the package's constituent bitstreams. The file must be named manifest.xml and must be located at the top level of the ZIP package. The Resource Dump Manifest is based on the <urlset> format.",
	Doc:     "A manifest describes the bitstreams of one package, in the one file manifest.xml, so a <sitemapindex> manifest cannot be followed. A Capability List index is discouraged, not forbidden: see RS-CAPLIST-NO-INDEX.",
	Check: func(p *engine.Pass) error {
		p.Reportf(p.Doc.Pos, "a %s is based on the <urlset> format; a <sitemapindex> with capability %q is not defined", p.Kind.Base().Title(), p.Doc.Capability())
		return nil
	},
}

var CapabilityListNoIndex = &engine.Rule{
	ID: "RS-CAPLIST-NO-INDEX", Section: "9", Level: engine.Should, Scope: engine.ScopeHeader,
	Applies: []rs.Kind{rs.CapabilityListIndex},
	Title:   "A Capability List is not split into a <sitemapindex>",
	Quote:   "ResourceSync defines only a small number of capabilities, and enumerating those does not approach the limits of a single Capability List. Thus, no <sitemapindex> document structure is necessary and Sources should not generate such structures.",
	Check: func(p *engine.Pass) error {
		p.Reportf(p.Doc.Pos, "a Capability List should be a single <urlset>, not a <sitemapindex>")
		return nil
	},
}

func init() {
	engine.Register(KindRoot, MdTopRequired, KindCapability, KindIndex, CapabilityListNoIndex)
}
