package schema

import (
	"encoding/binary"
	"errors"
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
}

func newDecoder() *decoder { return &decoder{b: rs.NewBuilder()} }

// slabSize is the size of the blocks kept strings are copied into; longer
// strings get their own copy.
const slabSize = 32 << 10

// keep returns a copy of b in Go memory, in the current slab.
func (d *decoder) keep(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > slabSize/8:
		return string(b)
	case cap(d.slab)-len(d.slab) < len(b):
		d.slab = make([]byte, 0, slabSize)
	}
	i := len(d.slab)
	d.slab = append(d.slab, b...)
	return unsafe.String(&d.slab[i], len(b))
}

// feed replays the events of buf, which is only read during the call (it
// may be C memory given back afterwards).
func (d *decoder) feed(buf []byte) error {
	i := 0
	u32 := func() (uint32, bool) {
		if i+4 > len(buf) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(buf[i:])
		i += 4
		return v, true
	}
	// raw is the next string, a view of buf.
	raw := func() ([]byte, bool) {
		n, ok := u32()
		if !ok || uint64(i)+uint64(n) > uint64(len(buf)) {
			return nil, false
		}
		b := buf[i : i+int(n)]
		i += int(n)
		return b, true
	}
	str := func() (string, bool) {
		b, ok := raw()
		return d.keep(b), ok
	}
	// numbered is a string of a table (namespace URIs, local names),
	// numbered the first time it is written.
	numbered := func(table *[]string) (string, bool) {
		id, ok := u32()
		switch {
		case !ok:
			return "", false
		case id == 0:
			return "", true
		case id == 0xffffffff:
			return str()
		case id&0x80000000 != 0:
			b, ok := raw()
			if !ok || int(id&0x7fffffff) != len(*table)+1 {
				return "", false
			}
			s := string(b)
			*table = append(*table, s)
			return s, true
		case int(id) <= len(*table):
			return (*table)[id-1], true
		}
		return "", false
	}
	ns := func() (string, bool) { return numbered(&d.table) }
	name := func() (string, bool) { return numbered(&d.names) }
	for i < len(buf) {
		op := buf[i]
		i++
		switch op {
		case 'S':
			line, ok1 := u32()
			col, ok2 := u32()
			space, ok3 := ns()
			local, ok4 := name()
			na, ok5 := u32()
			if !(ok1 && ok2 && ok3 && ok4 && ok5) || int(na) > len(buf) {
				return errEvents
			}
			d.attrs = d.attrs[:0]
			for k := uint32(0); k < na; k++ {
				as, ok1 := ns()
				al, ok2 := name()
				av, ok3 := str()
				if !(ok1 && ok2 && ok3) {
					return errEvents
				}
				d.attrs = append(d.attrs, rs.XMLAttr{Space: as, Local: al, Value: av})
			}
			// The start tag as written, read during the call only.
			nt, ok := u32()
			if !ok || uint64(i)+uint64(nt) > uint64(len(buf)) {
				return errEvents
			}
			tag := buf[i : i+int(nt)]
			i += int(nt)
			d.b.StartElement(space, local, d.attrs, tag, rs.Pos{Line: int(line), Column: int(col)})
		case 'T':
			t, ok := str()
			if !ok {
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
