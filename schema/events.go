package schema

import (
	"encoding/binary"
	"errors"
	"unsafe"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var errEvents = errors.New("schema: malformed event buffer from the C walk")

// build replays the element events written by rsc_walk (shim.c) into a
// resourcesync.Builder. Strings point into buf (one copy of the events,
// no copy per string).
func build(data, buf []byte) (*rs.Document, error) {
	b := rs.NewBuilder(data)
	i := 0
	u32 := func() (uint32, bool) {
		if i+4 > len(buf) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(buf[i:])
		i += 4
		return v, true
	}
	str := func() (string, bool) {
		n, ok := u32()
		if !ok || i+int(n) > len(buf) {
			return "", false
		}
		s := ""
		if n > 0 {
			s = unsafe.String(&buf[i], int(n))
		}
		i += int(n)
		return s, true
	}
	var attrs []rs.XMLAttr
	for i < len(buf) {
		op := buf[i]
		i++
		switch op {
		case 'S':
			off, ok1 := u32()
			space, ok2 := str()
			local, ok3 := str()
			na, ok4 := u32()
			if !(ok1 && ok2 && ok3 && ok4) || int(na) > len(buf) {
				return nil, errEvents
			}
			attrs = attrs[:0]
			for k := uint32(0); k < na; k++ {
				as, ok1 := str()
				al, ok2 := str()
				av, ok3 := str()
				if !(ok1 && ok2 && ok3) {
					return nil, errEvents
				}
				attrs = append(attrs, rs.XMLAttr{Space: as, Local: al, Value: av})
			}
			offset := int(off)
			if off == 0xffffffff {
				offset = -1
			}
			b.StartElement(space, local, attrs, offset)
		case 'T':
			t, ok := str()
			if !ok {
				return nil, errEvents
			}
			b.Text(t)
		case 'E':
			b.EndElement()
		default:
			return nil, errEvents
		}
	}
	if b.Document() == nil {
		return nil, errEvents
	}
	return b.Document(), nil
}
