package schema

import (
	"context"
	"io"
)

// LivePasses is the number of C passes not yet freed.
var LivePasses = livePasses

// ValidateChunked is Validate with the document fed to libxml2 k bytes at
// a time.
func (v *Validator) ValidateChunked(data []byte, k int) ([]Error, error) {
	out := v.pass(context.Background(), nil, &pieces{data: data, k: k}, uintptr(v.schema.Pointer()), nil)
	return out.errs, out.err
}

// pieces returns data k bytes a Read.
type pieces struct {
	data []byte
	k    int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), p.k)], p.data)
	p.data = p.data[n:]
	return n, nil
}
