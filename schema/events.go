package schema

import (
	"encoding/binary"
	"errors"
	"sync"
	"unsafe"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var errEvents = errors.New("schema: malformed event buffer from the C walk")

// decoder replays the element events written by a pass (shim.c) into a
// resourcesync.Builder, chunk by chunk (every chunk holds whole events).
// A chunk is read where the pass wrote it, in C memory, and given back
// once read: what the model keeps of it (names, values, text) is copied
// into slabs of Go memory, and nothing else is (the framing, the start
// tags the Builder reads during the call only). Copying the whole chunk
// instead (C.GoBytes) made the Go heap churn through 256 KiB blocks: twice
// the allocation, and a page fault for every fresh page.
type decoder struct {
	b     *rs.Builder
	table []string // namespace URIs by id - 1 (see rsc_put_ns)
	names []string // local names by id - 1 (see rsc_put_name)
	attrs []rs.XMLAttr
	slab  []byte // strings the model keeps are copied here, never overwritten
	// With windows of entries given back (recycle set), the strings of
	// the entries are copied into eslab instead, and the slabs written
	// over once every entry with a string in them has been given back.
	eslab   []byte
	recycle *slabs
}

// constant returns the last namespace of table, made rs.SitemapNS or
// rs.RSNS themselves when it spells one. The Builder compares namespaces
// with them, and the same pointer ends each comparison at its first check
// (memequal's byte compare was 15M instructions a 50,000-entry list,
// callgrind). Out of line, so that the reading of a table's string, run
// for every name, stays inlined.
//
//go:noinline
func constant(table []string) string {
	s := &table[len(table)-1]
	switch *s {
	case rs.SitemapNS:
		*s = rs.SitemapNS
	case rs.RSNS:
		*s = rs.RSNS
	}
	return *s
}

func newDecoder() *decoder { return &decoder{b: rs.NewBuilder()} }

// slabSize is the size of the blocks kept strings are copied into; longer
// strings get their own copy.
const slabSize = 32 << 10

// keep returns a copy of b in Go memory, in the current slab: the current
// entry's slab when the value goes to an entry whose slabs are recycled.
func (d *decoder) keep(b []byte) string {
	slab := &d.slab
	if d.recycle != nil && d.b.InEntry() {
		slab = &d.eslab
	}
	switch {
	case len(b) == 0:
		return ""
	case len(b) > slabSize/8 || slab == &d.eslab && len(b) > entrySlab:
		return string(b)
	case cap(*slab)-len(*slab) < len(b):
		if slab == &d.eslab {
			d.eslab = d.recycle.next(d.eslab)
		} else {
			d.slab = make([]byte, 0, slabSize)
		}
	}
	i := len(*slab)
	*slab = append(*slab, b...)
	return unsafe.String(&(*slab)[i], len(b))
}

// slabs recycles the slabs that hold the strings of entries, when the
// caller checks the entries window by window and gives each window back
// (OnEntries with an EntryPool): a 14 MB list copies about 10 MB of
// strings, which otherwise became garbage and made the GC run every few
// windows. A slab is written over once every window with a string in it
// has been given back; windows are numbered as they are handed over,
// and a slab is labelled with the window being built when it filled
// (it may hold strings of that window and of earlier ones).
type slabs struct {
	mu      sync.Mutex
	window  int               // windows handed over so far: the number of the one being built
	out     map[*rs.Entry]int // the first entry of each window handed over and not given back, and its number
	retired []retired         // full slabs, oldest first
	free    [][]byte
}

type retired struct {
	b    []byte
	last int // the newest window that may have strings in b
}

// slabsFree is the number of empty slabs kept for reuse at most.
const slabsFree = 8

// entrySlab is the size of the slabs of entries' strings, and poison
// says whether a slab is written over with poisonByte as soon as it is
// free: SetSlabsForTest makes them small and poisoned, so that a rule
// that keeps a string of an entry beyond its window shows.
var (
	entrySlab = slabSize
	poison    bool
)

const poisonByte = '#'

// SetSlabsForTest makes the slabs of entries' strings size bytes, each
// written over as soon as no window reads it (for tests, of this package
// and of the rules: a string an entry's window no longer holds then
// reads '#...'). It returns a function that restores the defaults.
func SetSlabsForTest(size int) (restore func()) {
	entrySlab, poison = size, true
	return func() { entrySlab, poison = slabSize, false }
}

func newSlabs() *slabs { return &slabs{out: map[*rs.Entry]int{}} }

// next retires the full slab cur (nil at first) and returns an empty one,
// reused when one is no longer read.
func (s *slabs) next(cur []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur != nil {
		s.retired = append(s.retired, retired{cur, s.window})
	}
	s.reclaim()
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return make([]byte, 0, entrySlab)
}

// reclaim moves the slabs no window reads any more to the free ones (s.mu
// held).
func (s *slabs) reclaim() {
	oldest := s.window // the oldest window still read
	for _, w := range s.out {
		oldest = min(oldest, w)
	}
	k := 0
	for k < len(s.retired) && s.retired[k].last < oldest {
		if poison {
			b := s.retired[k].b
			for i := range b[:cap(b)] {
				b[:cap(b)][i] = poisonByte
			}
		}
		if len(s.free) < slabsFree {
			s.free = append(s.free, s.retired[k].b[:0])
		}
		k++
	}
	if k > 0 {
		n := copy(s.retired, s.retired[k:])
		clear(s.retired[n:])
		s.retired = s.retired[:n]
	}
}

// handOver numbers the window whose first entry is first, about to be
// handed over.
func (s *slabs) handOver(first *rs.Entry) {
	s.mu.Lock()
	s.out[first] = s.window
	s.window++
	s.mu.Unlock()
}

// notTaken takes back the number handOver gave the window whose first
// entry is first, when the caller left it in the document (for a later
// window) and no window was numbered since.
func (s *slabs) notTaken(first *rs.Entry) {
	s.mu.Lock()
	if w, ok := s.out[first]; ok && w == s.window-1 {
		delete(s.out, first)
		s.window--
	}
	s.mu.Unlock()
}

// given is EntryPool.NotifyPut's hook: the window starting at entries[0]
// is no longer read. A window it never saw handed over (the last one,
// checked once the document is read) changes nothing.
func (s *slabs) given(entries []*rs.Entry) {
	s.mu.Lock()
	delete(s.out, entries[0])
	if poison {
		s.reclaim() // at once: the next window is checked with them poisoned
	}
	s.mu.Unlock()
}

// streamed makes d recycle the slabs of the entries it builds into the
// windows the caller is handed (onEntries) and gives back to pool.
func (d *decoder) streamed(onEntries func(*rs.Document), window int, pool *rs.EntryPool) {
	d.b.Window, d.b.Pool = window, pool
	if onEntries == nil || pool == nil {
		d.b.OnEntries = onEntries
		return
	}
	s := newSlabs()
	d.recycle = s
	pool.NotifyPut(s.given)
	d.b.OnEntries = func(doc *rs.Document) {
		if len(doc.Entries) == 0 {
			onEntries(doc)
			return
		}
		// Numbered before it is handed over: it may be given back
		// before onEntries returns.
		first := doc.Entries[0]
		s.handOver(first)
		onEntries(doc)
		if doc.Entries != nil {
			s.notTaken(first) // kept in the document, for a later window
		}
	}
}

// evReader reads the fields of a buffer of events: a read past its end reads
// nothing and sets bad, which feed tests once per event (not once per
// field); i stays within buf.
type evReader struct {
	buf []byte
	i   int
	bad bool
}

func (r *evReader) u32() uint32 {
	if len(r.buf)-r.i < 4 {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(r.buf[r.i:])
	r.i += 4
	return v
}

// raw is the next string, a view of buf.
func (r *evReader) raw() []byte {
	n := r.u32()
	if uint64(n) > uint64(len(r.buf)-r.i) {
		r.bad = true
		return nil
	}
	b := r.buf[r.i : r.i+int(n)]
	r.i += int(n)
	return b
}

// known is the string table numbers id, if any.
func known(table []string, id uint32) (string, bool) {
	if k := int(id) - 1; uint(k) < uint(len(table)) {
		return table[k], true
	}
	return "", false
}

// ns is the namespace URI that id, just read, stands for when known
// (d.table) does not have it (see numbered), made rs.SitemapNS or rs.RSNS
// when it spells one.
func (d *decoder) ns(r *evReader, id uint32) string {
	n := len(d.table)
	s := d.numbered(r, &d.table, id)
	if len(d.table) != n {
		s = constant(d.table)
	}
	return s
}

// numbered is the string of a table (namespace URIs, local names) that
// id, just read, does not number yet: none (0), one written out
// (0xffffffff), or one numbered from now on (its number with the top bit
// set, then the string).
func (d *decoder) numbered(r *evReader, table *[]string, id uint32) string {
	switch {
	case id == 0:
		return ""
	case id == 0xffffffff:
		return d.keep(r.raw())
	case id&0x80000000 != 0:
		b := r.raw()
		if int(id&0x7fffffff) != len(*table)+1 {
			r.bad = true
			return ""
		}
		s := string(b)
		*table = append(*table, s)
		return s
	}
	r.bad = true
	return ""
}

// feed replays the events of buf, which is only read during the call (it
// may be C memory given back afterwards). Names and namespaces already
// numbered, nearly all of them, are looked up here (known), the rest in a
// call.
func (d *decoder) feed(buf []byte) error {
	r := evReader{buf: buf}
	for r.i < len(r.buf) {
		op := r.buf[r.i]
		r.i++
		switch op {
		case 'S':
			line, col := r.u32(), r.u32()
			id := r.u32()
			space, ok := known(d.table, id)
			if !ok && id != 0 { // 0: in no namespace
				space = d.ns(&r, id)
			}
			id = r.u32()
			local, ok := known(d.names, id)
			if !ok {
				local = d.numbered(&r, &d.names, id)
			}
			na := r.u32()
			if r.bad || uint64(na) > uint64(len(r.buf)) {
				return errEvents
			}
			d.attrs = d.attrs[:0]
			for k := uint32(0); k < na && !r.bad; k++ {
				id := r.u32()
				as, ok := known(d.table, id)
				if !ok && id != 0 {
					as = d.ns(&r, id)
				}
				id = r.u32()
				al, ok := known(d.names, id)
				if !ok {
					al = d.numbered(&r, &d.names, id)
				}
				av := d.keep(r.raw())
				d.attrs = append(d.attrs, rs.XMLAttr{Space: as, Local: al, Value: av})
			}
			// The start tag as written, read during the call only.
			tag := r.raw()
			if r.bad {
				return errEvents
			}
			d.b.StartElement(space, local, d.attrs, tag, rs.Pos{Line: int(line), Column: int(col)})
		case 'T':
			t := d.keep(r.raw())
			if r.bad {
				return errEvents
			}
			d.b.Text(t)
		case 'E':
			d.b.EndElement()
		default:
			return errEvents
		}
	}
	return nil
}

// document is what was built, or an error when nothing was.
func (d *decoder) document() (*rs.Document, error) {
	if d.b.Document() == nil {
		return nil, errEvents
	}
	return d.b.Document(), nil
}
