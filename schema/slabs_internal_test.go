package schema

import (
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// A slab of entries' strings is written over only once every window that
// may have strings in it has been given back, in whatever order windows
// come back; a window not taken (kept in the document) is not numbered.
func TestSlabsReuseOnlyWhatNoWindowReads(t *testing.T) {
	s := newSlabs()
	e := []*rs.Entry{{}, {}, {}}
	same := func(x, y []byte) bool { return &x[:1][0] == &y[:1][0] }
	a := s.next(nil) // strings of window 0
	b := s.next(a)   // a full while window 0 is built
	s.handOver(e[0]) // window 0 out
	s.handOver(e[1])
	s.notTaken(e[1]) // kept in the document: not numbered
	c := s.next(b)   // b full while window 1 is built
	if same(c, a) || same(c, b) {
		t.Fatal("a slab came back while a window with strings in it was out or being built")
	}
	s.handOver(e[1])           // window 1 out
	s.given([]*rs.Entry{e[1]}) // back before window 0
	if d := s.next(c); same(d, a) || same(d, b) || same(d, c) {
		t.Fatal("a slab came back while window 0, which may read it, was out")
	}
	s.given([]*rs.Entry{e[2]}) // never handed over: changes nothing
	s.given([]*rs.Entry{e[0]})
	// Windows 0 and 1 are back: a and b are free; c may hold strings of
	// window 2, being built.
	x, y := s.next(nil), s.next(nil)
	if !(same(x, a) && same(y, b) || same(x, b) && same(y, a)) {
		t.Fatal("the slabs of windows given back were not reused")
	}
	if z := s.next(nil); same(z, c) {
		t.Fatal("the slab of the window being built came back")
	}
}

// With SetSlabsForTest, a slab is poisoned as soon as it is free.
func TestSlabsPoisoned(t *testing.T) {
	defer SetSlabsForTest(16)()
	s := newSlabs()
	e := &rs.Entry{}
	a := append(s.next(nil), "http://x/"...)
	kept := string(a) // a copy: what a rule keeping the string would read
	view := a[:len(kept)]
	s.next(a) // full while window 0 is built
	s.handOver(e)
	if string(view) != kept {
		t.Fatal("poisoned while its window was out")
	}
	s.given([]*rs.Entry{e})
	if string(view) != "#########" {
		t.Fatalf("a free slab reads %q, want it poisoned", view)
	}
}
