package resourcesync

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// attrPositionsEagerly is how the Builder placed every attribute before it
// kept the start tag and placed them when asked (attrInfo.position): the
// tag read byte by byte while the element is built, each attribute looked
// for after the previous one's. The reference TestAttrPosIsEager holds
// the lazy positions to.
func attrPositionsEagerly(attrs []XMLAttr, pos Pos, tag []byte) []Pos {
	found := tagAttrsByteByByte(tag, pos)
	out := make([]Pos, len(attrs))
	next := 0
	for k, a := range attrs {
		out[k] = pos
		for i := next; i < len(found); i++ {
			if n := found[i]; (a.Space == "" && n.qname == a.Local) || (a.Space != "" && prefixedAs(n.qname, a.Local)) {
				next, out[k] = i+1, n.pos
				break
			}
		}
	}
	return out
}

// On random <rs:md> and <rs:ln> start tags (ResourceSync attributes, others
// with and without a prefix, namespace declarations, values over lines,
// both quotes), built into elements taken from the pool and given back
// between tags, every attribute stands where the eager reading placed it.
func TestAttrPosIsEager(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 29))
	values := []string{"", "md5:0f3c", "x\ny", "a b", "é", "2025-01-01T00:00:00Z", "'", `"`}
	pool := NewEntryPool()
	b := NewBuilder()
	b.Pool = pool
	// The last <rs:ln> built, with its attributes and positions: it must
	// keep them while later elements are built (keepTag writes no tag over
	// another).
	var lastLn *Ln
	var lastAttrs []XMLAttr
	var lastWant string
	for n := 0; n < 1_000; n++ {
		isLn := r.IntN(4) == 0
		names := mdAttrs
		if isLn {
			names = lnAttrs
		}
		var tag strings.Builder
		var attrs []XMLAttr
		tag.WriteString([]string{"<rs:md", "<rs:ln"}[map[bool]int{false: 0, true: 1}[isLn]])
		used := map[string]bool{}
		for k := r.IntN(6); k >= 0; k-- {
			tag.WriteString([]string{" ", "\n", "\t\n  "}[r.IntN(3)])
			var qname string
			var a XMLAttr
			switch r.IntN(5) {
			case 0:
				qname = "ex:" + names[r.IntN(len(names))] // a ResourceSync name in another namespace
				a = XMLAttr{Space: "http://example.org/ns/", Local: strings.TrimPrefix(qname, "ex:")}
			case 1:
				qname = "xmlns:ex" // a declaration: not an attribute
			case 2:
				qname = "other"
				a = XMLAttr{Local: qname}
			default:
				qname = names[r.IntN(len(names))]
				a = XMLAttr{Local: qname}
			}
			if used[qname] {
				continue
			}
			used[qname] = true
			v := values[r.IntN(len(values))]
			q := `"`
			if strings.Contains(v, q) {
				q = "'"
			}
			tag.WriteString(qname + []string{"=", " = ", "\n="}[r.IntN(3)] + q + v + q)
			if qname != "xmlns:ex" {
				a.Value = v
				attrs = append(attrs, a)
			}
		}
		tag.WriteString([]string{"/>", ">"}[r.IntN(2)])
		pos := Pos{Line: 1 + r.IntN(9), Column: 1 + r.IntN(90)}
		raw := []byte(tag.String())
		want := attrPositionsEagerly(attrs, pos, raw)
		var got []Pos
		if isLn {
			l := b.ln(attrs, pos, raw)
			clear(raw) // the front end writes over the tag once the element is built
			got = placed(attrs, l.Extra, func(name string) Pos { return l.AttrPosition(name) }, lnIndex)
			lastLn, lastAttrs, lastWant = l, attrs, fmt.Sprint(want)
		} else {
			if len(b.spare.mds) == 0 {
				b.spare = pool.get()
			}
			m := b.md(attrs, pos, raw)
			clear(raw)
			got = placed(attrs, m.Extra, func(name string) Pos { return m.AttrPosition(name) }, mdIndex)
			pool.Put([]*Entry{{Md: m}})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q at %v: positions %v, want %v", tag.String(), pos, got, want)
		}
		if lastLn != nil {
			if got := fmt.Sprint(placed(lastAttrs, lastLn.Extra, lastLn.AttrPosition, lnIndex)); got != lastWant {
				t.Fatalf("an <rs:ln> built before %q: positions %v, want %v", tag.String(), got, lastWant)
			}
		}
	}
}

