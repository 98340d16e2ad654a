package reporter_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/net/html"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/reporter"
)

var _ = Describe("The html page of several test-destination scenarios", func() {
	render := func(results []*harness.Result) *html.Node {
		var buf bytes.Buffer
		Expect(reporter.WriteDestination(&buf, reporter.FormatHTML, results, reporter.Options{Version: "test"})).To(Succeed())
		page, err := html.Parse(bytes.NewReader(buf.Bytes()))
		Expect(err).NotTo(HaveOccurred())
		return page
	}
	indexRows := func(page *html.Node) []*html.Node {
		return findAll(page, func(n *html.Node) bool {
			return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" && n.Parent.Parent != nil && hasClass(n.Parent.Parent, "index")
		})
	}

	It("opens with an index: each scenario's counts by status, linking to its section", func() {
		failing, passing := destinationResults()[0], destinationResults()[0]
		passing.Scenario = "all-good"
		passing.Steps = passing.Steps[2:] // step 2: a POLICY failure, not failing the run
		page := render([]*harness.Result{failing, passing})
		rows := indexRows(page)
		Expect(rows).To(HaveLen(2))
		links := findAll(rows[0], func(n *html.Node) bool { return n.Data == "a" })
		Expect(links).To(HaveLen(1))
		Expect(attr(links[0], "href")).To(Equal("#scenario-1"))
		Expect(textOf(links[0])).To(Equal("create-update-delete"))
		Expect(hasClass(rows[0], "fail")).To(BeTrue())
		Expect(hasClass(rows[1], "pass")).To(BeTrue())
		var counts []string
		for _, td := range findAll(rows[0], func(n *html.Node) bool { return n.Data == "td" }) {
			counts = append(counts, textOf(td))
		}
		// runs, passed, failed, failing, not observed, skipped
		Expect(counts).To(Equal([]string{"2", "2", "2", "1", "1", "1"}))
		Expect(findAll(page, func(n *html.Node) bool { return attr(n, "id") == "scenario-1" })).To(HaveLen(1))
	})

	It("has no index for one scenario", func() {
		Expect(indexRows(render(destinationResults()))).To(BeEmpty())
	})
})
