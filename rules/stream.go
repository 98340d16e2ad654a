package rules

import (
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"slices"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Scope is what of a document a rule's Check reads. A document whose rules
// all read the header, or the entries once in order, is checked while it is
// read, and its entries are cleared as soon as every rule has seen them,
// for the next ones to be built in: memory then stays bounded by the rules'
// own state, not by the document (issue 13), and a rule must keep nothing
// of an entry but copies of its values. Every document rule of the
// catalogue reads the header or the entries once (its self-test sees to
// it), but for the rules on the input's facts (Rule.Input), which run at
// the end. A rule of ScopeDocument, which needs the whole model, still
// works: it makes the document be checked as a whole, after it is read, its
// entries kept.
type Scope int

const (
	// ScopeDocument rules may read anything of the document, Doc.Entries
	// included, in any order and as often as they like. No document rule
	// of the catalogue is: one would keep every entry of the documents it
	// applies to in memory.
	ScopeDocument Scope = iota
	// ScopeHeader rules read the root element, its attributes and its
	// children other than the entries (top-level <rs:md>, <rs:ln>,
	// unknown and misplaced elements), never an entry. They run once the
	// document is read.
	ScopeHeader
	// ScopeEntries rules read the header and the entries, the entries
	// only through Pass.Entries (or the helpers built on it:
	// Pass.elements, mds, lns, attrValues) and only once, in document
	// order, keeping whatever state they need. While a document is read,
	// Check starts when its first entries are complete, is suspended
	// between windows of entries, and ends after the last; Pass.Doc is the
	// header as read so far (its <rs:md> is there: the schema puts it
	// before the entries), complete once Pass.Entries has ended.
	ScopeEntries
)

// streamWindow is the number of entries checked at a time while a
// document is read. A few windows are in flight or pooled at a time:
// 256 rather than 512 took 0.9 MB off the peak on a 50,000-entry list,
// and no time on a directory of 8 (1,604 ms of CPU against 1,616, medians
// of 10 alternating runs).
var streamWindow = 256

// errEntriesTwice is the error of a ScopeEntries rule that iterates the
// entries twice: while streaming, the first iteration consumed them.
var errEntriesTwice = errors.New("rule of ScopeEntries iterates the entries twice")

// feed hands the entries of a document being read to one rule's Check,
// window by window.
type feed struct {
	shared  *window
	suspend func() bool // waits for the next window; false when the rule must stop
	used    bool
}

// window is the entries completed since the previous window, and whether
// they are the last ones.
type window struct {
	entries []*rs.Entry
	last    bool
}

// Entries yields the document's entries once, in document order. Rules of
// ScopeEntries read the entries only through it.
func (p *Pass) Entries() iter.Seq[*rs.Entry] {
	if p.feed == nil {
		return slices.Values(p.Doc.Entries)
	}
	f := p.feed
	if f.used {
		panic(errEntriesTwice)
	}
	f.used = true
	return func(yield func(*rs.Entry) bool) {
		for {
			for _, e := range f.shared.entries {
				if !yield(e) {
					return
				}
			}
			if f.shared.last || !f.suspend() {
				return
			}
		}
	}
}

// stream checks a document while the front end reads it: it is the
// OnEntries hook of schema.ReadOptions. The rules of ScopeEntries run as
// coroutines, resumed on every window of entries; once they have seen a
// window, its entries go back to the front end's pool. Nothing is streamed
// before the kind of the document is known (its <rs:md> read): the entries
// are kept until then, and when the <rs:md> never comes, or when a selected
// rule needs the whole model (ScopeDocument: none of the catalogue's does),
// every rule runs on the whole document at the end, as Run does.
type stream struct {
	location string
	cfg      Config

	started bool
	whole   bool // a selected rule needs the whole model: nothing streams
	kind    rs.Kind
	rest    []*Rule // the rules that run at the end
	applied []*Rule
	cos     []*coroutine
	shared  window
	header  *rs.Document // what the rules of ScopeEntries see as Pass.Doc
	diags   []Diagnostic
	errs    []string

	// The rules of ScopeEntries run on their own goroutine, while the
	// front end builds the next window: work carries the windows to it,
	// done is closed when it has ended.
	work chan batch
	done chan struct{}
	// pool takes back each window once every rule has seen it: the
	// rules keep nothing of the model (see Scope), and the front end
	// builds the next entries in them.
	pool *rs.EntryPool
}

// batch is a window of entries with the header as it stood then.
type batch struct {
	entries []*rs.Entry
	header  rs.Document
	last    bool
}

type coroutine struct {
	next func() (struct{}, bool)
	stop func()
	done bool
}

func newStream(location string, cfg Config) *stream {
	return &stream{location: location, cfg: cfg.WithDefaults(), pool: rs.NewEntryPool()}
}

// entries is the OnEntries hook: d.Entries are complete and not yet seen.
func (s *stream) entries(d *rs.Document) {
	if !s.started {
		if d.Md == nil || s.whole {
			return // kind unknown, or every entry needed: keep them for the end
		}
		if s.whole = !s.start(d); s.whole {
			return
		}
	}
	s.send(d, false)
}

// send hands the entries of d not yet seen to the rules, with a copy of the
// header: the front end goes on building d meanwhile.
func (s *stream) send(d *rs.Document, last bool) {
	b := batch{entries: d.Entries, header: *d, last: last}
	b.header.Entries = nil
	d.Entries = nil
	s.work <- b
}

// run resumes the rules on every window until the last, or until work is
// closed (the document will not be checked).
func (s *stream) run() {
	defer close(s.done)
	for b := range s.work {
		*s.header = b.header
		s.feed(b.entries, b.last)
		s.pool.Put(b.entries)
		if b.last {
			return
		}
	}
	s.abort()
}

// start starts the rules of ScopeEntries once the kind of the document is
// known, unless a selected rule needs the whole model (it returns false).
func (s *stream) start(d *rs.Document) bool {
	kind := d.Kind()
	applied := selectRules(kind, s.cfg, true)
	var entries, rest []*Rule
	for _, r := range applied {
		switch {
		case r.Input || r.Scope == ScopeHeader:
			rest = append(rest, r)
		case r.Scope == ScopeEntries:
			entries = append(entries, r)
		default:
			return false
		}
	}
	s.started, s.kind, s.applied, s.rest = true, kind, applied, rest
	// The rules of ScopeEntries see the header as read so far (complete
	// once Pass.Entries has ended), and no entry but through Pass.Entries.
	s.header = &rs.Document{}
	*s.header = *d
	s.header.Entries = nil
	in := &Input{Doc: s.header}
	for _, r := range entries {
		co := &coroutine{}
		p := newPass(r, in, s.cfg, s.location, func(d Diagnostic) { s.diags = append(s.diags, d) })
		p.feed = &feed{shared: &s.shared}
		co.next, co.stop = iter.Pull(func(yield func(struct{}) bool) {
			p.feed.suspend = func() bool { return yield(struct{}{}) }
			if err := safeCheck(r, p); err != nil {
				s.errs = append(s.errs, couldNotRun(r, err))
			}
		})
		s.cos = append(s.cos, co)
	}
	s.work, s.done = make(chan batch, 2), make(chan struct{})
	go s.run()
	return true
}

// feed resumes every rule on a window of entries; with last, the rules run
// to their end.
func (s *stream) feed(entries []*rs.Entry, last bool) {
	s.shared = window{entries: entries, last: last}
	for _, co := range s.cos {
		if co.done {
			continue
		}
		if _, ok := co.next(); !ok || last {
			co.done = true
			co.stop()
		}
	}
}

// abort ends the coroutines of a document that will not be checked (it is
// not well-formed, or could not be read), on the rules' goroutine.
func (s *stream) abort() {
	for _, co := range s.cos {
		if !co.done {
			co.done = true
			co.stop()
		}
	}
}

// finish checks what is left once the document is read and gives the
// result: as Run when nothing was streamed.
func (s *stream) finish(in Input) Result {
	if in.Doc == nil || !s.started {
		if s.started {
			close(s.work) // the rules end where they are
			<-s.done
		}
		return Run(s.location, in, s.cfg)
	}
	s.send(in.Doc, true)
	<-s.done
	res := Result{Location: s.location, Kind: s.kind}
	for _, r := range s.applied {
		res.Applied = append(res.Applied, r.ID)
	}
	diags, errs := runChecks(s.location, &in, s.cfg, s.kind, s.rest)
	return finishResult(res, in, append(s.diags, diags...), append(s.errs, errs...))
}

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
func (p *Pass) hold(pos rs.Pos, related []rs.Pos, format string, args ...any) held {
	return held{pos: pos, related: related, msg: fmt.Sprintf(format, args...)}
}

// release reports a finding held.
func (p *Pass) release(h held) { p.ReportRelated(h.pos, h.related, "%s", h.msg) }
