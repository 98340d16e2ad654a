package engine

import (
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// The fingerprint set must answer as a map from string to first position:
// through the table's growth, on strings many of which repeat, and again
// once released and taken back from the pool.
func TestFingerprintsAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round, n := range []int{0, 1, 900, 30_000, 120_000, 5_000} {
		f := NewFingerprints()
		want := map[string]rs.Pos{}
		for k := range n {
			s := "http://example.com/res" + strconv.Itoa(r.IntN(n*3/4+1))
			if k%7 == 0 {
				s = strconv.Itoa(k % 50) // short strings, and repeats of them
			}
			pos := rs.Pos{Line: k + 1, Column: r.IntN(500) + 1}
			prev, dup := f.Seen(s, pos)
			first, wantDup := want[s]
			if dup != wantDup || (dup && prev != first) {
				t.Fatalf("round %d, string %d (%q): seen gave (%v, %v), want (%v, %v)", round, k, s, prev, dup, first, wantDup)
			}
			if !wantDup {
				want[s] = pos
			}
		}
		if f.at.n != len(want) {
			t.Fatalf("round %d: %d strings recorded, want %d", round, f.at.n, len(want))
		}
		if used := f.at.n * 16; used > len(f.slots)*13 {
			t.Fatalf("round %d: %d strings in %d slots: load beyond 13/16", round, f.at.n, len(f.slots))
		}
		f.Release()
	}
}

// A released set is taken back, grown, by the next document, whatever
// GC cycles ran between (a sync.Pool dropped it), and comes back empty.
func TestFingerprintsKeptAcrossGC(t *testing.T) {
	f := NewFingerprints()
	for i := range 10_000 {
		f.Seen("http://example.com/r"+strconv.Itoa(i), rs.Pos{Line: i + 1, Column: 1})
	}
	grown := len(f.slots)
	f.Release()
	runtime.GC()
	runtime.GC()
	g := NewFingerprints()
	defer g.Release()
	if g != f || len(g.slots) != grown {
		t.Fatalf("a new set of %d slots, want the released one of %d", len(g.slots), grown)
	}
	if len(g.at.spare) == 0 {
		t.Fatalf("the positions' blocks were not kept")
	}
	for i := range 10_000 {
		s := "http://example.com/r" + strconv.Itoa(i*2)
		pos := rs.Pos{Line: 2*i + 7, Column: 3}
		if prev, dup := g.Seen(s, pos); dup {
			t.Fatalf("%s: seen at %v in a set released since", s, prev)
		}
		if prev, dup := g.Seen(s, rs.Pos{Line: 1, Column: 1}); !dup || prev != pos {
			t.Fatalf("%s: got %v, %v; want %v", s, prev, dup, pos)
		}
	}
}

// A position beyond what Pos32 holds comes back saturated, not wrapped.
func TestFingerprintsLargePosition(t *testing.T) {
	f := NewFingerprints()
	defer f.Release()
	f.Seen("x", rs.Pos{Line: 1 << 40, Column: 3})
	got, dup := f.Seen("x", rs.Pos{Line: 1, Column: 1})
	if !dup || got.Line != 1<<31-1 || got.Column != 3 {
		t.Fatalf("got %v, %v", got, dup)
	}
}

// 50,000 distinct URLs, as in a full Resource List.
func fpInputs() []string {
	s := make([]string, 50_000)
	for i := range s {
		s[i] = "http://example.com/resources/r" + strconv.Itoa(i*7919%100_003) + ".html"
	}
	return s
}

func BenchmarkFingerprints(b *testing.B) {
	in := fpInputs()
	for b.Loop() {
		f := NewFingerprints()
		for i, s := range in {
			f.Seen(s, rs.Pos{Line: i, Column: 3})
		}
		f.Release()
	}
}

// The Go map the table replaced, for comparison in the same run.
func BenchmarkFingerprintsGoMap(b *testing.B) {
	in := fpInputs()
	s1, s2 := maphash.MakeSeed(), maphash.MakeSeed()
	m := make(map[[2]uint64]Pos32, 1024)
	for b.Loop() {
		for i, s := range in {
			k := [2]uint64{maphash.String(s1, s), maphash.String(s2, s)}
			if _, ok := m[k]; ok {
				continue
			}
			m[k] = NewPos32(rs.Pos{Line: i, Column: 3})
		}
		clear(m)
	}
}
