package resourcesync

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// attrs is a start tag of n attributes, namespace declarations first.
func attrs(name string, n int) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&b, "\n  xmlns:p%d='urn:%d'", i, i)
		} else {
			fmt.Fprintf(&b, ` p%d:a="v>%d"`, i-1, i)
		}
	}
	return b.String() + "/>"
}

func TestAttrCounter(t *testing.T) {
	const head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset a=\"1\" b='2'>\n"
	for _, tc := range []struct {
		name string
		doc  string
		at   Pos // zero: not refused
	}{
		{"at the limit", head + "<url>" + attrs("rs:md", 256) + "</url></urlset>", Pos{}},
		{"over the limit", head + "<url>" + attrs("rs:md", 257) + "</url></urlset>", Pos{Line: 3, Column: 6}},
		{"far over the limit, on one line", head + " " + strings.ReplaceAll(attrs("x", 5000), "\n", " "), Pos{Line: 3, Column: 2}},
		{"quotes in a comment, a CDATA section, a PI, text and an end tag",
			head + "<!-- " + strings.Repeat(`"a" 'b' -> `, 300) + "-->" +
				"<loc><![CDATA[" + strings.Repeat(`x="1" ]] ]>`, 300) + "]]></loc>" +
				"<?pi " + strings.Repeat(`a="1" ? >`, 300) + "?>" +
				strings.Repeat(`"text' `, 300) + "</url " + strings.Repeat(`"'`, 300) + ">" +
				"<!DOCTYPE x SYSTEM " + strings.Repeat(`"a"`, 300) + ">" +
				"</urlset>", Pos{}},
		{"after a comment full of quotes", head + "<!--" + strings.Repeat(`"`, 1000) + "-->\n\n  " + attrs("rs:ln", 300), Pos{Line: 5, Column: 3}},
	} {
		// Whole, then in pieces of every size up to 7 bytes, and of 4 KiB.
		checkRefused(t, tc.name, tc.doc, tc.at, len(tc.doc), 1, 2, 3, 5, 7, 4096)
	}
}

// checkRefused scans doc in pieces of each size and checks that it is
// refused at at (zero: not refused), and that a refusal is said again.
func checkRefused(t *testing.T, name, doc string, at Pos, sizes ...int) {
	t.Helper()
	for _, size := range sizes {
		c := AttrCounter{Limit: MaxAttributes}
		var err *AttrLimitError
		for i := 0; i < len(doc) && err == nil; i += size {
			err = c.Scan([]byte(doc[i:min(i+size, len(doc))]))
		}
		switch {
		case at == Pos{} && err != nil:
			t.Errorf("%s, pieces of %d: refused: %v", name, size, err)
		case at != Pos{} && err == nil:
			t.Errorf("%s, pieces of %d: not refused", name, size)
		case at != Pos{} && err.Pos != at:
			t.Errorf("%s, pieces of %d: refused at %v, want %v", name, size, err.Pos, at)
		}
		if err != nil && c.Scan([]byte("<a/>")) == nil {
			t.Errorf("%s, pieces of %d: the refusal is forgotten", name, size)
		}
	}
}

// TestAttrCounterSkips checks what nextMarkup skips: '<' inside comments,
// CDATA sections and processing instructions before start tags of many
// attributes, tags packed as tight as they can be, around the limit.
func TestAttrCounterSkips(t *testing.T) {
	tight := func(n int) string { return "<t " + strings.Repeat(`""`, n) + "/>" }
	short := strings.Repeat("<a x='1'>t</a>\n", 400)
	for _, tc := range []struct {
		name string
		doc  string
		at   Pos
	}{
		{"a comment, a CDATA section and a PI holding a start tag over the limit",
			"<r>" + short + "<!-- " + attrs("c", 300) + " -->" + short + "<![CDATA[" + attrs("d", 300) + "]]>" +
				short + "<?pi " + attrs("p", 300) + "?>" + short + "</r>", Pos{}},
		{"values of two bytes, at the limit", "<r>" + short + tight(256) + short + "</r>", Pos{}},
		{"values of two bytes, over the limit", "<r>" + short + tight(257) + short + "</r>", Pos{Line: 401, Column: 1}},
		{"over the limit after a comment holding '<'", "<r>" + short + "<!-- <a <b -->" + tight(257), Pos{Line: 401, Column: 15}},
		{"over the limit at the end", "<r>" + short + tight(300), Pos{Line: 401, Column: 1}},
	} {
		checkRefused(t, tc.name, tc.doc, tc.at, len(tc.doc), 1, 7, 100, 1000, 4096)
	}
}

