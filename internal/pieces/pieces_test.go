package pieces

import (
	"bytes"
	"io"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestReader(t *testing.T) {
	data := []byte("0123456789")
	for _, n := range []int{0, 1, 3, 10, 64} {
		r := Reader(data, n)
		var got bytes.Buffer
		buf := make([]byte, 32)
		for {
			k, err := r.Read(buf)
			if k > max(n, 1) {
				t.Fatalf("n=%d: a Read gave %d bytes", n, k)
			}
			got.Write(buf[:k])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if got.String() != string(data) {
			t.Fatalf("n=%d: read %q", n, got.String())
		}
	}
}
