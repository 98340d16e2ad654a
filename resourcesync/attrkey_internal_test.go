package resourcesync

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAttrIsGet holds Attr and AttrPos (an attribute named once) to Get and
// AttrPosition, and both to what was written: <rs:md> and <rs:ln> elements
// built from random attributes (present, present but empty, absent), read
// by every name ResourceSync defines and by names it does not.
func TestAttrIsGet(t *testing.T) {
	names := append(slices.Clone(mdAttrs), lnAttrs...)
	names = append(names, "", "x", "Hash", "hashes", "xmlns", "rs:hash")
	rnd := rand.New(rand.NewPCG(7, 8))
	for round := range 2000 {
		values := map[string]string{}
		var attrs []XMLAttr
		for _, n := range names[:len(mdAttrs)+len(lnAttrs)] {
			if _, dup := values[n]; dup || rnd.IntN(2) == 0 {
				continue
			}
			v := fmt.Sprintf("v%d", rnd.IntN(100))
			if rnd.IntN(4) == 0 {
				v = ""
			}
			values[n] = v
			attrs = append(attrs, XMLAttr{Local: n, Value: v})
		}
		b := NewBuilder()
		pos := Pos{Line: round + 1, Column: 1}
		m, l := b.md(attrs, pos, nil), b.ln(attrs, pos, nil)
		mdFields := map[string]*string{"capability": &m.Capability, "at": &m.At, "completed": &m.Completed, "from": &m.From, "until": &m.Until,
			"change": &m.Change, "datetime": &m.Datetime, "hash": &m.Hash, "length": &m.Length, "type": &m.Type, "path": &m.Path, "encoding": &m.Encoding}
		lnFields := map[string]*string{"rel": &l.Rel, "href": &l.Href, "type": &l.Type, "length": &l.Length, "hash": &l.Hash,
			"modified": &l.Modified, "path": &l.Path, "pri": &l.Pri, "encoding": &l.Encoding}
		for _, n := range names {
			want, present := values[n]
			wantMd, wantLn := present && mdFields[n] != nil, present && lnFields[n] != nil
			v, ok := m.Attr(MdAttrOf(n))
			if gv, gok := m.Get(n); v != gv || ok != gok || ok != wantMd || (ok && v != want) || (ok && *mdFields[n] != want) {
				t.Fatalf("<rs:md> %q: Attr %q %v, Get %q %v, want %q %v", n, v, ok, gv, gok, want, wantMd)
			}
			if inSet := m.AttrSet()&MdAttrOf(n).Set() != 0; inSet != ok {
				t.Fatalf("<rs:md> %q: in AttrSet %v, Attr finds it %v", n, inSet, ok)
			}
			// Built by hand, with no attribute recorded: the non-empty fields.
			hm, hl := *m, *l
			hm.attrs, hl.attrs = attrInfo{}, attrInfo{}
			_, hmOK := hm.Attr(MdAttrOf(n))
			_, hlOK := hl.Attr(LnAttrOf(n))
			if hm.AttrSet()&MdAttrOf(n).Set() != 0 != hmOK || hl.AttrSet()&LnAttrOf(n).Set() != 0 != hlOK {
				t.Fatalf("%q: AttrSet of elements built by hand differs from Attr", n)
			}
			if m.AttrPos(MdAttrOf(n)) != m.AttrPosition(n) {
				t.Fatalf("<rs:md> %q: AttrPos %v, AttrPosition %v", n, m.AttrPos(MdAttrOf(n)), m.AttrPosition(n))
			}
			v, ok = l.Attr(LnAttrOf(n))
			if gv, gok := l.Get(n); v != gv || ok != gok || ok != wantLn || (ok && v != want) || (ok && *lnFields[n] != want) {
				t.Fatalf("<rs:ln> %q: Attr %q %v, Get %q %v, want %q %v", n, v, ok, gv, gok, want, wantLn)
			}
			if inSet := l.AttrSet()&LnAttrOf(n).Set() != 0; inSet != ok {
				t.Fatalf("<rs:ln> %q: in AttrSet %v, Attr finds it %v", n, inSet, ok)
			}
			if l.AttrPos(LnAttrOf(n)) != l.AttrPosition(n) {
				t.Fatalf("<rs:ln> %q: AttrPos differs", n)
			}
		}
	}
	var nilMd *Md
	if v, ok := nilMd.Attr(MdAttrOf("hash")); v != "" || ok {
		t.Fatal("a nil <rs:md> has a hash")
	}
}
