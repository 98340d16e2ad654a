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

// TestAllHexWordsIsAllHex holds allHexWords, which decides on a digest's
// words at once, to allHex on each word: digests of 8 to 128 digits with a
// byte of any value at any place.
func TestAllHexWordsIsAllHex(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 8))
	digits := []byte("0123456789abcdefABCDEF")
	for n := 0; n <= 128; n += 8 {
		for range 300 {
			x := make([]byte, n)
			for i := range x {
				x[i] = digits[rnd.IntN(len(digits))]
			}
			if n > 0 && rnd.IntN(4) > 0 {
				x[rnd.IntN(n)] = byte(rnd.IntN(256))
			}
			want := true
			for i := 0; i < n; i += 8 {
				want = want && allHex(string(x[i:i+8]))
			}
			if got := allHexWords(string(x)); got != want {
				t.Fatalf("allHexWords(%q) = %v, want %v", x, got, want)
			}
		}
	}
	if allHexWords("0123456789") {
		t.Fatal("allHexWords of 10 digits: true, want false (not a multiple of 8)")
	}
}
