package resourcesync

import (
	"math/rand/v2"
	"testing"
)

// byByte is the byte-by-byte test of hex digits (hashByte's hbHex).
func byByte(w []byte) bool {
	for _, c := range w {
		if hashByte[c]&hbHex == 0 {
			return false
		}
	}
	return true
}

// TestAllHexIsByteByByte holds allHexWords on one word of 8 bytes (as
// nextHash reads a digest) to the byte-by-byte test: every byte value at
// every place of a word of hex digits, and random words.
func TestAllHexIsByteByByte(t *testing.T) {
	w := []byte("09afAF3c")
	for at := range w {
		for c := range 256 {
			x := append([]byte(nil), w...)
			x[at] = byte(c)
			if got, want := allHexWords(string(x)), byByte(x); got != want {
				t.Fatalf("allHexWords(%q) = %v, want %v", x, got, want)
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
		if got, want := allHexWords(string(x)), byByte(x); got != want {
			t.Fatalf("allHexWords(%q) = %v, want %v", x, got, want)
		}
	}
}

// TestAllHexWordsIsAllHex holds allHexWords, which decides on a digest's
// words at once, to the byte-by-byte test of each word: digests of 8 to 128 digits with a
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
				want = want && byByte(x[i:i+8])
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
