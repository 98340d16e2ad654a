package schema_test

import (
	"context"
	"fmt"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/pieces"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// positions lists every position the model of doc holds: the entries',
// their children's, their <rs:md> and <rs:ln> elements' and attributes'.
func positions(doc *rs.Document) []string {
	var out []string
	add := func(what string, p rs.Pos) { out = append(out, fmt.Sprintf("%s %d:%d", what, p.Line, p.Column)) }
	for i, e := range doc.Entries {
		add(fmt.Sprint("entry ", i), e.Pos)
		add("loc", e.LocPos)
		add("lastmod", e.LastmodPos)
		if e.Md != nil {
			add("md", e.Md.Pos)
			for _, a := range []string{"hash", "length", "type"} {
				add("md@"+a, e.Md.AttrPosition(a))
			}
			for _, x := range e.Md.Extra {
				add("md@"+x.Local, x.Pos)
			}
		}
		for _, l := range e.Links {
			add("ln", l.Pos)
			add("ln@href", l.AttrPosition("href"))
		}
	}
	return out
}

// layouts is a document body of entries entries in the layouts the
// position spec reads (see there).
func layouts(entries int) string {
	var b strings.Builder
	for i := 0; i < entries; i++ {
		pad := strings.Repeat(" ", i%37)
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "%s<url><loc>http://example.com/%d</loc></url>\n", pad, i)
		case 1:
			fmt.Fprintf(&b, "<url>\n\n\n%s<loc>http://example.com/%d</loc>\n\n<lastmod>2013-01-02T13:00:00Z</lastmod></url>", pad, i)
		case 2:
			fmt.Fprintf(&b, "<!--\na\nb\n\nc\n%s\nd-->\r\n<url><loc>http://example.com/%d</loc><rs:md\nhash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6\"\n%s length=\"%d\"\r\n x:y=\"1\" xmlns:x=\"urn:x\"/></url>", pad, i, pad, i)
		case 3:
			fmt.Fprintf(&b, "<url><loc>http://example.com/%d</loc><rs:ln rel=\"alternate\"%s href=\"http://example.com/m%d\"/></url>", i, pad, i)
		case 4:
			fmt.Fprintf(&b, "\n%s\n<url>%s<loc>\nhttp://example.com/%d\n</loc>\t\n</url>\n", strings.Repeat("\n ", i%9), pad, i)
		case 5:
			fmt.Fprintf(&b, "<url><loc>http://example.com/%d</loc><rs:md type=\"text/plain\"%s length=\"1\"/></url>%s", i, pad, strings.Repeat("<!--"+pad+"-->", i%5))
		}
	}
	return b.String()
}

var _ = Describe("The events of a pass (shim.c) against the Go parser", func() {
	It("places every element and attribute where the Go parser does, whatever the layout and the pieces", func() {
		v, err := schema.New()
		Expect(err).NotTo(HaveOccurred())
		// Layouts whose newlines fall anywhere in the 16-byte blocks the
		// newline count reads, several to a block, none for long runs,
		// inside start tags, and around the 4 KiB and 64 KiB pieces pushed.
		data := doc(layouts(1300))
		Expect(len(data)).To(BeNumerically(">", 2*64*1024))
		want, err := rs.ParseBytes(data)
		Expect(err).NotTo(HaveOccurred())
		wantPos := positions(want)
		Expect(wantPos).To(ContainElement(HavePrefix("md@y ")))

		whole, _, err := v.Read(data, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(positions(whole)).To(Equal(wantPos))
		for _, n := range []int{4093} {
			streamedDoc, _, err := v.ReadFrom(context.Background(), iotest.HalfReader(pieces.Reader(data, n)),
				schema.ReadOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(positions(streamedDoc)).To(Equal(wantPos), "read %d bytes at a time", n)
		}
		// Pieces smaller than a tag, a line and a 16-byte block, on a
		// shorter document in the same layouts (every layout 25 times).
		small := doc(layouts(150))
		want, err = rs.ParseBytes(small)
		Expect(err).NotTo(HaveOccurred())
		wantPos = positions(want)
		for _, n := range []int{1, 2, 3, 7, 15, 17, 81, 200} {
			streamedDoc, _, err := v.ReadFrom(context.Background(), pieces.Reader(small, n), schema.ReadOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(positions(streamedDoc)).To(Equal(wantPos), "read %d bytes at a time", n)
		}
	})

	It("hands over names and namespaces beyond what the pass numbers, inside one start tag, as the Go parser reads them", func() {
		v, err := schema.New()
		Expect(err).NotTo(HaveOccurred())
		// shim.c numbers 32 namespaces and 64 local names; the rest are
		// written out in full, in the middle of an event it made room for.
		var b strings.Builder
		for e := 0; e < 3; e++ {
			b.WriteString("<url><loc>http://example.com/many</loc><rs:md length=\"1\"")
			for k := 0; k < 40; k++ {
				fmt.Fprintf(&b, " xmlns:n%d=\"urn:n%d:%d\"", k, k, e)
			}
			for k := 0; k < 90; k++ {
				fmt.Fprintf(&b, "\n n%d:attribute-%d-%d=\"%s\"", k%40, e, k, strings.Repeat("v", k))
			}
			b.WriteString("/></url>\n")
		}
		data := doc(b.String())
		want, err := rs.ParseBytes(data)
		Expect(err).NotTo(HaveOccurred())
		got, _, err := v.Read(data, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Entries).To(HaveLen(3))
		for i, e := range got.Entries {
			Expect(e.Md.Extra).To(HaveLen(90))
			Expect(e.Md.Extra).To(Equal(want.Entries[i].Md.Extra))
		}
		Expect(positions(got)).To(Equal(positions(want)))
	})
})
