package schema_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/schema"
)

const (
	urlsetOpen = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`
	urlsetClose = "</urlset>\n"
)

// doc wraps entries (starting on line 6) in a Resource List.
func doc(entries string) []byte { return []byte(urlsetOpen + entries + urlsetClose) }

func validate(data []byte) []schema.Error {
	GinkgoHelper()
	v, err := schema.New()
	Expect(err).NotTo(HaveOccurred())
	errs, err := v.Validate(data)
	Expect(err).NotTo(HaveOccurred())
	return errs
}

func messages(errs []schema.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Message)
	}
	return out
}

var _ = Describe("New", func() {
	It("returns one shared Validator that passed its self-test", func() {
		v1, err1 := schema.New()
		v2, err2 := schema.New()
		Expect(err1).NotTo(HaveOccurred())
		Expect(err2).NotTo(HaveOccurred())
		Expect(v1).NotTo(BeNil())
		Expect(v2).To(BeIdenticalTo(v1))
	})
})

var _ = Describe("Section 7: the specification's examples", func() {
	DescribeTable("are valid",
		func(file string) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			Expect(err).NotTo(HaveOccurred())
			Expect(validate(data)).To(BeEmpty())
		},
		// Example 14's hash value is broken across lines in the spec's text:
		// values are strings to the XSD, so it is valid here.
		Entry("Example 14: a Resource List", "example14.xml"),
		Entry("Example 15: a Resource List Index", "example15.xml"),
		Entry("Example 19: an open Change List", "example19.xml"),
		Entry("Example 23: a Change Dump Manifest", "example23.xml"),
	)
})

var _ = Describe("Section 7: document structure", func() {
	It("accepts a Sitemap extension element such as image:image", func() {
		Expect(validate(doc(`  <url>
    <loc>http://example.com/res1</loc>
    <rs:md length="1"/>
    <image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <image:loc>http://example.com/res1.png</image:loc>
    </image:image>
  </url>
`))).To(BeEmpty())
	})

	It("accepts an empty urlset and lastmod, changefreq and priority in order", func() {
		Expect(validate(doc(""))).To(BeEmpty())
		Expect(validate(doc(`<url><loc>x</loc><lastmod>y</lastmod><changefreq>z</changefreq><priority>w</priority><rs:md/><rs:ln rel="a" href="b"/></url>`))).To(BeEmpty())
	})

	It("leaves values to the rules: bad datetimes, hashes and changefreq are not schema errors", func() {
		Expect(validate(doc(`<url><loc></loc><lastmod>yesterday</lastmod><changefreq>often</changefreq>` +
			`<rs:md hash="nonsense" length="-1" datetime="now" change="moved" capability="x"/>` +
			`<rs:ln rel="" href="" pri="0"/></url>`))).To(BeEmpty())
	})

	It("reports a missing <loc> at the line of its <url>", func() {
		errs := validate(doc(`  <url>
    <loc>http://example.com/res1</loc>
  </url>
  <url>
    <lastmod>2013-01-02T13:00:00Z</lastmod>
  </url>
`))
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Line).To(Equal(10))
		Expect(errs[0].Element).To(Equal("lastmod"))
		Expect(errs[0].Message).To(ContainSubstring("Expected is ( loc )"))
		Expect(errs[0].Parse).To(BeFalse())
	})

	It("reports a <url> with nothing but extensions at its own line", func() {
		errs := validate(doc("  <url>\n    <rs:md/>\n  </url>\n  <url>\n  </url>\n"))
		Expect(errs).To(HaveLen(2))
		Expect(errs[0].Line).To(Equal(7))
		Expect(errs[1].Line).To(Equal(9))
		Expect(errs[1].Element).To(Equal("url"))
		Expect(errs[1].Message).To(ContainSubstring("Missing child element(s)"))
	})

	It("reports an unprefixed unknown attribute on rs:md", func() {
		errs := validate(doc("<url><loc>x</loc>\n<rs:md capability=\"resourcelist\" bogus=\"1\"/></url>\n"))
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Line).To(Equal(7))
		Expect(errs[0].Element).To(Equal("md"))
		Expect(errs[0].Message).To(Equal("Element 'rs:md', attribute 'bogus': The attribute 'bogus' is not allowed."))
	})

	It("accepts an attribute in a community namespace", func() {
		Expect(validate(doc(`<url><loc>x</loc><rs:md xmlns:ex="http://example.org/ns/" ex:note="x" length="1"/>` +
			`<rs:ln xmlns:ex="http://example.org/ns/" ex:weight="2" xml:lang="en" rel="duplicate" href="http://m.example.com/x"/></url>`))).To(BeEmpty())
	})

	It("reports an rs:-prefixed attribute", func() {
		errs := validate(doc(`<url><loc>x</loc><rs:md rs:length="1"/></url>` + "\n"))
		Expect(messages(errs)).To(ConsistOf("Element 'rs:md', attribute 'rs:length': The attribute 'rs:length' is not allowed."))
	})

	It("reports an rs:ln without href, and one without rel", func() {
		errs := validate(doc("<url><loc>x</loc>\n<rs:ln rel=\"alternate\"/>\n<rs:ln href=\"y\"/></url>\n"))
		Expect(errs).To(HaveLen(2))
		Expect(errs[0].Line).To(Equal(7))
		Expect(errs[0].Element).To(Equal("ln"))
		Expect(errs[0].Message).To(Equal("Element 'rs:ln': The attribute 'href' is required but missing."))
		Expect(errs[1].Line).To(Equal(8))
		Expect(errs[1].Message).To(ContainSubstring("'rel' is required"))
	})

	It("reports a multi-line start tag at the line where it starts", func() {
		errs := validate(doc("<url><loc>x</loc>\n<rs:md\n  length=\"1\"\n  bogus=\"2\"\n/></url>\n"))
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Line).To(Equal(7))
	})

	It("reports text and children inside rs:md", func() {
		errs := validate(doc(`<url><loc>x</loc><rs:md>text</rs:md></url><url><loc>y</loc><rs:ln rel="a" href="b"><rs:md/></rs:ln></url>`))
		Expect(errs).To(HaveLen(2))
	})

	It("reports entries out of order, misplaced entries and priority in a sitemap", func() {
		errs := validate(doc(`<url><rs:md/><loc>x</loc></url>`))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("Element 'rs:md': This element is not expected. Expected is ( loc )")))
		errs = validate(doc(`<url><loc>x</loc><rs:md/><lastmod>y</lastmod></url>`))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("Element 'lastmod': This element is not expected")))
		errs = validate(doc(`<sitemap><loc>x</loc></sitemap>`))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("Element 'sitemap': This element is not expected")))
		idx := []byte(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>x</loc><priority>1</priority></sitemap></sitemapindex>`)
		Expect(messages(validate(idx))).To(ConsistOf(ContainSubstring("Element 'priority': This element is not expected")))
	})

	It("reports a top-level extension element after the first entry", func() {
		errs := validate(doc("<url><loc>x</loc></url>\n<rs:ln rel=\"a\" href=\"b\"/>\n"))
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Line).To(Equal(7))
	})

	It("reports attributes on Sitemap elements but allows xsi:schemaLocation without fetching it", func() {
		errs := validate([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" version="1"/>`))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("attribute 'version'")))
		Expect(validate([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://127.0.0.1:1/sitemap.xsd"/>`))).To(BeEmpty())
	})

	DescribeTable("reports a wrong root element",
		func(data, element, want string) {
			errs := validate([]byte(data))
			Expect(errs).To(HaveLen(1))
			Expect(errs[0].Line).To(Equal(1))
			Expect(errs[0].Element).To(Equal(element))
			Expect(errs[0].Message).To(ContainSubstring(want))
			Expect(errs[0].Parse).To(BeFalse())
		},
		Entry("an unknown element", `<foo xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`, "foo",
			"Element 'foo': This element is not expected as the document root. Expected is ( urlset or sitemapindex )"),
		Entry("urlset in no namespace", `<urlset><url><loc>x</loc></url></urlset>`, "urlset", "it is in no namespace"),
		Entry("an entry", `<url xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><loc>x</loc></url>`, "url", "not expected as the document root"),
		Entry("rs:md, which rs.xsd declares globally", `<rs:md xmlns:rs="http://www.openarchives.org/rs/terms/" capability="resourcelist"/>`, "md",
			"Element 'rs:md': This element is not expected as the document root"),
	)
})

var _ = Describe("Limits", func() {
	It("reports lines beyond 65535 exactly (BIG_LINES)", func() {
		var b strings.Builder
		for i := 0; i < 60000; i++ {
			fmt.Fprintf(&b, "  <url>\n    <loc>http://example.com/res%d</loc></url>\n", i)
		}
		// 5 header lines + 120,000 lines of entries.
		b.WriteString("  <url>\n    <lastmod>x</lastmod>\n  </url>\n")                // lines 120006-120008
		b.WriteString("  <url><loc>y</loc>\n    <rs:md\n      bogus=\"1\"/></url>\n") // lines 120009-120011
		b.WriteString("  <url>\n  </url>\n")                                          // lines 120012-120013
		errs := validate(doc(b.String()))
		Expect(errs).To(HaveLen(3))
		Expect(errs[0].Line).To(Equal(120007))
		Expect(errs[0].Element).To(Equal("lastmod"))
		Expect(errs[1].Line).To(Equal(120010))
		Expect(errs[1].Element).To(Equal("md"))
		Expect(errs[2].Line).To(Equal(120012))
		Expect(errs[2].Element).To(Equal("url"))
	})

	It("reports parse errors beyond line 65535 with line and column", func() {
		data := []byte(urlsetOpen + strings.Repeat("\n", 70000) + "  <url><loc>x</loc></uri>\n" + urlsetClose)
		errs := validate(data)
		Expect(errs).NotTo(BeEmpty())
		Expect(errs[0].Parse).To(BeTrue())
		Expect(errs[0].Line).To(Equal(70006))
		Expect(errs[0].Column).To(BeNumerically(">", 0))
	})

	It("keeps the first 1000 of 2,000 errors and says how many were omitted", func() {
		errs := validate(doc(strings.Repeat("<url><rs:md/></url>\n", 2000)))
		Expect(errs).To(HaveLen(schema.MaxErrors + 1))
		Expect(errs[0].Line).To(Equal(6))
		Expect(errs[999].Line).To(Equal(1005))
		last := errs[schema.MaxErrors]
		Expect(last.Message).To(Equal("1000 more errors omitted (only the first 1000 are reported)"))
	})

	It("truncates a message quoting a 10 KB attribute name or value", func() {
		name := strings.Repeat("a", 10000)
		value := strings.Repeat("é", 5000) // 2-byte characters: the cut must not split one
		// libxml2 quotes the name of an unknown attribute, and the value of
		// an xsi:type that does not resolve.
		errs := validate(doc(`<url><loc>x</loc><rs:md ` + name + `="1"/></url>` +
			`<url><loc>y</loc><rs:ln xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" rel="x" href="y" xsi:type="` + value + `"/></url>`))
		Expect(errs).To(HaveLen(2))
		Expect(errs[0].Message).To(HavePrefix("Element 'rs:md', attribute 'aaaa"))
		Expect(errs[1].Message).To(ContainSubstring("éééé"))
		for _, e := range errs {
			Expect(len(e.Message)).To(BeNumerically("<=", 1024+3))
			Expect(e.Message).To(HaveSuffix("…"))
			Expect(utf8.ValidString(e.Message)).To(BeTrue())
		}
		// A long element name is cut too.
		long := strings.Repeat("b", 10000)
		errs = validate(doc(`<url><loc>x</loc></url><` + long + `/>`))
		Expect(errs).To(HaveLen(1))
		Expect(len(errs[0].Element)).To(BeNumerically("<=", 256+3))
		Expect(len(errs[0].Message)).To(BeNumerically("<=", 1024+3))
	})
})

var _ = Describe("Hostile input", func() {
	It("refuses a DOCTYPE declaring an external entity and never reads the file", func() {
		data := []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n" +
			`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&e;</loc></url></urlset>`)
		errs := validate(data)
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Parse).To(BeTrue())
		Expect(errs[0].Line).To(Equal(2))
		Expect(errs[0].Column).To(Equal(1))
		Expect(errs[0].Message).To(ContainSubstring("DOCTYPE is not allowed"))
		Expect(errs[0].Message).NotTo(ContainSubstring("root:"))
	})

	It("refuses a DOCTYPE with an external subset", func() {
		errs := validate([]byte(`<!DOCTYPE urlset SYSTEM "http://127.0.0.1:1/x.dtd"><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("DOCTYPE is not allowed")))
	})

	It("refuses a billion-laughs entity bomb quickly", func() {
		var b strings.Builder
		b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n")
		prev := "lol"
		for i := 1; i <= 9; i++ {
			cur := fmt.Sprintf("lol%d", i)
			fmt.Fprintf(&b, "<!ENTITY %s \"%s\">\n", cur, strings.Repeat("&"+prev+";", 10))
			prev = cur
		}
		b.WriteString(`]><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc a="&lol9;">&lol9;</loc></url></urlset>`)
		start := time.Now()
		errs := validate([]byte(b.String()))
		Expect(time.Since(start)).To(BeNumerically("<", time.Second))
		Expect(messages(errs)).To(ConsistOf(ContainSubstring("DOCTYPE is not allowed")))
	})

	It("does not process XInclude", func() {
		errs := validate(doc(`<url><loc>x</loc><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/></url>`))
		Expect(errs).To(BeEmpty())
	})

	DescribeTable("gives a parse error, not a crash, for input that is not XML",
		func(data []byte) {
			errs := validate(data)
			Expect(errs).NotTo(BeEmpty())
			Expect(errs[0].Parse).To(BeTrue())
			Expect(errs[0].Line).To(BeNumerically(">=", 1))
			Expect(errs[0].Message).NotTo(BeEmpty())
		},
		Entry("empty input", []byte{}),
		Entry("nil input", []byte(nil)),
		Entry("binary garbage", []byte{0x00, 0xff, 0xfe, 0x01, 0x80, 0x81, 0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef}),
		Entry("gzip magic", []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00}),
		Entry("a truncated document", doc("<url><loc>x</loc></url>")[:100]),
		Entry("an unbound prefix", []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>x</loc><rs:md/></url></urlset>`)),
		Entry("invalid UTF-8", []byte("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>\xff\xfe</loc></url></urlset>")),
		Entry("two roots", []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/><urlset/>`)),
	)
})

var _ = Describe("Concurrency", func() {
	It("gives the same answers from 8 goroutines as sequentially", func() {
		inputs := [][]byte{
			doc(""),
			doc("<url><lastmod>x</lastmod></url>\n<url><loc>y</loc><rs:md bogus=\"1\"/></url>\n"),
			doc(strings.Repeat("<url><rs:md/></url>\n", 50)),
			[]byte("<!DOCTYPE x><x/>"),
			[]byte("not xml"),
		}
		for _, f := range []string{"example14.xml", "example15.xml", "example19.xml", "example23.xml"} {
			data, err := os.ReadFile(filepath.Join("testdata", f))
			Expect(err).NotTo(HaveOccurred())
			inputs = append(inputs, data)
		}
		want := make([][]schema.Error, len(inputs))
		for i, in := range inputs {
			want[i] = validate(in)
		}
		v, err := schema.New()
		Expect(err).NotTo(HaveOccurred())
		var wg sync.WaitGroup
		errc := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				defer GinkgoRecover()
				for round := 0; round < 20; round++ {
					for i := range inputs {
						j := (i + g + round) % len(inputs)
						errs, err := v.Validate(inputs[j])
						if err != nil {
							errc <- err
							return
						}
						if !reflect.DeepEqual(errs, want[j]) {
							errc <- fmt.Errorf("goroutine %d, input %d: got %v, want %v", g, j, errs, want[j])
							return
						}
					}
				}
			}(g)
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			Expect(err).NotTo(HaveOccurred())
		}
	})
})
