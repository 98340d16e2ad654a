package resourcesync

import (
	"math/rand/v2"
	"testing"
)

// TestAllHexIsByteByByte holds allHex, which reads 8 bytes as one word, to
// the byte-by-byte table (hashByte's hbHex): every byte value at every
// place of a word of hex digits, and random words.
func TestAllHexIsByteByByte(t *testing.T) {
	byByte := func(w []byte) bool {
		for _, c := range w {
			if hashByte[c]&hbHex == 0 {
				return false
			}
		}
		return true
	}
	w := []byte("09afAF3c")
	for at := range w {
		for c := range 256 {
			x := append([]byte(nil), w...)
			x[at] = byte(c)
			if got, want := allHex(string(x)), byByte(x); got != want {
				t.Fatalf("allHex(%q) = %v, want %v", x, got, want)
			}
		}
	}
	rnd := rand.New(rand.NewPCG(8, 23))
	alphabet := []byte("0123456789abcdefABCDEFgG/:@`\x00\x7f\x80\xff ")
	for range 50000 {
		x := make([]byte, 8)
		for i := range x {
			if rnd.IntN(2) == 0 {
				x[i] = alphabet[rnd.IntN(len(alphabet))]
			} else {
				x[i] = byte(rnd.IntN(256))
			}
		}
		if got, want := allHex(string(x)), byByte(x); got != want {
			t.Fatalf("allHex(%q) = %v, want %v", x, got, want)
		}
	}
}
