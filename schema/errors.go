package schema

// Error is one problem libxml2 found in a document: a well-formedness error
// of its parser (Parse true) or an XML Schema validation error.
type Error struct {
	Line int
	// Column is 0 when libxml2 does not know it (validation errors carry
	// only the line of the element).
	Column int
	// Element is the local name of the element concerned, when known.
	Element string
	Message string
	Parse   bool
	// Warning is set for libxml2 findings of warning level, which do not
	// make the document invalid.
	Warning bool
}
