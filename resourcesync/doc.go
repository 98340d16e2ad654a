// Package resourcesync is a reference reader and writer for ResourceSync
// (ANSI/NISO Z39.99-2017) documents: Source Descriptions, Capability Lists,
// Resource Lists, Change Lists, Resource Dumps, Change Dumps, their
// manifests, indexes and archives.
//
// Parse reads a document into a typed Document that keeps the line and
// column of every element and attribute, and never rejects a document for
// breaking ResourceSync rules: it only fails on input that is not
// well-formed XML, on a DOCTYPE (refused so that no entity is ever
// expanded), and on input larger than the configured limits. Judging
// conformance is the job of the rules package.
//
// Write serialises a Document; Parse(Write(d)) equals d, positions aside.
//
// Parse is this package's public reader, for Go programs that read
// ResourceSync documents without cgo, and the tests' reference for the
// model (Parse(Write(d)) round trips). rsconform itself reads documents
// only through its libxml2 front end (package schema), which builds the same
// Document with Builder and words syntax errors itself; the two share
// CheckEncoding and DoctypeError, which refuse what Sitemap documents may
// not be before any XML parser sees it.
//
// The package is pure Go and does no I/O beyond io.Reader and io.Writer.
package resourcesync

// XML namespaces of ResourceSync documents (section 4 of the specification).
const (
	SitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"
	RSNS      = "http://www.openarchives.org/rs/terms/"
)
