package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/schema"
)

// Checking a document while it is read (ValidateBytes: rules of
// ScopeEntries see the entries window by window, then the entries are
// dropped) must say exactly what checking the whole model says
// (ValidateDoc), whatever the window: a rule whose Scope is wrong shows
// here on the fixture that exercises it. So does a rule that keeps an
// entry (or its <rs:md>) beyond its window: the window is cleared once
// seen, and later entries are built in it (rs.EntryPool).
var _ = Describe("Streaming", func() {
	all, err := fixtures.All()
	It("has fixtures", func() { Expect(err).NotTo(HaveOccurred()) })
	// The whole model's results (ValidateDoc reads no window), computed
	// once for both windows.
	var wholes []engine.Result
	whole := func(i int) engine.Result {
		if wholes == nil {
			for _, f := range all {
				res, _ := validatorFor(f).ValidateDoc(context.Background(), f.Path, f.Data)
				wholes = append(wholes, res)
			}
		}
		return wholes[i]
	}
	// Read inline too (Validator.Inline: the front end reads, parses and
	// builds on the caller's goroutine, in turn).
	for _, inline := range []bool{false, true} {
		for _, window := range []int{1, 3} {
			how := ""
			if inline {
				how = ", read inline"
			}
			It("gives the whole model's result on every fixture, in windows of "+strconv.Itoa(window)+" entries"+how, func() {
				defer engine.SetStreamWindow(window)()
				// The front end writes the strings of later entries over
				// those of windows given back: slabs of 64 bytes, poisoned as
				// soon as they are free, show a rule that keeps a string of
				// an entry (or a value computed from it) beyond its window.
				defer schema.SetSlabsForTest(64)()
				for i, f := range all {
					v := validatorFor(f)
					v.Inline = inline
					streamed := v.ValidateBytes(context.Background(), f.Path, f.Data)
					whole := whole(i)
					if !reflect.DeepEqual(streamed, whole) {
						Expect(describe(streamed)).To(Equal(describe(whole)), "%s, streamed (actual) and whole (expected)", f.Path)
						Expect(streamed).To(Equal(whole), f.Path)
					}
				}
			})
		}
	}

	It("gives the whole model's result when header elements come after the entries", func() {
		defer engine.SetStreamWindow(1)()
		doc := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>http://example.com/a</loc><rs:md length="x"/></url>
<url><loc>http://example.com/a</loc><rs:md type="text"/></url>
<rs:ln rel="up" href=""/>
<rs:ln rel="up" href="rel/ative" length="-1"/>
<rs:md capability="changelist" from="2013-01-02"/>
<rs:mdx/>
<url><loc>b</loc><changefreq>sometimes</changefreq></url>
</urlset>`)
		streamed := streamedAsWhole("late.xml", doc)
		Expect(streamed.Diagnostics).To(ContainElement(HaveField("Rule", "RS-LINK-HREF")))
	})

	// Pass.ElementsWith and EntriesWith skip a window none of whose
	// entries holds what the rule looks for: the attributes here stand on
	// a second <rs:md> or an <rs:ln> of one entry among others that have
	// none, and each part an entry may have is in one entry alone.
	It("gives the whole model's result when an attribute or a part is in one entry of a window (ElementsWith, EntriesWith)", func() {
		defer engine.SetStreamWindow(3)()
		doc := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>http://example.com/a</loc></url>
<url><loc>http://example.com/b</loc><rs:md length="1"/><rs:md encoding="UTF-8" path="/x" capability="changelist"/></url>
<url><loc>http://example.com/c</loc></url>
<url><loc>http://example.com/d</loc></url>
<url><loc>http://example.com/e</loc><rs:ln rel="alternate" href="http://example.com/e.gz" encoding="utf-8" length="z"/></url>
<url><loc>http://example.com/f</loc></url>
<url><loc>http://example.com/g</loc><changefreq>sometimes</changefreq></url>
<url><loc>http://example.com/h</loc></url>
<url><loc>http://example.com/i</loc></url>
<url><loc>http://example.com/j</loc><priority>2</priority></url>
<url><loc>http://example.com/k</loc></url>
<url><loc>http://example.com/l</loc></url>
<url><loc>http://example.com/m</loc><rs:lnk/></url>
<url><loc>http://example.com/n</loc></url>
<url><loc>http://example.com/o</loc></url>
<url><loc>http://example.com/p</loc><x:md xmlns:x="http://www.openarchives.org/rs/terms"/></url>
<url><loc>http://example.com/q</loc></url>
<url><loc>http://example.com/r</loc><rs:md at="2013"/><rs:ln rel="alternate" href="http://example.com/r.x" type="text/plain" modified="2013-1"/></url>
</urlset>`)
		streamed := streamedAsWhole("rare.xml", doc)
		for _, id := range []string{"RS-ENCODING-CODING", "RS-PATH-PLACE", "RS-CAPABILITY-ENTRY-PLACE", "RS-LENGTH-SYNTAX",
			"RS-MD-ENTRY-ONCE", "RS-CHANGEFREQ-VALUE", "RS-PRIORITY-VALUE", "RS-ELEMENT-UNKNOWN", "RS-NAMESPACE-NEAR", "RS-LINK-ALTERNATE-TYPE",
			"RS-TIME-NOT-USED", "RS-TIME-W3C", "RS-TIME-UTC"} {
			Expect(streamed.Diagnostics).To(ContainElement(HaveField("Rule", id)))
		}
	})

	It("ends the rules of a document that turns out not to be well-formed, leaving no goroutine behind", func() {
		defer engine.SetStreamWindow(64)()
		sv, err := frontend.New()
		Expect(err).NotTo(HaveOccurred())
		v := &engine.Validator{Schema: sv}
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
		for i := 0; i < 5000; i++ { // more than a chunk of events (256 KiB), so that the rules start
			fmt.Fprintf(&b, "<url><loc>http://example.com/%d</loc><rs:md length=\"x\"/></url>\n", i)
		}
		b.WriteString("<url><loc>http://example.com/broken</loc></urlx>\n</urlset>\n")
		before := runtime.NumGoroutine()
		for i := 0; i < 2; i++ {
			res := v.ValidateBytes(context.Background(), "broken.xml", []byte(b.String()))
			Expect(res.Status).To(Equal(engine.StatusError))
			Expect(res.Diagnostics).To(HaveLen(1), describe(res)) // the syntax error only: what the rules saw is discarded
			Expect(res.Diagnostics[0].Rule).To(Equal("RS-XML-WELLFORMED"))
		}
		Eventually(runtime.NumGoroutine).Should(BeNumerically("<=", before))
	})

	It("checks the whole model, entries kept, when a selected rule needs it (ScopeDocument)", func() {
		defer engine.SetStreamWindow(1)()
		defer engine.SetScope("RS-LOC-URI", engine.ScopeDocument)()
		doc := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>a</loc></url>
<url><loc>http://example.com/b</loc><rs:md length="x"/></url>
<url><loc>c</loc></url>
</urlset>`)
		streamed := streamedAsWhole("whole.xml", doc)
		Expect(streamed.Diagnostics).To(ContainElement(HaveField("Location.Line", 4)), describe(streamed))
	})
})

// streamedAsWhole checks doc while it is read (ValidateBytes) and as a
// whole model (ValidateDoc), expects the same result of both, and returns
// the streamed one.
func streamedAsWhole(name string, doc []byte) engine.Result {
	sv, err := frontend.New()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	v := &engine.Validator{Schema: sv}
	streamed := v.ValidateBytes(context.Background(), name, doc)
	whole, _ := v.ValidateDoc(context.Background(), name, doc)
	ExpectWithOffset(1, describe(streamed)).To(Equal(describe(whole)))
	return streamed
}
