package schema_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing/iotest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// streamed is a Resource List of about 90 KB (beyond what ReadFrom reads
// before feeding libxml2) with findings near its end: a multi-line start
// tag with attributes of several namespaces, an unknown attribute, a
// missing <loc>.
func streamed() []byte {
	var b strings.Builder
	for i := 0; i < 1200; i++ {
		b.WriteString("  <url><loc>http://example.com/res</loc><lastmod>2013-01-02T13:00:00Z</lastmod></url>\n")
	}
	b.WriteString("  <url><loc>http://example.com/last</loc>\n    <rs:md\n  length=\"1\" x:y=\"z\" xmlns:x=\"urn:x\"\n\tbogus='2' type=\"text/plain\"/></url>\n")
	b.WriteString("  <url><lastmod>2013-01-02T13:00:00Z</lastmod></url>\n")
	return doc(b.String())
}

// readFrom is ReadFrom validating, and readInline the same inline.
func readFrom(ctx context.Context, v *schema.Validator, r io.Reader) (*rs.Document, []schema.Error, error) {
	return v.ReadFrom(ctx, r, schema.ReadOptions{Validate: true})
}

func readInline(ctx context.Context, v *schema.Validator, r io.Reader) (*rs.Document, []schema.Error, error) {
	return v.ReadFrom(ctx, r, schema.ReadOptions{Validate: true, Inline: true})
}

// readers are the two ways ReadFrom reads: with the front end's goroutines
// working at once, and inline (ReadOptions.Inline).
var readers = map[string]func(context.Context, *schema.Validator, io.Reader) (*rs.Document, []schema.Error, error){
	"at once": readFrom, "inline": readInline,
}

// blockingReader returns data, then blocks until release is closed, then
// says EOF.
type blockingReader struct {
	data    *bytes.Reader
	release chan struct{}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if b.data.Len() > 0 {
		return b.data.Read(p)
	}
	<-b.release
	return 0, io.EOF
}

