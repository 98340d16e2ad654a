package schema

import (
	"bytes"
	"encoding/binary"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// A buffer of events cut anywhere, or with any byte changed, is read
// without a panic; cut inside an event, it is refused (errEvents), and cut
// between events, read.
func TestFeedReadsOnlyWhatTheBufferHolds(t *testing.T) {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	str := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	ends := map[int]bool{0: true} // where an event ends
	b = append(b, 'S')
	u32(1)
	u32(1)
	u32(0x80000001) // namespace 1, defined
	str(rs.SitemapNS)
	u32(0x80000001) // name 1, defined
	str("urlset")
	u32(0) // no attributes
	u32(0) // no start tag
	ends[len(b)] = true
	b = append(b, 'S')
	u32(2)
	u32(3)
	u32(1) // namespace 1
	u32(0x80000002)
	str("url")
	u32(2) // two attributes
	u32(0) // in no namespace
	u32(0x80000003)
	str("a")
	str("v")
	u32(0xffffffff) // a namespace written out
	str("urn:x")
	u32(0xffffffff) // a name written out
	str("b")
	str("w")
	str(`<url a="v" x:b="w"`)
	ends[len(b)] = true
	b = append(b, 'T')
	str("text")
	ends[len(b)] = true
	b = append(b, 'E')
	ends[len(b)] = true
	b = append(b, 'E')
	ends[len(b)] = true

	d := newDecoder()
	if err := d.feed(b); err != nil {
		t.Fatalf("whole buffer: %v", err)
	}
	if doc, err := d.document(); err != nil || doc.RootLocal != "urlset" || len(doc.Entries) != 1 {
		t.Fatalf("whole buffer: %+v, %v", doc, err)
	}
	for n := 0; n <= len(b); n++ {
		err := newDecoder().feed(b[:n])
		if ends[n] != (err == nil) {
			t.Errorf("cut after %d bytes: %v", n, err)
		}
	}
	for i := range b {
		for _, v := range []byte{0, 1, 3, 0x7f, 0x80, 0xff, 'S', 'T', 'E'} {
			c := bytes.Clone(b)
			c[i] = v
			_ = newDecoder().feed(c) // must not panic
		}
	}
}
