package schema

import (
	"context"

	"github.com/rsconform/rsconform/internal/pieces"
)

// LivePasses is the number of C passes not yet freed.
var LivePasses = livePasses

// ValidateChunked is Validate with the document fed to libxml2 k bytes at
// a time.
func (v *Validator) ValidateChunked(data []byte, k int) ([]Error, error) {
	out := v.pass(context.Background(), nil, pieces.Reader(data, k), uintptr(v.schema.Pointer()), nil)
	return out.errs, out.err
}
