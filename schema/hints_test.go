package schema_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// The front end words two common well-formedness errors as the pure-Go
// parser did before libxml2 read every document: which start tag a
// mismatched end tag should close, and a no-break space (or another
// character that looks like a space) where XML wants white space.
var _ = Describe("Syntax error hints", func() {
	var v *schema.Validator
	BeforeEach(func() {
		var err error
		v, err = schema.New()
		Expect(err).NotTo(HaveOccurred())
	})
	syntax := func(data []byte, r func([]byte) *bytes.Reader) *rs.SyntaxError {
		_, _, err := v.ReadFrom(context.Background(), r(data), schema.ReadOptions{Validate: true})
		var se *rs.SyntaxError
		Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
		return se
	}
	whole := bytes.NewReader

	It("says which start tag a mismatched end tag should close, and its line", func() {
		data, err := os.ReadFile("../fixtures/RS-XML-WELLFORMED/fail-mismatched-tag.xml")
		Expect(err).NotTo(HaveOccurred())
		se := syntax(data, whole)
		Expect(se.Msg).To(HavePrefix("end tag </lock> does not close the element <loc> opened at line 5: it should be </loc>"))
		Expect(se.Msg).To(HaveSuffix("(libxml2: Opening and ending tag mismatch: loc line 5 and lock)"))
		Expect(se.Pos.Line).To(Equal(5))
	})

	It("names a no-break space where XML wants white space", func() {
		data, err := os.ReadFile("../fixtures/RS-XML-WELLFORMED/fail-nbsp-in-tag.xml")
		Expect(err).NotTo(HaveOccurred())
		se := syntax(data, whole)
		Expect(se.Msg).To(HavePrefix("U+00A0 (NO-BREAK SPACE) is not XML whitespace"))
		Expect(se.Pos).To(Equal(rs.Pos{Line: 6, Column: 12}))
	})

	It("finds it far into a document, after other non-ASCII characters, whatever the reads", func() {
		var b strings.Builder
		for i := 0; i < 3000; i++ { // about 300 KB: beyond two pushes
			b.WriteString("  <url><loc>http://example.com/é/ü</loc><lastmod>2013-01-02T13:00:00Z</lastmod></url>\n")
		}
		b.WriteString("  <url><loc>http://example.com/ééé</loc><lastmod\u00a0>2013-01-02</lastmod></url>\n")
		data := doc(b.String())
		for _, reads := range []string{"whole", "one byte a read", "half a read"} {
			var r interface{ Read([]byte) (int, error) } = bytes.NewReader(data)
			switch reads {
			case "one byte a read":
				r = iotest.OneByteReader(bytes.NewReader(data))
			case "half a read":
				r = iotest.HalfReader(bytes.NewReader(data))
			}
			_, _, err := v.ReadFrom(context.Background(), r, schema.ReadOptions{})
			var se *rs.SyntaxError
			Expect(errors.As(err, &se)).To(BeTrue(), reads)
			Expect(se.Msg).To(HavePrefix("U+00A0 (NO-BREAK SPACE) is not XML whitespace"), reads)
			Expect(se.Msg).To(ContainSubstring("(libxml2: Couldn't find end of Start Tag lastmod)"), reads)
		}
	})

	It("leaves other messages as libxml2 words them, and a no-break space in text alone", func() {
		se := syntax(doc("  <url><loc>http://example.com/a\u00a0b</loc></url>\n  <url><loc>x</loc><lastmod>1</lastmod></url2>\n"), whole)
		Expect(se.Msg).To(HavePrefix("end tag </url2> does not close the element <url>"))
		se = syntax(doc("  <url><loc>http://example.com/a\u00a0b</loc><lastmod a=>x</lastmod></url>\n"), whole)
		Expect(se.Msg).NotTo(ContainSubstring("U+00A0"))
	})

	It("bounds names quoted from the document", func() {
		// A name of 300 characters: libxml2's message (capped at 1 KiB)
		// still holds both names; the hint quotes at most 80 of each.
		long := strings.Repeat("n", 300)
		se := syntax(doc("  <url><loc>x</loc><"+long+">y</"+long+"x></url>\n"), whole)
		Expect(se.Msg).To(HavePrefix("end tag </" + strings.Repeat("n", 80) + "…> does not close the element <" + strings.Repeat("n", 80) + "…>"))
		// Longer, libxml2's message is cut short: it is kept as it is.
		long = strings.Repeat("n", 5000)
		se = syntax(doc("  <url><loc>x</loc><"+long+">y</"+long+"x></url>\n"), whole)
		Expect(se.Msg).To(HavePrefix("Opening and ending tag mismatch: nnn"))
		Expect(len(se.Msg)).To(BeNumerically("<=", 1100))
	})
})
