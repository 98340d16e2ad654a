package engine

import (
	"context"
	"fmt"
	"io"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// FrontEnd reads a document into the model, deciding whether it is
// well-formed, and validates it against the ResourceSync XSDs when asked.
// The engine has no XML parser of its own (it builds without cgo): the one
// front end, libxml2 (package schema), is given to it by package
// rules/frontend. A not-well-formed document gives a *rs.SyntaxError; a
// document that could not be read to its end, a *ReadError.
type FrontEnd interface {
	// ReadFrom streams the document r holds (uncompressed, within the
	// size limit), calling opts.OnEntries on the way.
	ReadFrom(ctx context.Context, r io.Reader, opts ReadOptions) (*rs.Document, []SchemaError, error)
	// ReadWith is ReadFrom for a document held in memory.
	ReadWith(data []byte, opts ReadOptions) (*rs.Document, []SchemaError, error)
}

// ReadOptions says how a FrontEnd reads a document.
type ReadOptions struct {
	// Validate runs the XSD validation in the same pass.
	Validate bool
	// OnEntries, when set, is called on the document being built each
	// time Window more of its entries are complete, while the rest is
	// still read (see resourcesync.Builder.OnEntries): the engine checks
	// them and may drop them. It runs on one goroutine, never concurrently
	// with itself. When the document turns out not to be well-formed, or
	// cannot be read to its end, what it was shown is to be discarded.
	OnEntries func(*rs.Document)
	Window    int
	// Pool, with OnEntries, is where the engine puts back the entries it
	// is done with, for the next ones to be built in (see
	// resourcesync.Builder.Pool).
	Pool *rs.EntryPool
	// Inline reads the document on the calling goroutine, without
	// goroutines of the front end's own working at once (see
	// Validator.Inline). A Read that blocks then holds a cancel back until
	// it returns.
	Inline bool
}

// SchemaError is one problem the front end found in a document: an XML
// Schema validation error (RS-XSD reports them), or a well-formedness
// error of its parser (Parse true).
type SchemaError struct {
	Line int
	// Column is 0 when the front end does not know it (libxml2's
	// validation errors carry only the line of the element).
	Column int
	// Element is the local name of the element concerned, when known.
	Element string
	Message string
	Parse   bool
	// Warning is set for findings of warning level, which do not make
	// the document invalid.
	Warning bool
}

// ReadError reports that reading a document failed after Offset bytes, on
// line Line. Err is the reader's error (a *rs.LimitError when the document
// exceeds the size limit the reader enforces, see rs.DocumentReader).
type ReadError struct {
	Offset int64
	Line   int
	Err    error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("after %d bytes (line %d): %v", e.Offset, e.Line, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }
