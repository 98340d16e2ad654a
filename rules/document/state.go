package document

import (
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// State of the rules of ScopeEntries, kept across the entries of a large
// document.

// fingerprints is a set of strings, each with the position where it was
// first seen, kept by a 95-bit fingerprint (a 64-bit maphash and 31 bits
// of a second one) in an open-addressed table: 16 bytes a string whatever
// its length, plus its position, and no view of the parser's buffers.
// Two different strings share a fingerprint with a probability of about
// n²/2^96 (3·10^-20 for 50,000 strings). A lookup and the insert that
// follows it are one probe sequence, in one or two cache lines: the Go
// map it replaces took two probes, each a cache miss once the set
// outgrew the cache (8 % of the CPU of validating a directory).
type fingerprints struct {
	s1, s2 maphash.Seed
	slots  []fingerprint // len a power of two
	at     blocks[pos32] // where the i-th string recorded was seen
}

// fingerprint is a slot of the table; b == 0 marks an empty one.
type fingerprint struct {
	a    uint64 // the first hash, whose low bits place the slot
	b, i uint32 // the second hash's top 31 bits with the low bit set; index in at
}

const (
	fpMinSize = 1024
	// fpPoolMax: a set grown beyond a large document's worth (more than
	// 200,000 strings) is not pooled, since its table would stay that large.
	fpPoolMax = 1 << 18
)

func newFingerprints() *fingerprints {
	if f, ok := fingerprintPool.Get().(*fingerprints); ok {
		return f
	}
	return &fingerprints{s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), slots: make([]fingerprint, fpMinSize)}
}

// fingerprintPool keeps the sets of documents checked, emptied, for the
// next ones: a set of 50,000 fingerprints grown again for each document of
// a directory took twice the time of filling it grown, and left 5 MB of
// garbage a document.
var fingerprintPool sync.Pool

// release empties f and pools it, unless it grew beyond fpPoolMax slots.
func (f *fingerprints) release() {
	if len(f.slots) > fpPoolMax {
		return
	}
	clear(f.slots)
	f.at = blocks[pos32]{}
	fingerprintPool.Put(f)
}

// seen records s at pos, or returns where it was first seen.
func (f *fingerprints) seen(s string, pos rs.Pos) (rs.Pos, bool) {
	a := maphash.String(f.s1, s)
	b := uint32(maphash.String(f.s2, s)>>32) | 1
	mask := uint64(len(f.slots) - 1)
	for j := a & mask; ; j = (j + 1) & mask {
		sl := &f.slots[j]
		if sl.b == 0 {
			break
		}
		if sl.a == a && sl.b == b {
			return f.at.get(int(sl.i)).pos(), true
		}
	}
	if (f.at.n+1)*16 > len(f.slots)*13 { // a load of 13/16 at most
		f.grow()
	}
	f.put(fingerprint{a: a, b: b, i: uint32(f.at.n)})
	f.at.add(newPos32(pos))
	return rs.Pos{}, false
}

// put places fp in the first empty slot of its probe sequence.
func (f *fingerprints) put(fp fingerprint) {
	mask := uint64(len(f.slots) - 1)
	j := fp.a & mask
	for f.slots[j].b != 0 {
		j = (j + 1) & mask
	}
	f.slots[j] = fp
}

// grow doubles the table.
func (f *fingerprints) grow() {
	old := f.slots
	f.slots = make([]fingerprint, 2*len(old))
	for _, fp := range old {
		if fp.b != 0 {
			f.put(fp)
		}
	}
}

// pos32 is a position kept for each entry of a document (8 bytes instead
// of 16): lines and columns beyond 2^31-1, in a document of more than 2 GB,
// are kept as 2^31-1.
type pos32 struct{ line, col int32 }

func newPos32(p rs.Pos) pos32 {
	return pos32{int32(min(p.Line, math.MaxInt32)), int32(min(p.Column, math.MaxInt32))}
}

func (p pos32) pos() rs.Pos { return rs.Pos{Line: int(p.line), Column: int(p.col)} }

// blocks is an append-only list kept in blocks of blockSize values: a rule
// that notes something of each of 50,000 entries never copies what it
// noted (as growing one slice does).
const blockSize = 4096

type blocks[T any] struct {
	full [][]T
	last []T
	n    int
}

func (b *blocks[T]) add(v T) {
	if len(b.last) == cap(b.last) {
		if b.last != nil {
			b.full = append(b.full, b.last)
		}
		b.last = make([]T, 0, blockSize)
	}
	b.last = append(b.last, v)
	b.n++
}

// get returns the i-th value added (0 <= i < n).
func (b *blocks[T]) get(i int) T {
	if k := i / blockSize; k < len(b.full) {
		return b.full[k][i%blockSize]
	}
	return b.last[i%blockSize]
}

// all yields the values in the order they were added.
func (b *blocks[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, blk := range append(b.full, b.last) {
			for _, v := range blk {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// held is a finding written but not yet reported, for a rule of
// ScopeEntries that knows only later whether it stands (when it depends on
// the entry being the last, say): it holds its message, not the model.
type held struct {
	pos     rs.Pos
	related []rs.Pos
	msg     string
}

// hold writes a finding as ReportRelated would, without reporting it.
func hold(p *engine.Pass, pos rs.Pos, related []rs.Pos, format string, args ...any) held {
	return held{pos: pos, related: related, msg: fmt.Sprintf(format, args...)}
}

// release reports a finding held.
func release(p *engine.Pass, h held) { p.ReportRelated(h.pos, h.related, "%s", h.msg) }
