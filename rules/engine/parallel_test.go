package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/schema"
)

var _ = Describe("Rules of a large document", func() {
	It("run on all cores and give the same findings, in the same order, every time", func() {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="changelist" from="2013-01-01T00:00:00Z"/>
`)
		// 2,000 entries: the least that runs the rules on all cores
		// (parallelEntries).
		for i := 0; i < 2000; i++ {
			minute := i % 60 // out of order every 60 entries
			hash := "md5:1584abdf8ebdc9802ac0c6a7402c03b6"
			if i%500 == 0 {
				hash = "md5:nothex"
			}
			fmt.Fprintf(&b, `<url><loc>http://example.com/r%d</loc><rs:md change="updated" datetime="2013-01-02T10:%02d:00Z" hash=%q type="text/html"/></url>`+"\n", i, minute, hash)
		}
		b.WriteString("</urlset>\n")
		doc, err := rs.ParseBytes([]byte(b.String()))
		Expect(err).NotTo(HaveOccurred())
		first := engine.Run("x.xml", engine.Input{Doc: doc}, engine.Config{})
		Expect(first.Diagnostics).NotTo(BeEmpty())
		ids := map[string]int{}
		for _, d := range first.Diagnostics {
			ids[d.Rule]++
		}
		Expect(ids["RS-HASH-SYNTAX"]).To(Equal(4))
		Expect(ids["RS-CL-ORDER"]).To(BeNumerically(">", 1500))
		for i := 0; i < 5; i++ {
			Expect(engine.Run("x.xml", engine.Input{Doc: doc}, engine.Config{})).To(Equal(first))
		}
	})

	// What streaming guarantees (see engine.Scope): the rules see the
	// entries a window at a time and the engine gives each window back, so
	// the entries built for a document are a few windows' worth whatever
	// its length; the findings, with their positions and related
	// positions, are those of the whole model.
	It("streamed, build a few windows of entries whatever the length, and find what the whole model does, where it is", func() {
		const window = 16
		defer engine.SetStreamWindow(window)()
		// Strings of entries given back are poisoned at once: a rule
		// that kept one past its window would find other text.
		defer schema.SetSlabsForTest(64)()
		sv, err := frontend.New()
		Expect(err).NotTo(HaveOccurred())

		// A Resource List of n entries, entry i on line 5+i: a hash that
		// is not hex every 700 entries, and every 1,000 a <loc> listed
		// again from 990 entries (62 windows) before.
		const firstLine = 5
		type fault struct{ line, related int }
		resourceList := func(n int) ([]byte, map[string][]fault) {
			var b bytes.Buffer
			b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
			want := map[string][]fault{}
			for i := 0; i < n; i++ {
				loc, hash := fmt.Sprintf("http://example.com/r%d", i), "md5:1584abdf8ebdc9802ac0c6a7402c03b6"
				if i%700 == 350 {
					hash = "md5:nothex"
					want["RS-HASH-SYNTAX"] = append(want["RS-HASH-SYNTAX"], fault{firstLine + i, 0})
				}
				if i%1000 == 999 {
					loc = fmt.Sprintf("http://example.com/r%d", i-990)
					want["RS-LOC-DUPLICATE"] = append(want["RS-LOC-DUPLICATE"], fault{firstLine + i, firstLine + i - 990})
				}
				fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2013-01-02T10:00:00Z</lastmod><rs:md hash=%q length=\"10\"/></url>\n", loc, hash)
			}
			b.WriteString("</urlset>\n")
			return b.Bytes(), want
		}

		for _, n := range []int{1000, 4000} {
			data, want := resourceList(n)
			whole, doc := (&engine.Validator{Schema: sv}).ValidateDoc(context.Background(), "rl.xml", data)
			Expect(doc.Entries).To(HaveLen(n), "the whole model keeps every entry")

			fe := &windowCounter{FrontEnd: sv}
			v := &engine.Validator{Schema: fe}
			for how, streamed := range map[string]engine.Result{
				"ValidateBytes":  v.ValidateBytes(context.Background(), "rl.xml", data),
				"ValidateReader": v.ValidateReader(context.Background(), "rl.xml", bytes.NewReader(data)),
			} {
				Expect(describe(streamed)).To(Equal(describe(whole)), "%d entries, %s (actual) and the whole model (expected)", n, how)
				Expect(streamed).To(Equal(whole), "%d entries, %s", n, how)
			}

			// Memory: every window shown holds window entries and is
			// dropped from the model once the rules have seen it, and
			// the entries built (kept alive by the counter, so that none
			// is counted twice) are a few windows' worth at either length:
			// two, as the engine gives each window back before the next is
			// built; the pool keeps at most four.
			Expect(fe.calls).To(Equal(2*(n/window)), "%d entries: windows shown (two reads)", n)
			Expect(fe.largest).To(Equal(window))
			Expect(fe.keptAfter).To(BeZero(), "entries left in the model after the rules saw them")
			Expect(len(fe.built)).To(BeNumerically("<=", 4*window), "%d entries: entries built", n)

			// Positions: each fault on its line, a duplicate related to
			// the line of its first listing, in windows long gone.
			got := map[string][]fault{}
			for _, d := range whole.Diagnostics {
				Expect(d.Location.Column).To(BeNumerically(">", 0), "%s on line %d", d.Rule, d.Location.Line)
				f := fault{line: d.Location.Line}
				if len(d.Related) > 0 {
					f.related = d.Related[0].Line
				}
				got[d.Rule] = append(got[d.Rule], f)
			}
			Expect(got).To(Equal(want), "%d entries", n)
		}
	})
})

// windowCounter is a front end that watches the windows of entries the
// engine is shown while a document is read (ReadOptions.OnEntries).
type windowCounter struct {
	engine.FrontEnd
	mu        sync.Mutex
	calls     int
	largest   int
	keptAfter int
	built     map[*rs.Entry]bool
}

func (w *windowCounter) ReadFrom(ctx context.Context, r io.Reader, opts engine.ReadOptions) (*rs.Document, []engine.SchemaError, error) {
	if on := opts.OnEntries; on != nil {
		opts.OnEntries = func(d *rs.Document) {
			w.mu.Lock()
			w.calls++
			w.largest = max(w.largest, len(d.Entries))
			if w.built == nil {
				w.built = map[*rs.Entry]bool{}
			}
			for _, e := range d.Entries {
				w.built[e] = true
			}
			w.mu.Unlock()
			on(d)
			w.mu.Lock()
			w.keptAfter += len(d.Entries)
			w.mu.Unlock()
		}
	}
	return w.FrontEnd.ReadFrom(ctx, r, opts)
}
