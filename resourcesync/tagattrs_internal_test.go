package resourcesync

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// tagAttrsByteByByte is tagAttrs as it was before it looked for quotes and
// newlines with bytes.IndexByte: the reference the property test holds it
// to.
func tagAttrsByteByByte(data []byte, pos Pos) []tagAttr {
	var out []tagAttr
	if len(data) == 0 || data[0] != '<' {
		return out
	}
	line, lineStart, col0 := pos.Line, 0, pos.Column
	i := 1
	newline := func() { line, lineStart, col0 = line+1, i+1, 1 }
	for i < len(data) && !xmlSpace(data[i]) && data[i] != '>' && data[i] != '/' {
		i++
	}
	for i < len(data) {
		for i < len(data) && xmlSpace(data[i]) {
			if data[i] == '\n' {
				newline()
			}
			i++
		}
		if i >= len(data) || data[i] == '>' || data[i] == '/' {
			break
		}
		start := i
		p := Pos{Line: line, Column: col0 + i - lineStart}
		for i < len(data) && data[i] != '=' && !xmlSpace(data[i]) {
			i++
		}
		out = append(out, tagAttr{qname: string(data[start:i]), pos: p})
		for i < len(data) && data[i] != '"' && data[i] != '\'' {
			if data[i] == '\n' {
				newline()
			}
			i++
		}
		if i >= len(data) {
			break
		}
		q := data[i]
		i++
		for i < len(data) && data[i] != q {
			if data[i] == '\n' {
				newline()
			}
			i++
		}
		i++
	}
	return out
}

// xmlSpace is XML's white space (S), the reference for tagAttrs' table.
func xmlSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// On random start tags (values with and without newlines, both quotes,
// tags cut anywhere), tagAttrs finds the attributes at the positions the
// byte-by-byte scan gives. 10,000 tags run every statement of tagAttrs
// that 100,000 ran, each at least 1,500 times (go test -covermode=count).
func TestTagAttrsAsByteByByte(t *testing.T) {
	for c := range 256 {
		if isSpace(byte(c)) != xmlSpace(byte(c)) {
			t.Fatalf("isSpace(%q) = %v", byte(c), isSpace(byte(c)))
		}
	}
	r := rand.New(rand.NewPCG(7, 13))
	pieces := []string{"a", "hash", "md5:0f3c", " ", "\n", "\t", "'", `"`, "=", "x\ny", "é", ">", "/"}
	for range 10_000 {
		var b strings.Builder
		b.WriteString("<rs:md")
		for k := r.IntN(5); k >= 0; k-- {
			b.WriteString([]string{" ", "\n", "\t\n "}[r.IntN(3)])
			b.WriteString([]string{"a", "hash", "xmlns:rs", "ex:note"}[r.IntN(4)])
			b.WriteString([]string{"=", " = ", "\n="}[r.IntN(3)])
			q := []string{`"`, "'"}[r.IntN(2)]
			b.WriteString(q)
			for m := r.IntN(6); m > 0; m-- {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			if r.IntN(20) > 0 {
				b.WriteString(q)
			}
		}
		b.WriteString([]string{"/>", ">", ""}[r.IntN(3)])
		tag := []byte(b.String())
		tag = tag[:len(tag)-r.IntN(min(4, len(tag)))]
		pos := Pos{Line: 1 + r.IntN(9), Column: 1 + r.IntN(90)}
		got, want := tagAttrs(tag, pos, nil, ""), tagAttrsByteByByte(tag, pos)
		if len(got) != len(want) {
			t.Fatalf("%q: %d attributes, want %d (%v, want %v)", tag, len(got), len(want), got, want)
		}
		for i := range got {
			if got[i].qname != want[i].qname || got[i].pos != want[i].pos {
				t.Fatalf("%q: attribute %d is %q at %v, want %q at %v", tag, i, got[i].qname, got[i].pos, want[i].qname, want[i].pos)
			}
		}
	}
}

// BenchmarkTagAttrs: a typical <rs:md> of a Resource List.
func BenchmarkTagAttrs(b *testing.B) {
	tag := []byte(`<rs:md hash="md5:73b8a4d223b00f120d9a121b08baccc9 sha-256:ce0d145953ea736df1d115ddfe454fde5ac1957702144691a160e2179da403ee" length="200" type="text/plain"/>`)
	var out [16]tagAttr
	for b.Loop() {
		tagAttrs(tag, Pos{Line: 3, Column: 5}, out[:0], "")
	}
}
