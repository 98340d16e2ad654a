package resourcesync_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
)

const changeList = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:ex="http://example.org/ns/">
  <rs:ln rel="up"
    href="http://example.com/dataset1/capabilitylist.xml" />
  <rs:md capability="changelist"
    from="2013-01-03T00:00:00Z"/>
  <url>
    <loc>http://example.com/res1.html</loc>
    <lastmod>2000-01-01T01:01:00Z</lastmod>
    <rs:md change="created" datetime="2013-01-03T11:00:00Z" ex:note="x"/>
    <rs:ln rel="duplicate" href="http://mirror.example.com/res1.html" pri="1"/>
  </url>
  <url>
    <loc> http://example.com/res2.pdf </loc>
    <rs:md change="updated" at=""/>
  </url>
</urlset>
`

var _ = Describe("Parse", func() {
	It("places every attribute of a tag with 50,000 of them (in linear time)", func() {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="urn:x"><url><loc>a</loc><rs:md length="1"`)
		for i := 0; i < 50000; i++ {
			fmt.Fprintf(&b, ` x:a%d="v"`, i)
		}
		b.WriteString(` type="t"/></url></urlset>`)
		data := b.String()
		d, err := rs.ParseBytes([]byte(data))
		Expect(err).NotTo(HaveOccurred())
		md := d.Entries[0].Md
		Expect(md.Extra).To(HaveLen(50000))
		last := md.Extra[49999]
		Expect(last.Local).To(Equal("a49999"))
		Expect(last.Pos).To(Equal(rs.Pos{Line: 1, Column: strings.Index(data, "x:a49999=") + 1}))
		Expect(md.AttrPosition("type")).To(Equal(rs.Pos{Line: 1, Column: strings.Index(data, ` type="t"`) + 2}))
	})

	It("reads every part of a document with its position", func() {
		d, err := rs.ParseBytes([]byte(changeList))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Root).To(Equal(rs.RootURLSet))
		Expect(d.Kind()).To(Equal(rs.ChangeList))
		Expect(d.Pos).To(Equal(rs.Pos{Line: 2, Column: 1}))
		Expect(d.Md.Pos).To(Equal(rs.Pos{Line: 6, Column: 3}))
		Expect(d.Md.AttrPosition("from")).To(Equal(rs.Pos{Line: 7, Column: 5}))
		Expect(d.Link("up").Href).To(Equal("http://example.com/dataset1/capabilitylist.xml"))
		Expect(d.Link("up").AttrPosition("href")).To(Equal(rs.Pos{Line: 5, Column: 5}))
		Expect(d.Entries).To(HaveLen(2))
		e := d.Entries[0]
		Expect(e.Pos).To(Equal(rs.Pos{Line: 8, Column: 3}))
		Expect(e.Loc).To(Equal("http://example.com/res1.html"))
		Expect(e.LocPos).To(Equal(rs.Pos{Line: 9, Column: 5}))
		Expect(e.Lastmod).To(Equal("2000-01-01T01:01:00Z"))
		Expect(e.Md.Change).To(Equal("created"))
		Expect(e.Md.AttrPosition("datetime")).To(Equal(rs.Pos{Line: 11, Column: 29}))
		Expect(e.Md.Extra).To(ConsistOf(rs.Attr{Space: "http://example.org/ns/", Local: "note", Value: "x", Pos: rs.Pos{Line: 11, Column: 61}}))
		Expect(e.Links[0].Pri).To(Equal("1"))
		Expect(d.Entries[1].Loc).To(Equal("http://example.com/res2.pdf"), "white space around <loc> is trimmed")
		Expect(d.Entries[1].Md.Has("at")).To(BeTrue(), "an empty attribute is present")
		Expect(d.Entries[1].Md.Has("datetime")).To(BeFalse())
	})

	It("counts lines past 65,535", func() {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
		// Entries on lines 2-4, then blank lines (counted the same, parsed
		// at a fraction of the cost under -race), then entries from line
		// 69,997 on.
		for i := 0; i < 70000; i++ {
			if i < 3 || i >= 69995 {
				b.WriteString("<url><loc>http://example.com/r</loc></url>")
			}
			b.WriteString("\n")
		}
		b.WriteString("</urlset>\n")
		d, err := rs.ParseBytes([]byte(b.String()))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(8))
		Expect(d.Entries[2].Pos.Line).To(Equal(4))
		Expect(d.Entries[7].Pos.Line).To(Equal(70001))
	})

	It("keeps repeated and misplaced elements for the rules", func() {
		d, err := rs.ParseBytes([]byte(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist"/><rs:md capability="changelist"/>
<url><loc>a</loc><loc>b</loc><rs:md/><rs:md/><foo/></url>
</sitemapindex>`))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Kind()).To(Equal(rs.ResourceListIndex))
		Expect(d.ExtraMd).To(HaveLen(1))
		Expect(d.MisplacedEntries).To(HaveLen(1))
		Expect(d.Entries[0].Loc).To(Equal("a"))
		Expect(d.Entries[0].DuplicateChildren).To(HaveLen(1))
		Expect(d.Entries[0].ExtraMd).To(HaveLen(1))
		Expect(d.Entries[0].Unknown).To(HaveLen(1))
	})

	It("words an invisible character in markup once, for both parsers (InvisibleInMarkup)", func() {
		Expect(rs.InvisibleInMarkup(' ', "detail")).To(BeEmpty(), "XML white space")
		Expect(rs.InvisibleInMarkup('é', "detail")).To(BeEmpty())
		for _, r := range []rune{0x00A0, 0x200B, 0xFEFF, 0x2009, 0x3000} {
			msg := rs.InvisibleInMarkup(r, "libxml2: Couldn't find end of Start Tag loc")
			Expect(msg).To(HavePrefix(rs.InvisibleRune(r) + " is not XML whitespace"))
			Expect(msg).To(HaveSuffix("replace it with a space or remove it (libxml2: Couldn't find end of Start Tag loc)"))
			Expect(msg).NotTo(ContainSubstring(string(r)), "named, not printed")
		}
	})

	DescribeTable("places a not well-formed document's error where the problem starts",
		func(in string, line, col int, msg string) {
			_, err := rs.ParseBytes([]byte(in))
			var se *rs.SyntaxError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect([]int{se.Pos.Line, se.Pos.Column}).To(Equal([]int{line, col}))
			Expect(se.Msg).To(ContainSubstring(msg))
			Expect(se.Msg).NotTo(ContainSubstring("\u00a0"), "the invisible character is named, not printed")
		},
		Entry("a mismatched end tag, at its </", "<urlset>\n  <url><loc>x</loc></urlx>\n</urlset>", 2, 20, "element <url> closed by </urlx>"),
		Entry("a mismatched end tag after text", "<urlset><url>text</urlx></urlset>", 1, 18, "closed by </urlx>"),
		Entry("U+00A0 in a tag", "<urlset>\n  <url>\u00a0<loc\u00a0>x</loc></url>\n</urlset>", 2, 14, "U+00A0 (NO-BREAK SPACE) is not XML whitespace"),
		Entry("U+00A0 between attributes", "<urlset\u00a0xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>", 1, 8, "U+00A0 (NO-BREAK SPACE)"),
		Entry("an HTML page", "<!DOCTYPE html>\n<html><head><title>x</title></head><body><br></body></html>", 1, 1, "this is an HTML page"),
		Entry("U+200B in a name", "<urlset><u\u200brl/></urlset>", 1, 11, "U+200B (ZERO WIDTH SPACE)"),
	)

	DescribeTable("refuses bad input with a located error",
		func(in string, line int, msg string) {
			_, err := rs.ParseBytes([]byte(in))
			var se *rs.SyntaxError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Pos.Line).To(Equal(line))
			Expect(se.Msg).To(ContainSubstring(msg))
		},
		Entry("empty", "", 1, "empty"),
		Entry("white space only", "  \n ", 1, "empty"),
		Entry("truncated", "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url>", 2, "unexpected end"),
		Entry("binary", "\x00\x01\x02\xff\xfe", 1, ""),
		Entry("DOCTYPE", "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n<x>&e;</x>", 2, "DOCTYPE"),
		Entry("undeclared entity", "<urlset>&lol;</urlset>", 1, "entity"),
		Entry("Latin-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset/>", 1, "UTF-8"),
		Entry("UTF-16 BOM", "\xff\xfe<\x00u\x00", 1, "UTF-16"),
		Entry("UTF-16 without a BOM", "<\x00?\x00x\x00m\x00l\x00", 1, "UTF-16"),
		Entry("UTF-16BE without a BOM", "\x00<\x00?\x00x\x00m\x00l", 1, "UTF-16"),
		Entry("UTF-32 BOM", "\xff\xfe\x00\x00<\x00\x00\x00", 1, "UTF-32"),
		Entry("UTF-32 without a BOM", "<\x00\x00\x00?\x00\x00\x00", 1, "UTF-32"),
		Entry("EBCDIC", "\x4c\x6f\xa7\x94\x93", 1, "EBCDIC"),
		Entry("invalid UTF-8", "<urlset>\n<loc>caf\xe9</loc></urlset>", 2, "UTF-8"),
		Entry("two roots", "<a/>\n<b/>", 2, "second root"),
		Entry("text after the root", "<a/>\ntrailing", 2, "outside the root"),
		Entry("text only", "hello", 1, ""),
	)

	It("reads gzip transparently within the size limit", func() {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(changeList))
		zw.Close()
		data, err := rs.ReadAll(&buf, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal(changeList))
	})

	It("stops a gzip bomb at the limit without inflating it", func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		// 1.5 MB of zeros, about 1.5 KB compressed, six times the limit
		// (it was 24 MB and a limit of 4 MB: 2.5 s under -race, most of it
		// compressing the bomb).
		zw.Write(make([]byte, 1536<<10))
		zw.Close()
		Expect(buf.Len()).To(BeNumerically("<", 16<<10))
		_, err := rs.ReadAll(&buf, 256<<10)
		var le *rs.LimitError
		Expect(errors.As(err, &le)).To(BeTrue(), "got %v", err)
		Expect(le.What).To(Equal("decompressed document"))
	})

	It("stops reading a plain document at the limit", func() {
		r := io.MultiReader(strings.NewReader("<urlset>"), neverEnding('x'))
		_, err := rs.ReadAll(r, 1000)
		var le *rs.LimitError
		Expect(errors.As(err, &le)).To(BeTrue())
		Expect(le.Limit).To(Equal(int64(1000)), "the configured limit, not the read's margin")
	})

	It("has the Sitemap protocol's 50MB, 52,428,800 bytes, as the default limit", func() {
		Expect(rs.DefaultMaxBytes).To(Equal(52428800))
	})

	It("reports a corrupt gzip stream", func() {
		_, err := rs.ReadAll(bytes.NewReader([]byte{0x1f, 0x8b, 8, 0, 0, 0}), 0)
		Expect(err).To(MatchError(ContainSubstring("gzip")))
	})

	It("finds a DOCTYPE behind comments and processing instructions", func() {
		Expect(rs.HasDoctype([]byte("\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE x>"))).To(BeTrue())
		Expect(rs.HasDoctype([]byte("<?xml version=\"1.0\"?><urlset/>"))).To(BeFalse())
	})

	// The libxml2 front end refuses a DOCTYPE before libxml2 sees it, with
	// DoctypeError: the same error as Parse's, at the same place.
	It("locates and words a DOCTYPE as Parse does (DoctypeError)", func() {
		for _, doc := range []string{
			"<?xml version=\"1.0\"?>\n<!-- c -->\n  <!DOCTYPE x [<!ENTITY e \"é\">]><urlset/>",
			"<!-- é -->  <!DOCTYPE x><urlset/>",
			"\n\n<!doctype html>\n<html></html>",
			"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"><html/>",
		} {
			_, err := rs.ParseBytes([]byte(doc))
			var want *rs.SyntaxError
			Expect(errors.As(err, &want)).To(BeTrue(), "%q: %v", doc, err)
			Expect(rs.DoctypeError([]byte(doc))).To(Equal(want), "%q", doc)
		}
		Expect(rs.DoctypeError([]byte("\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->\n  <!DOCTYPE x>")).Pos).To(Equal(rs.Pos{Line: 3, Column: 3}))
		Expect(rs.DoctypeError([]byte("<?xml version=\"1.0\"?><urlset/>"))).To(BeNil())
		Expect(rs.DoctypeError([]byte("<urlset><!DOCTYPE x></urlset>"))).To(BeNil()) // not in the prolog: the parser's error
	})
})

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

var _ = Describe("Write", func() {
	It("round-trips every example of the specification: Parse(Write(d)) equals d", func() {
		all, err := fixtures.All()
		Expect(err).NotTo(HaveOccurred())
		n := 0
		for _, f := range all {
			if !strings.HasPrefix(f.Dir, "spec-") {
				continue
			}
			d, err := rs.ParseBytes(f.Data)
			Expect(err).NotTo(HaveOccurred(), f.Path)
			var out bytes.Buffer
			Expect(rs.Write(&out, d)).To(Succeed())
			d2, err := rs.ParseBytes(out.Bytes())
			Expect(err).NotTo(HaveOccurred(), "%s rewritten:\n%s", f.Path, out.String())
			Expect(stripPositions(d2)).To(Equal(stripPositions(d)), f.Path)
			n++
		}
		Expect(n).To(BeNumerically(">=", 30))
	})

	It("writes a document built in code that parses back to the same", func() {
		d := rs.NewDocument(rs.ChangeListIndex)
		d.Md.From = "2013-01-01T00:00:00Z"
		d.AddLink("up", "http://example.com/capabilitylist.xml")
		e := d.AddEntry("http://example.com/cl1.xml?a=1&b=<2>")
		e.EnsureMd().From = "2013-01-01T00:00:00Z"
		e.Md.Extra = []rs.Attr{{Space: "http://example.org/ns/", Local: "note", Value: `"quoted" & <angled>`}}
		var out bytes.Buffer
		Expect(rs.Write(&out, d)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("<sitemapindex"))
		d2, err := rs.ParseBytes(out.Bytes())
		Expect(err).NotTo(HaveOccurred())
		Expect(d2.Kind()).To(Equal(rs.ChangeListIndex))
		Expect(stripPositions(d2)).To(Equal(stripPositions(d)))
	})
})

// stripPositions compares documents by content.
func stripPositions(d *rs.Document) *rs.Document { return rs.StripPositions(d) }

var _ = Describe("Detached", func() {
	It("copies a document, with or without its entries, equal in content", func() {
		d, err := rs.ParseBytes([]byte(changeList))
		Expect(err).NotTo(HaveOccurred())
		full := d.Detached(true)
		Expect(full).To(Equal(d))
		Expect(full.Entries[0]).NotTo(BeIdenticalTo(d.Entries[0]))
		top := d.Detached(false)
		Expect(top.Entries).To(BeEmpty())
		Expect(top.Md.From).To(Equal(d.Md.From))
		Expect(top.Link("up").Href).To(Equal(d.Link("up").Href))
		Expect(top.Md).NotTo(BeIdenticalTo(d.Md))
	})
})
