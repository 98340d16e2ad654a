// Package pieces gives tests a reader that hands its data over a few bytes
// a Read, as a network or a pipe may: streaming code must give what it
// gives the data whole.
package pieces

import "io"

// Reader returns a reader of data that returns at most n bytes a Read.
func Reader(data []byte, n int) io.Reader { return &reader{data: data, n: max(n, 1)} }

type reader struct {
	data []byte
	n    int
}

func (r *reader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}