// TestAttrCounterSkipsAsExact compares the counter with the one that reads
// every '<' on random well-formed documents cut in random pieces: both
// refuse the same element, at the same place, or neither does. 100 rounds
// reach every statement of attrlimit.go that 300 reached (go test
// -covermode=count: each at least 20 times), at a third of the CPU.
func TestAttrCounterSkipsAsExact(t *testing.T) {
	const rounds = 100
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	refused := 0
	for round := range rounds {
		var b strings.Builder
		b.WriteString(pick("", "<?xml version=\"1.0\"?>\n") + "<r>")
		for range rng.IntN(60) {
			switch rng.IntN(7) {
			case 0:
				b.WriteString(pick("text", " \"q' > ", "\n", strings.Repeat("x", rng.IntN(2000))))
			case 1:
				b.WriteString("<!--" + pick("", "<", "<a ", attrs("c", rng.IntN(400)), strings.Repeat(" ", rng.IntN(3000))) + "-->")
			case 2:
				b.WriteString("<![CDATA[" + pick("<", attrs("d", rng.IntN(400)), "]]", "]>") + "]]>")
			case 3:
				b.WriteString("<?pi " + pick("<", attrs("p", rng.IntN(400)), "?", "<?") + "?>")
			case 4:
				b.WriteString("</e" + pick("", " ", strings.Repeat(" ", rng.IntN(2000))) + ">")
			default:
				n := rng.IntN(5)
				if rng.IntN(6) == 0 {
					n = 250 + rng.IntN(12)
				}
				tag := attrs(pick("e", "rs:md", "x"), n)
				if rng.IntN(3) == 0 {
					tag = "<t " + strings.Repeat(pick(`""`, `''`, ` a="1"`, ` b='>>>'`), n) + pick("/>", ">")
				}
				b.WriteString(tag)
			}
		}
		b.WriteString("</r>")
		doc := []byte(b.String())
		var got, want *AttrLimitError
		fast, exact := AttrCounter{Limit: MaxAttributes}, AttrCounter{Limit: MaxAttributes, exact: true}
		for i := 0; i < len(doc) && got == nil; {
			k := min(len(doc)-i, 1+rng.IntN(pick1(rng, 10, 600, 70000)))
			got = fast.Scan(doc[i : i+k])
			i += k
		}
		for i := 0; i < len(doc) && want == nil; i += 4096 {
			want = exact.Scan(doc[i:min(i+4096, len(doc))])
		}
		if want != nil {
			refused++
		}
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Fatalf("round %d: skipping gives %v, reading every '<' gives %v", round, got, want)
		}
	}
	if refused == 0 || refused == rounds {
		t.Fatalf("%d documents of %d refused: the test does not tell", refused, rounds)
	}
}

func pick1(rng *rand.Rand, n ...int) int { return n[rng.IntN(len(n))] }

// lastIndexLT, which reads 8 bytes at a time, finds the '<'
// bytes.LastIndexByte finds: slices of 0 to 80 bytes of every value, with
// '<' at random places or none, and every place of a lone '<'.
func TestLastIndexLTIsLastIndexByte(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 7))
	check := func(b []byte) {
		if got, want := lastIndexLT(b), bytes.LastIndexByte(b, '<'); got != want {
			t.Fatalf("lastIndexLT(%q) = %d, want %d", b, got, want)
		}
	}
	for n := 0; n <= 80; n++ {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.IntN(256))
				if r.IntN(40) == 0 {
					b[i] = '<'
				}
			}
			check(b)
		}
		for at := range n {
			b := bytes.Repeat([]byte{'='}, n)
			b[at] = '<'
			check(b)
		}
	}
}
