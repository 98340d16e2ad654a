package reporter_test

import (
	"bytes"
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/net/html"

	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// renderHTML writes results with the html format and parses the page.
func renderHTML(o reporter.Options, results ...engine.Result) (*html.Node, string) {
	var buf bytes.Buffer
	rep, err := reporter.New(reporter.FormatHTML, &buf, o)
	Expect(err).NotTo(HaveOccurred())
	for _, r := range results {
		Expect(rep.Write(r)).To(Succeed())
	}
	Expect(rep.Flush()).To(Succeed())
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	Expect(err).NotTo(HaveOccurred())
	return doc, buf.String()
}

func findAll(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func byClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return hasClass(n, class) }
}

func byID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { return attr(n, "id") == id }
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// docOf is the li.doc element of the document at location.
func docOf(page *html.Node, location string) *html.Node {
	docs := findAll(page, func(n *html.Node) bool {
		if !hasClass(n, "doc") {
			return false
		}
		locs := findAll(n, byClass("loc"))
		return len(locs) > 0 && textOf(locs[0]) == location
	})
	Expect(docs).NotTo(BeEmpty(), location)
	return docs[0]
}

// parentDoc is the li.doc an li.doc is nested in, nil for a root.
func parentDoc(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && hasClass(p, "doc") {
			return p
		}
	}
	return nil
}

const (
	sdURL = "https://example.com/.well-known/resourcesync"
	clURL = "https://example.com/capabilitylist.xml"
	rlURL = "https://example.com/resourcelist.xml"
)

