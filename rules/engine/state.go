package engine

import (
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// State of the rules of ScopeEntries, kept across the entries of a large
// document.

// Fingerprints is a set of strings, each with the position where it was
// first seen, kept by a 95-bit fingerprint (a 64-bit maphash and 31 bits
// of a second one) in an open-addressed table: 16 bytes a string whatever
// its length, plus its position, and no view of the parser's buffers.
// Two different strings share a fingerprint with a probability of about
// n²/2^96 (3·10^-20 for 50,000 strings). A lookup and the insert that
// follows it are one probe sequence, in one or two cache lines: the Go
// map it replaces took two probes, each a cache miss once the set
// outgrew the cache (8 % of the CPU of validating a directory).
type Fingerprints struct {
	s1, s2 maphash.Seed
	slots  []fingerprint // len a power of two
	at     Blocks[Pos32] // where the i-th string recorded was seen
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

func NewFingerprints() *Fingerprints {
	free := &fingerprintFree
	free.Lock()
	defer free.Unlock()
	if n := len(free.sets); n > 0 {
		// The largest: the rule with most strings to record gets the
		// table it needs, whichever rules released theirs last.
		k := 0
		for i, f := range free.sets {
			if len(f.slots) > len(free.sets[k].slots) {
				k = i
			}
		}
		f := free.sets[k]
		free.sets[k] = free.sets[n-1]
		free.sets[n-1] = nil
		free.sets = free.sets[:n-1]
		return f
	}
	return &Fingerprints{s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), slots: make([]fingerprint, fpMinSize)}
}

// fingerprintFree keeps up to fpFreeMax sets of documents checked,
// emptied, for the next ones: a set of 50,000 fingerprints grown again for
// each document of a directory took twice the time of filling it grown,
// and left 5 MB of garbage a document. (A sync.Pool loses what it holds
// at every GC cycle, several a 50,000-entry list at GOGC 50: most
// documents of a directory grew their set again.)
var fingerprintFree struct {
	sync.Mutex
	sets []*Fingerprints
}

const fpFreeMax = 8

// Release empties f and keeps it for the next set, unless it grew beyond
// fpPoolMax slots or fpFreeMax sets are kept already.
func (f *Fingerprints) Release() {
	if len(f.slots) > fpPoolMax {
		return
	}
	clear(f.slots)
	f.at.reset()
	free := &fingerprintFree
	free.Lock()
	defer free.Unlock()
	if len(free.sets) < fpFreeMax {
		free.sets = append(free.sets, f)
	}
}

// Seen records s at pos, or returns where it was first seen.
func (f *Fingerprints) Seen(s string, pos rs.Pos) (rs.Pos, bool) {
	a := maphash.String(f.s1, s)
	b := uint32(maphash.String(f.s2, s)>>32) | 1
	mask := uint64(len(f.slots) - 1)
	for j := a & mask; ; j = (j + 1) & mask {
		sl := &f.slots[j]
		if sl.b == 0 {
			break
		}
		if sl.a == a && sl.b == b {
			return f.at.Get(int(sl.i)).Pos(), true
		}
	}
	if (f.at.n+1)*16 > len(f.slots)*13 { // a load of 13/16 at most
		f.grow()
	}
	f.put(fingerprint{a: a, b: b, i: uint32(f.at.n)})
	f.at.Add(NewPos32(pos))
	return rs.Pos{}, false
}

// put places fp in the first empty slot of its probe sequence.
func (f *Fingerprints) put(fp fingerprint) {
	mask := uint64(len(f.slots) - 1)
	j := fp.a & mask
	for f.slots[j].b != 0 {
		j = (j + 1) & mask
	}
	f.slots[j] = fp
}

// grow doubles the table.
func (f *Fingerprints) grow() {
	old := f.slots
	f.slots = make([]fingerprint, 2*len(old))
	for _, fp := range old {
		if fp.b != 0 {
			f.put(fp)
		}
	}
}

// Pos32 is a position kept for each entry of a document (8 bytes instead
// of 16): lines and columns beyond 2^31-1, in a document of more than 2 GB,
// are kept as 2^31-1.
type Pos32 struct{ line, col int32 }

func NewPos32(p rs.Pos) Pos32 {
	return Pos32{int32(min(p.Line, math.MaxInt32)), int32(min(p.Column, math.MaxInt32))}
}

func (p Pos32) Pos() rs.Pos { return rs.Pos{Line: int(p.line), Column: int(p.col)} }

// Blocks is an append-only list kept in blocks of blockSize values: a rule
// that notes something of each of 50,000 entries never copies what it
// noted (as growing one slice does).
const blockSize = 4096

type Blocks[T any] struct {
	full  [][]T
	last  []T
	n     int
	spare [][]T // blocks emptied by reset, for Add to fill again
}

func (b *Blocks[T]) Add(v T) {
	if len(b.last) == cap(b.last) {
		if b.last != nil {
			b.full = append(b.full, b.last)
		}
		if k := len(b.spare); k > 0 {
			b.last, b.spare[k-1] = b.spare[k-1][:0], nil
			b.spare = b.spare[:k-1]
		} else {
			b.last = make([]T, 0, blockSize)
		}
	}
	b.last = append(b.last, v)
	b.n++
}

// reset empties b, keeping its blocks for the values added next (only
// values added since are read: Get and All stop at what was added).
func (b *Blocks[T]) reset() {
	if b.last != nil {
		b.full = append(b.full, b.last)
	}
	b.spare = append(b.spare, b.full...)
	clear(b.full)
	b.full, b.last, b.n = b.full[:0], nil, 0
}

// Len is the number of values added.
func (b *Blocks[T]) Len() int { return b.n }

// Get returns the i-th value added (0 <= i < n).
func (b *Blocks[T]) Get(i int) T {
	if k := i / blockSize; k < len(b.full) {
		return b.full[k][i%blockSize]
	}
	return b.last[i%blockSize]
}

// All yields the values in the order they were added.
func (b *Blocks[T]) All() iter.Seq[T] {
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

// Held is a finding written but not yet reported, for a rule of
// ScopeEntries that knows only later whether it stands (when it depends on
// the entry being the last, say): it holds its message, not the model.
type Held struct {
	pos     rs.Pos
	related []rs.Pos
	msg     string
}

// Hold writes a finding as ReportRelated would, without reporting it.
func (p *Pass) Hold(pos rs.Pos, related []rs.Pos, format string, args ...any) Held {
	return Held{pos: pos, related: related, msg: fmt.Sprintf(format, args...)}
}

// Release reports a finding held.
func (p *Pass) Release(h Held) { p.ReportRelated(h.pos, h.related, "%s", h.msg) }