// placed is where an element built from attrs places each: the
// ResourceSync ones by position, the others by their Extra's Pos.
func placed(attrs []XMLAttr, extra []Attr, position func(string) Pos, index func(string) int) []Pos {
	var out []Pos
	for _, a := range attrs {
		if a.Space == "" && index(a.Local) >= 0 {
			out = append(out, position(a.Local))
			continue
		}
		out = append(out, extra[0].Pos)
		extra = extra[1:]
	}
	return out
}

// A document of many entries (an <rs:ln> in some, then an <rs:md>) read
// entry by entry, each given back to the pool 200 entries later
// (more entries than a chunk holds the tags of): every element of a window
// still out places its attributes where the eager reading does (the chunk
// its tag is in is not used again before), and the pool uses its chunks
// again instead of keeping them all.
func TestTagChunksComeBackOnlyWhenGivenBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 31))
	pool := NewEntryPool()
	b := NewBuilder()
	b.Pool, b.Window = pool, 1
	want := map[any][]Pos{} // by element, for the entries out
	attrsOf := map[any][]XMLAttr{}
	var out [][]*Entry
	check := func(w []*Entry) {
		for _, e := range w {
			got := placed(attrsOf[e.Md], e.Md.Extra, e.Md.AttrPosition, mdIndex)
			if fmt.Sprint(got) != fmt.Sprint(want[e.Md]) {
				t.Fatalf("entry at %v: positions %v, want %v", e.Pos, got, want[e.Md])
			}
			for _, l := range e.Links {
				got := placed(attrsOf[l], l.Extra, l.AttrPosition, lnIndex)
				if fmt.Sprint(got) != fmt.Sprint(want[l]) {
					t.Fatalf("<rs:ln> at %v: positions %v, want %v", l.Pos, got, want[l])
				}
			}
		}
	}
	b.OnEntries = func(d *Document) {
		out = append(out, d.Entries)
		d.Entries = nil
		if len(out) > 200 { // given back 200 windows late
			check(out[0])
			pool.Put(out[0])
			out = out[1:]
		}
	}
	b.StartElement(SitemapNS, "urlset", nil, nil, Pos{Line: 1, Column: 1})
	line := 2
	for range 1500 {
		b.StartElement(SitemapNS, "url", nil, nil, Pos{Line: line, Column: 3})
		if r.IntN(3) == 0 {
			v := strings.Repeat("y", r.IntN(200))
			raw := []byte(`<rs:ln rel="alternate"` + "\n" + `  href="` + v + `"/>`)
			attrs := []XMLAttr{{Local: "rel", Value: "alternate"}, {Local: "href", Value: v}}
			pos := Pos{Line: line, Column: 8}
			w := attrPositionsEagerly(attrs, pos, raw)
			b.StartElement(RSNS, "ln", attrs, raw, pos)
			clear(raw)
			l := b.entry.Links[len(b.entry.Links)-1]
			want[l], attrsOf[l] = w, attrs
			b.EndElement()
		}
		var tag strings.Builder
		tag.WriteString("<rs:md")
		var attrs []XMLAttr
		for _, name := range []string{"hash", "length", "type", "change", "datetime"} {
			if r.IntN(2) == 0 {
				continue
			}
			v := strings.Repeat("x", r.IntN(120))
			tag.WriteString([]string{" ", "\n  "}[r.IntN(2)] + name + `="` + v + `"`)
			attrs = append(attrs, XMLAttr{Local: name, Value: v})
		}
		tag.WriteString("/>")
		pos := Pos{Line: line + 1, Column: 5}
		raw := []byte(tag.String())
		w := attrPositionsEagerly(attrs, pos, raw)
		b.StartElement(RSNS, "md", attrs, raw, pos)
		clear(raw)
		md := b.entry.Md
		want[md], attrsOf[md] = w, attrs
		b.EndElement()
		b.EndElement()
		line += 3
	}
	for _, w := range out {
		check(w)
		pool.Put(w)
	}
	if n := len(pool.retired) + len(pool.tagSpares); n > tagSparesMax+4 {
		t.Fatalf("the pool holds %d chunks of tags, want them used again", n)
	}
}
