// Package frontend gives the rule engine its XML front end: libxml2,
// through package schema (cgo). The engine (rules/engine) reads documents
// only through its FrontEnd interface, so that it, the reporters, the
// Destination harness and the suites build without cgo; the commands, the
// crawler's callers and the tests that validate documents get the front end
// here.
//
// Importing frontend also registers the whole rule catalogue (package
// rules): a Validator built with New checks every rule of rsconform.
package frontend

import (
	"context"
	"errors"
	"io"

	rs "github.com/rsconform/rsconform/resourcesync"
	_ "github.com/rsconform/rsconform/rules" // the catalogue: document and crawl rules
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/schema"
)

// LibXML2 is the engine's FrontEnd over the process-wide schema.Validator.
type LibXML2 struct{ v *schema.Validator }

var _ engine.FrontEnd = LibXML2{}

// New returns the libxml2 front end, loading the embedded XSDs the first
// time (schema.New): an error means they could not be compiled or failed
// their self-test.
func New() (LibXML2, error) {
	v, err := schema.New()
	if err != nil {
		return LibXML2{}, err
	}
	return LibXML2{v}, nil
}

// Must is New for programs and tests that cannot go on without it.
func Must() LibXML2 {
	fe, err := New()
	if err != nil {
		panic(err)
	}
	return fe
}

// ReadFrom is schema.Validator.ReadFrom in the engine's terms.
func (f LibXML2) ReadFrom(ctx context.Context, r io.Reader, opts engine.ReadOptions) (*rs.Document, []engine.SchemaError, error) {
	d, errs, err := f.v.ReadFrom(ctx, r, options(opts))
	return d, schemaErrors(errs), readError(err)
}

// ReadWith is schema.Validator.ReadWith in the engine's terms.
func (f LibXML2) ReadWith(data []byte, opts engine.ReadOptions) (*rs.Document, []engine.SchemaError, error) {
	d, errs, err := f.v.ReadWith(data, options(opts))
	return d, schemaErrors(errs), readError(err)
}

func options(o engine.ReadOptions) schema.ReadOptions {
	return schema.ReadOptions{Validate: o.Validate, OnEntries: o.OnEntries, Window: o.Window, Pool: o.Pool, Inline: o.Inline}
}

func schemaErrors(errs []schema.Error) []engine.SchemaError {
	if errs == nil {
		return nil
	}
	out := make([]engine.SchemaError, len(errs))
	for i, e := range errs {
		out[i] = engine.SchemaError(e)
	}
	return out
}

// readError turns schema's *ReadError into the engine's, keeping every
// other error as it is.
func readError(err error) error {
	var re *schema.ReadError
	if errors.As(err, &re) {
		return &engine.ReadError{Offset: re.Offset, Line: re.Line, Err: re.Err}
	}
	return err
}