// Issue 13: the front end streams the document into libxml2.
var _ = Describe("Streaming a document (ReadFrom)", func() {
	var v *schema.Validator
	BeforeEach(func() {
		var err error
		v, err = schema.New()
		Expect(err).NotTo(HaveOccurred())
	})

	It("gives the same model, findings and positions fed one byte at a time as read whole", func() {
		for _, data := range [][]byte{streamed(), bytes.ReplaceAll(streamed(), []byte("\n"), []byte(" "))} {
			Expect(len(data)).To(BeNumerically(">", 80_000))
			wantDoc, wantErrs, err := v.Read(data, true)
			Expect(err).NotTo(HaveOccurred())
			Expect(wantErrs).To(HaveLen(2))
			line, col := posOf(data, bytes.LastIndex(data, []byte("<rs:md")))
			Expect([]int{wantErrs[0].Line, wantErrs[0].Column}).To(Equal([]int{line, col}))
			line, col = posOf(data, bytes.LastIndex(data, []byte("<lastmod>")))
			Expect([]int{wantErrs[1].Line, wantErrs[1].Column}).To(Equal([]int{line, col}))
			md := wantDoc.Entries[len(wantDoc.Entries)-2].Md
			Expect(md.Extra).To(HaveLen(2)) // x:y and bogus, at their own positions
			Expect(md.Extra[1].Pos).NotTo(Equal(md.Pos))

			for how, read := range readers {
				gotDoc, gotErrs, err := read(context.Background(), v, iotest.OneByteReader(bytes.NewReader(data)))
				Expect(err).NotTo(HaveOccurred(), how)
				Expect(gotErrs).To(Equal(wantErrs), how)
				Expect(gotDoc).To(Equal(wantDoc), how)
			}
		}
	})

	It("passes names and namespaces past the shim's tables (64 names, 32 namespaces) as written", func() {
		// 100 attribute names in 40 namespaces on each <rs:md>, on three
		// entries: the names beyond the tables are written inline, every time.
		var md strings.Builder
		md.WriteString("<rs:md length=\"1\"")
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&md, " xmlns:p%d=\"urn:ns%d\"", i, i)
		}
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&md, " p%d:n%d=\"v%d\"", i%40, i, i)
		}
		md.WriteString("/>")
		entry := "<url><loc>http://example.com/r</loc>" + md.String() + "</url>\n"
		d, _, err := v.Read(doc(entry+entry+entry), false)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(3))
		for _, e := range d.Entries {
			Expect(e.Md.Length).To(Equal("1"))
			Expect(e.Md.Extra).To(HaveLen(100))
			for i, a := range e.Md.Extra {
				Expect([]string{a.Space, a.Local, a.Value}).To(Equal([]string{
					fmt.Sprintf("urn:ns%d", i%40), fmt.Sprintf("n%d", i), fmt.Sprintf("v%d", i)}))
			}
		}
	})

	It("builds each window's entries right in the entries of earlier windows put back in the pool", func() {
		all, err := fixtures.All()
		Expect(err).NotTo(HaveOccurred())
		docs := [][]byte{streamed()}
		for _, f := range all {
			docs = append(docs, f.Data)
		}
		reused := 0
		for _, data := range docs {
			wantDoc, _, err := v.Read(data, false)
			if err != nil {
				continue // not well-formed: no model
			}
			// Each window is copied as it comes, then put back: the
			// Builder builds later entries in these very structures.
			pool := rs.NewEntryPool()
			var got []rs.Entry
			seen := map[*rs.Entry]bool{}
			keep := func(d *rs.Document) {
				for _, e := range d.Entries {
					if seen[e] {
						reused++
					}
					seen[e] = true
					c := *e
					if e.Md != nil {
						md := *e.Md
						c.Md = &md
					}
					got = append(got, c)
				}
			}
			for _, inline := range []bool{false, true} {
				got = nil
				doc, _, err := v.ReadWith(data, schema.ReadOptions{Window: 2, Pool: pool, Inline: inline, OnEntries: func(d *rs.Document) {
					keep(d)
					pool.Put(d.Entries)
					d.Entries = nil
				}})
				Expect(err).NotTo(HaveOccurred())
				keep(doc)
				want := []rs.Entry{}
				for _, e := range wantDoc.Entries {
					want = append(want, *e)
				}
				Expect(got).To(HaveLen(len(want)), "inline: %v", inline)
				for i := range want {
					Expect(got[i]).To(Equal(want[i]), "entry %d, inline: %v", i, inline)
				}
			}
		}
		Expect(reused).To(BeNumerically(">", 1000)) // the pool was used
	})

	It("gives a located read error, not a hang, when the reader fails midway", func() {
		data := streamed()
		broken := errors.New("disk on fire")
		for how, read := range readers {
			r := io.MultiReader(bytes.NewReader(data[:70_000]), iotest.ErrReader(broken))
			_, _, err := read(context.Background(), v, r)
			var re *schema.ReadError
			Expect(errors.As(err, &re)).To(BeTrue(), "%s: %v", how, err)
			Expect(errors.Is(err, broken)).To(BeTrue())
			Expect(re.Offset).To(BeEquivalentTo(70_000))
			Expect(re.Line).To(Equal(bytes.Count(data[:70_000], []byte("\n")) + 1))
			Expect(schema.LivePasses()).To(BeZero())
		}
	})

	It("reads to the end of a document it refuses early, so that a read error comes first", func() {
		data := append([]byte("<urlset><oops"), bytes.Repeat([]byte(" "), 100_000)...)
		r := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(&rs.LimitError{What: "document", Limit: 100}))
		_, _, err := readFrom(context.Background(), v, r)
		var le *rs.LimitError
		Expect(errors.As(err, &le)).To(BeTrue(), "%v", err)
	})

	It("words a not-well-formed document as libxml2 does, streamed or whole", func() {
		data := append(streamed()[:85_000:85_000], "<url></urlset>"...)
		_, _, whole := v.Read(data, true)
		var se *rs.SyntaxError
		Expect(errors.As(whole, &se)).To(BeTrue())
		Expect(se.Pos.Line).To(Equal(bytes.Count(data, []byte("\n")) + 1))
		Expect(se.Msg).To(ContainSubstring("mismatch"))

		_, _, once := readFrom(context.Background(), v, iotest.HalfReader(bytes.NewReader(data)))
		Expect(once).To(Equal(whole))
	})

	It("words a document that ends with elements open as one truncated, streamed or whole", func() {
		data := streamed()[:85_000] // cut inside the entries: <urlset> and an entry are open
		_, _, whole := v.Read(data, true)
		var se *rs.SyntaxError
		Expect(errors.As(whole, &se)).To(BeTrue(), "%v", whole)
		Expect(se.Msg).To(Equal(rs.TruncatedMessage))

		_, _, once := readFrom(context.Background(), v, bytes.NewReader(data))
		Expect(once).To(Equal(whole), "libxml2 calls it %q", "Extra content at the end of the document")

		// Content after the root element is not a truncation: libxml2's words.
		extra := append(doc(""), "<extra/>\n"...)
		extra = append(extra, bytes.Repeat([]byte("<!-- padding -->\n"), 5000)...)
		_, _, after := readFrom(context.Background(), v, bytes.NewReader(extra))
		Expect(errors.As(after, &se)).To(BeTrue(), "%v", after)
		Expect(se.Msg).NotTo(Equal(rs.TruncatedMessage))
	})

	It("refuses a DOCTYPE and a non-UTF-8 encoding before libxml2 sees the stream", func() {
		big := bytes.Repeat([]byte("<!-- padding -->\n"), 5000)
		for _, data := range [][]byte{
			append([]byte("<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"), big...),
			append([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?>`+"\n"), big...),
		} {
			_, _, whole := v.Read(data, true)
			Expect(whole).To(HaveOccurred())
			_, _, streamedErr := readFrom(context.Background(), v, iotest.HalfReader(bytes.NewReader(data)))
			Expect(streamedErr).To(Equal(whole))
		}
	})

	It("says a document is not well-formed when an element with too many attributes comes after libxml2 stopped", func() {
		// The attribute count runs ahead of libxml2 (schema.scan): what it
		// refuses past the place libxml2 stopped at is not what went wrong.
		var b strings.Builder
		for i := 0; i < 300; i++ {
			fmt.Fprintf(&b, " a%d='1'", i)
		}
		// The end tag that does not match is in the first 64 KiB pushed,
		// the element in the next.
		data := doc("<url><loc>http://example.com/a</lock></url>\n" +
			strings.Repeat("<url><loc>http://example.com/res</loc></url>\n", 1500) +
			"<url><loc>http://example.com/many</loc><rs:md" + b.String() + "/></url>\n")
		Expect(bytes.Index(data, []byte("many"))).To(BeNumerically(">", 64*1024))
		Expect(bytes.Index(data, []byte("many"))).To(BeNumerically("<", 80*1024))
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.HalfReader(bytes.NewReader(data))} {
			_, _, err := readFrom(context.Background(), v, r)
			var se *rs.SyntaxError
			Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
			Expect(se.Msg).To(ContainSubstring("lock"))
		}
	})

	It("refuses UTF-16 without a byte order mark before libxml2 sees it (the attribute count reads bytes)", func() {
		data := utf16le(bytes.Replace(doc("<url><loc>http://example.com/r</loc></url>\n"),
			[]byte(`encoding="UTF-8"`), []byte(`encoding="UTF-16"`), 1))
		for _, read := range readBothWays(v, data) {
			var se *rs.SyntaxError
			err := read()
			Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
			Expect(se.Msg).To(ContainSubstring("UTF-16 encoded"))
		}
	})

	It("refuses an element with too many attributes before libxml2 sees it, quickly, wherever it is", func() {
		// 200,000 attributes took libxml2 34 s (its duplicate check is
		// quadratic); 256 is the most any element may have.
		var b strings.Builder
		for i := 0; i < 200_000; i++ {
			fmt.Fprintf(&b, " x:a%d='1'", i)
		}
		entries := strings.Repeat("  <url><loc>http://example.com/res</loc></url>\n", 3000) +
			"  <url><loc>http://example.com/many</loc>\n    <rs:md xmlns:x=\"urn:x\"" + b.String() + "/></url>\n"
		data := doc(entries)
		at := bytes.Index(data, []byte("<rs:md xmlns:x"))
		line, col := posOf(data, at)
		start := time.Now()
		for _, read := range readBothWays(v, data) {
			var ae *rs.AttrLimitError
			err := read()
			Expect(errors.As(err, &ae)).To(BeTrue(), "%v", err)
			Expect(ae.Pos).To(Equal(rs.Pos{Line: line, Column: col}))
			Expect(ae.Name).To(Equal("rs:md"))
		}
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Eventually(schema.LivePasses).Should(BeZero())

		// As many as the limit: read as any other.
		few := strings.Replace(string(data), b.String(), b.String()[:strings.Index(b.String(), " x:a255=")], 1)
		d, _, err := v.Read([]byte(few), true)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(3001))
	})

	// 100 bytes: the reader blocks before the first 64 KiB, which are
	// read before libxml2 sees any (standard input a program has not
	// written yet); 70,000: while the pass runs.
	DescribeTable("stops on a cancel while the reader blocks, and leaks no goroutine or C pass", func(given int) {
		goroutines := runtime.NumGoroutine()
		data := streamed()
		r := &blockingReader{data: bytes.NewReader(data[:given]), release: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, _, err := readFrom(ctx, v, r)
			done <- err
		}()
		Consistently(done, 50*time.Millisecond).ShouldNot(Receive())
		cancel()
		var err error
		Eventually(done).Should(Receive(&err))
		Expect(errors.Is(err, context.Canceled)).To(BeTrue(), "%v", err)
		// The caller ends the blocked Read (closing a file or a body does).
		close(r.release)
		Eventually(schema.LivePasses).Should(BeZero())
		Eventually(runtime.NumGoroutine).Should(BeNumerically("<=", goroutines))
	}, Entry("before 64 KiB", 100), Entry("beyond", 70_000))

	// Inline, the cancel is seen between two reads (a Read that blocks
	// holds it back: ReadOptions.Inline).
	It("stops on a cancel while libxml2 is busy, and frees the pass", func() {
		data := benchdata.ResourceList(20000)
		for how, read := range readers {
			ctx, cancel := context.WithCancel(context.Background())
			// The reader cancels at its first call, then ends; a Read
			// after the cancel reads the rest (io.MultiReader goes on
			// to it in the same call).
			calls, after := 0, 0
			rest := bytes.NewReader(data[len(data)/2:])
			r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), readerFunc(func([]byte) (int, error) {
				if calls++; calls == 1 {
					cancel()
					return 0, nil
				}
				return 0, io.EOF
			}), readerFunc(func(p []byte) (int, error) {
				n, err := rest.Read(p)
				after += n
				return n, err
			}))
			_, _, err := read(ctx, v, r)
			Expect(errors.Is(err, context.Canceled)).To(BeTrue(), "%s: %v", how, err)
			Eventually(schema.LivePasses).Should(BeZero())
			Expect(after).To(BeZero(), "%s: read on after the cancel", how)
		}
	})
})

// posOf is the line and column (in bytes, 1-based) of offset off of data.
func posOf(data []byte, off int) (line, col int) {
	return bytes.Count(data[:off], []byte("\n")) + 1, off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// readBothWays reads data with v both ways, whole (Read) and streamed in
// small reads (ReadFrom), each giving the error.
func readBothWays(v *schema.Validator, data []byte) []func() error {
	return []func() error{
		func() error { _, _, err := v.Read(data, true); return err },
		func() error {
			_, _, err := readFrom(context.Background(), v, iotest.HalfReader(bytes.NewReader(data)))
			return err
		},
	}
}

// utf16le is ASCII text in UTF-16, little-endian, without a byte order mark.
func utf16le(ascii []byte) []byte {
	out := make([]byte, 0, 2*len(ascii))
	for _, b := range ascii {
		out = append(out, b, 0)
	}
	return out
}