var _ = Describe("The html format", func() {
	crawl := func() []engine.Result {
		return []engine.Result{
			{Location: sdURL, Kind: "description", Status: engine.StatusValid, Children: []string{clURL}},
			{Location: clURL, Kind: "capabilitylist", Status: engine.StatusValid, Parent: sdURL, Children: []string{rlURL}},
			{Location: rlURL, Kind: "resourcelist", Status: engine.StatusInvalid, Parent: clURL,
				Diagnostics: []engine.Diagnostic{
					{Rule: "RS-LOC-URI", Severity: engine.SeverityError, Section: "7", Message: "not a URI",
						Location: loc(rlURL, 4, 7), Related: []engine.Location{loc(clURL, 3, 1)}},
					{Rule: "RS-TIME-UTC", Severity: engine.SeverityWarning, Section: "7", Message: "not UTC", Location: loc(rlURL, 5, 0)},
				}},
		}
	}

	It("nests a crawl's documents under their parents, each with its status and counts", func() {
		page, _ := renderHTML(sampleOptions, crawl()...)
		sd, cl, rl := docOf(page, sdURL), docOf(page, clURL), docOf(page, rlURL)
		Expect(parentDoc(sd)).To(BeNil())
		Expect(parentDoc(cl)).To(Equal(sd))
		Expect(parentDoc(rl)).To(Equal(cl))
		Expect(hasClass(rl, "status-invalid")).To(BeTrue())
		summary := findAll(rl, func(n *html.Node) bool { return n.Data == "summary" })[0]
		Expect(textOf(summary)).To(And(ContainSubstring("resourcelist"), ContainSubstring("invalid"),
			ContainSubstring("1 error"), ContainSubstring("1 warning")))
		Expect(textOf(findAll(page, byID("summary"))[0])).To(And(ContainSubstring("Does not conform"),
			ContainSubstring("3 documents: 2 valid, 1 invalid, 0 unprocessed"), ContainSubstring("1 error"), ContainSubstring("1 warning")))
	})

	It("lists each finding with rule (linked to its page), level, section and position", func() {
		page, _ := renderHTML(sampleOptions, crawl()...)
		findings := findAll(docOf(page, rlURL), byClass("finding"))
		Expect(findings).To(HaveLen(2))
		f := findings[0]
		Expect(attr(f, "data-severity")).To(Equal("error"))
		Expect(attr(f, "data-rule")).To(Equal("RS-LOC-URI"))
		link := findAll(f, byClass("rule"))[0]
		Expect(textOf(link)).To(Equal("RS-LOC-URI"))
		Expect(attr(link, "href")).To(Equal(reporter.DefaultRuleURL("RS-LOC-URI")))
		Expect(attr(link, "href")).To(HaveSuffix("docs/rules.md#rs-loc-uri"))
		Expect(textOf(findAll(f, byClass("pos"))[0])).To(Equal("4:7"))
		Expect(textOf(findAll(f, byClass("section"))[0])).To(Equal("§ 7 Sitemap Document Formats"))
		Expect(textOf(findAll(f, byClass("related"))[0])).To(ContainSubstring(clURL + ":3:1"))
		Expect(textOf(findAll(findings[1], byClass("pos"))[0])).To(Equal("5"))
		// The glossary quotes the rule and the filter offers it.
		Expect(textOf(findAll(page, byID("rule-RS-LOC-URI"))[0])).To(ContainSubstring("RS-LOC-URI"))
		opts := findAll(page, func(n *html.Node) bool { return n.Data == "option" && attr(n, "value") == "RS-TIME-UTC" })
		Expect(opts).To(HaveLen(1))
	})

	It("links rules where Options.RuleURL says", func() {
		o := sampleOptions
		o.RuleURL = func(id string) string { return "rules/" + id }
		page, _ := renderHTML(o, crawl()...)
		Expect(attr(findAll(page, byClass("rule"))[0], "href")).To(Equal("rules/RS-LOC-URI"))
	})

	It("shows the lines around each finding, the column marked, from the document's text", func() {
		text := "<?xml version=\"1.0\"?>\r\n" +
			"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"\r\n" +
			"        xmlns:rs=\"http://www.openarchives.org/rs/terms/\">\r\n" +
			"  <rs:md capability=\"resourcelist\" at=\"2013-01-03T09:00:00Z\"/>\r\n" +
			"  <url><loc>not a uri</loc></url>\r\n" +
			"</urlset>"
		src := reporter.NewSources(1 << 20)
		v := &engine.Validator{Source: src.Keep, Schema: frontend.Must()}
		res := v.ValidateBytes(context.Background(), "doc.xml", []byte(text))
		Expect(res.Diagnostics).NotTo(BeEmpty())
		o := sampleOptions
		o.Sources = src
		page, _ := renderHTML(o, res)
		var hit *html.Node
		for _, f := range findAll(page, byClass("finding")) {
			if attr(f, "data-rule") == "RS-LOC-URI" {
				hit = f
			}
		}
		Expect(hit).NotTo(BeNil())
		lines := findAll(hit, byClass("line"))
		Expect(lines).To(HaveLen(4)) // lines 3 to 6: the document ends there
		Expect(textOf(findAll(lines[0], byClass("ln"))[0])).To(Equal("3"))
		Expect(hasClass(lines[2], "hit")).To(BeTrue())
		Expect(textOf(lines[2])).To(Equal("5  <url><loc>not a uri</loc></url>"))
		Expect(textOf(lines[3])).To(Equal("6</urlset>"))
		Expect(findAll(lines[2], func(n *html.Node) bool { return n.Data == "mark" })).To(HaveLen(1))
	})

	It("clips long lines around the column and says when the text was not kept", func() {
		long := "<a>\xff" + strings.Repeat("x", 4999) + "HERE" + strings.Repeat("y", 5000) + "</a>"
		src := reporter.NewSources(1 << 20)
		src.Keep("long.xml", []byte(long))
		res := engine.Result{Location: "long.xml", Status: engine.StatusInvalid, Diagnostics: []engine.Diagnostic{
			{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7", Message: "m", Location: loc("long.xml", 1, 5004)}}}
		big := engine.Result{Location: "big.xml", Status: engine.StatusInvalid, Diagnostics: []engine.Diagnostic{
			{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7", Message: "m", Location: loc("big.xml", 1, 1)}}}
		src.Keep("big.xml", make([]byte, 2<<20)) // over the budget: not kept
		o := sampleOptions
		o.Sources = src
		page, _ := renderHTML(o, res, big)
		line := findAll(docOf(page, "long.xml"), byClass("line"))[0]
		t := textOf(line)
		Expect(len([]rune(t))).To(BeNumerically("<", 260))
		Expect(t).To(And(HavePrefix("1…"), HaveSuffix("…")))
		Expect(textOf(findAll(line, func(n *html.Node) bool { return n.Data == "mark" })[0])).To(Equal("H"))
		Expect(textOf(docOf(page, "big.xml"))).To(ContainSubstring("was not kept"))
	})

	It("escapes everything that came from a Source: nothing in a document can run", func() {
		evil := `http://evil.example/<script>alert(1)</script>".xml`
		text := "<urlset>\n<url><loc>\"></pre><script>alert(4)</script><img src=x onerror=alert(5)></loc></url>\n</urlset>"
		src := reporter.NewSources(1 << 20)
		src.Keep(evil, []byte(text))
		results := []engine.Result{
			{Location: evil, Kind: "resourcelist", Status: engine.StatusInvalid, Error: "<script>alert(2)</script>",
				Diagnostics: []engine.Diagnostic{{Rule: `RS-<script>alert(6)</script>`, Severity: engine.SeverityError,
					Section: `7"><script>alert(7)</script>`, Message: "<script>alert(3)</script> <b onmouseover=alert(8)>",
					Location: loc(evil, 2, 11), Related: []engine.Location{loc("javascript:alert(9)", 1, 1)}}}},
			{Location: "javascript:alert(10)", Kind: "unknown", Status: engine.StatusError, Parent: evil},
		}
		o := sampleOptions
		o.Sources = src
		o.Title = "<script>alert(11)</script>"
		o.Notes = []string{"<script>alert(12)</script>"}
		page, out := renderHTML(o, results...)
		scripts := findAll(page, func(n *html.Node) bool { return n.Data == "script" })
		Expect(scripts).To(HaveLen(1), "only the report's own script")
		Expect(textOf(scripts[0])).To(Equal(string(reporter.HTMLScript())))
		for _, n := range findAll(page, func(*html.Node) bool { return true }) {
			for _, a := range n.Attr {
				Expect(strings.HasPrefix(a.Key, "on")).To(BeFalse(), "event handler attribute %s on <%s>", a.Key, n.Data)
				if a.Key == "href" || a.Key == "src" {
					Expect(strings.ToLower(a.Val)).NotTo(HavePrefix("javascript:"), n.Data)
				}
			}
			Expect(n.Data).NotTo(Equal("img"))
		}
		Expect(out).NotTo(ContainSubstring("<script>alert"))
		// The text is shown, escaped, where it belongs.
		Expect(textOf(docOf(page, evil))).To(And(ContainSubstring("<script>alert(3)</script>"), ContainSubstring("</pre><script>alert(4)</script>")))
		// And the page's policy lets only its own script and style run.
		csp := findAll(page, func(n *html.Node) bool { return n.Data == "meta" && attr(n, "http-equiv") == "Content-Security-Policy" })
		Expect(csp).To(HaveLen(1))
		Expect(attr(csp[0], "content")).To(Equal(reporter.HTMLPolicy("'none'")))
		Expect(attr(csp[0], "content")).To(And(ContainSubstring("default-src 'none'"), ContainSubstring("script-src 'sha256-")))
	})

	It("keeps documents whose parents form a cycle or are absent, as roots", func() {
		page, _ := renderHTML(sampleOptions,
			engine.Result{Location: "a", Parent: "b", Status: engine.StatusValid},
			engine.Result{Location: "b", Parent: "a", Status: engine.StatusValid},
			engine.Result{Location: "c", Parent: "elsewhere", Status: engine.StatusValid})
		for _, l := range []string{"a", "b", "c"} {
			Expect(docOf(page, l)).NotTo(BeNil())
		}
		Expect(parentDoc(docOf(page, "c"))).To(BeNil())
	})

	It("says when nothing was checked", func() {
		_, out := renderHTML(sampleOptions)
		Expect(out).To(ContainSubstring("No document was checked."))
		Expect(out).To(ContainSubstring("No verdict"))
	})
})

var _ = Describe("Sources", func() {
	It("keeps documents within its budget and forgets those written", func() {
		src := reporter.NewSources(10)
		src.Keep("a", []byte("12345"))
		src.Keep("b", []byte("123456")) // over: not kept
		src.Keep("c", []byte("12345"))
		res := func(l string) engine.Result {
			return engine.Result{Location: l, Status: engine.StatusInvalid, Diagnostics: []engine.Diagnostic{
				{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7", Message: "m", Location: loc(l, 1, 1)}}}
		}
		o := sampleOptions
		o.Sources = src
		page, _ := renderHTML(o, res("a"), res("b"), res("c"))
		Expect(findAll(docOf(page, "a"), byClass("line"))).To(HaveLen(1))
		Expect(findAll(docOf(page, "b"), byClass("line"))).To(BeEmpty())
		Expect(findAll(docOf(page, "c"), byClass("line"))).To(HaveLen(1))
		// Written documents were taken out: the budget is free again.
		src.Keep("d", []byte("1234567890"))
		page, _ = renderHTML(o, res("d"))
		Expect(findAll(docOf(page, "d"), byClass("line"))).To(HaveLen(1))
	})
})
