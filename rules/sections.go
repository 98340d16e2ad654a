package rules

// SectionInfo is a numbered section of the specification (or of the
// Archives draft) and, when no single-document or cross-document rule can
// check it, why.
type SectionInfo struct {
	ID    string // "12.1", "A", "Archives 3"
	Title string
	// Note explains a section without rules, or what else checks it.
	Note string
}

// Sections lists the numbered sections of ResourceSync 1.1 from 6 to 14,
// Appendix A, and sections 2 to 6 of the Archives draft. Every rule's
// Section is one of these IDs (a test checks it), and docs/rules.md maps
// each to its rules.
var Sections = []SectionInfo{
	{ID: "4", Title: "Namespace Prefix Bindings"},
	{ID: "5.2", Title: "Destination Perspective", Note: "Destination behaviour is tested against the mock Source: rsconform test-destination and the Destination suite."},
	{ID: "6.1", Title: "Structure"},
	{ID: "6.2", Title: "Navigation"},
	{ID: "6.3", Title: "Discovery", Note: "Discovery is checked by crawling a site (rsconform crawl)."},
	{ID: "6.3.1", Title: "Discovery: Overview", Note: "Informative: introduces 6.3.2 to 6.3.4."},
	{ID: "6.3.2", Title: "ResourceSync Well-Known URI", Note: "Checked by crawling: whether /.well-known/resourcesync serves the Source Description."},
	{ID: "6.3.3", Title: "Links", Note: "HTML and HTTP Link discovery are checked by crawling from a page: a site root, an HTML page, or a resource of any type with a Link header."},
	{ID: "6.3.4", Title: "robots.txt", Note: "robots.txt Sitemap directives are checked by crawling a site root."},
	{ID: "7", Title: "Sitemap Document Formats"},
	{ID: "8", Title: "Describing the Source"},
	{ID: "9", Title: "Advertising Capabilities"},
	{ID: "10", Title: "Describing Resources", Note: "Introduces 10.1 and 10.2."},
	{ID: "10.1", Title: "Resource List"},
	{ID: "10.2", Title: "Resource List Index"},
	{ID: "11", Title: "Packaging Resources", Note: "Introduces 11.1 and 11.2."},
	{ID: "11.1", Title: "Resource Dump"},
	{ID: "11.2", Title: "Resource Dump Manifest"},
	{ID: "12", Title: "Describing Changes", Note: "Introduces 12.1 and 12.2."},
	{ID: "12.1", Title: "Change List"},
	{ID: "12.2", Title: "Change List Index"},
	{ID: "13", Title: "Packaging Changes", Note: "Introduces 13.1 and 13.2."},
	{ID: "13.1", Title: "Change Dump"},
	{ID: "13.2", Title: "Change Dump Manifest"},
	{ID: "14", Title: "Linking to Related Resources", Note: "Introduces 14.1 to 14.8."},
	{ID: "14.1", Title: "Overview", Note: "The rel and href of every link are checked by the section 7 rules (RS-LINK-REL, RS-LINK-HREF)."},
	{ID: "14.2", Title: "Mirrored Content"},
	{ID: "14.3", Title: "Alternate Representations"},
	{ID: "14.4", Title: "Patching Content"},
	{ID: "14.5", Title: "Resources and Metadata about Resources"},
	{ID: "14.6", Title: "Prior Versions of Resources"},
	{ID: "14.7", Title: "Collection Membership", Note: "A collection link needs only rel and href, checked by the section 7 rules (RS-LINK-REL, RS-LINK-HREF)."},
	{ID: "14.8", Title: "Republishing Resources"},
	{ID: "A", Title: "Appendix A: Time Attribute Requirements"},
	{ID: "Archives 1.2", Title: "Archives: Structure"},
	{ID: "Archives 2", Title: "Archives: Advertising the Archive capabilities", Note: "Introduces 2.1 and 2.2."},
	{ID: "Archives 2.1", Title: "Archives: Archives in a Capability List", Note: "The archive capability values are accepted by RS-KIND-CAPABILITY and the Capability List rules of section 9."},
	{ID: "Archives 2.2", Title: "Archives: Linking to Archives"},
	{ID: "Archives 3", Title: "Resource List Archives"},
	{ID: "Archives 3.1", Title: "Resource List Archive Index"},
	{ID: "Archives 4", Title: "Resource Dump Archives"},
	{ID: "Archives 5", Title: "Change List Archives"},
	{ID: "Archives 6", Title: "Change Dump Archives"},
}

// Section returns the section with this ID, or nil.
func Section(id string) *SectionInfo {
	for i := range Sections {
		if Sections[i].ID == id {
			return &Sections[i]
		}
	}
	return nil
}
