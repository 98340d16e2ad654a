package reporter_test

import (
	"bytes"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/net/html"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/reporter"
)

// destinationResults is one scenario of three steps, two of which ran,
// with a verdict of every status; its texts try to run script.
func destinationResults() []*harness.Result {
	t0 := time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC)
	evidence := make([]string, 30)
	for i := range evidence {
		evidence[i] = "GET /res/" + strings.Repeat("0", 6) + string(rune('a'+i%26))
	}
	return []*harness.Result{{
		Scenario: "create-update-delete", Description: "The life of one <script>alert(1)</script> resource",
		Source: "http://127.0.0.1:1234/.well-known/resourcesync", Dir: "/tmp/dest", Command: []string{"sync", "{source}", "{dir}"},
		Duration: 2.5,
		Steps: []harness.StepResult{
			{Step: 0, Name: "initial state", Time: t0, Checkpoint: true, Ran: true,
				Run: &harness.RunInfo{ExitCode: 0, Seconds: 0.4, Requests: 12, Output: "synced <script>alert(2)</script>"},
				Verdicts: []harness.Verdict{
					{ID: "DEST-RUN", Section: "5.2", Level: harness.Must, Title: "the run completes", Status: harness.Pass, Expected: "exit 0", Actual: "exit 0"},
					{ID: "DEST-PRESENT", Section: "5.2", Level: harness.Must, Title: "every resource is present", Status: harness.Fail,
						Expected: "10 resources present", Actual: "<img src=x onerror=alert(3)> missing", Evidence: evidence},
					{ID: "DEST-NO-REFETCH", Section: "1.3", Level: harness.Policy, Title: "unchanged resources are not downloaded again", Status: harness.Skip,
						Expected: "no download", Actual: "nothing held yet"},
				}},
			{Step: 1, Name: "not a checkpoint", Time: t0.Add(time.Hour)},
			{Step: 2, Name: "update", Time: t0.Add(2 * time.Hour), Checkpoint: true, Ran: true,
				Run: &harness.RunInfo{ExitCode: 0, Seconds: 0.2, Requests: 3},
				Verdicts: []harness.Verdict{
					{ID: "DEST-NO-REFETCH", Section: "1.3", Level: harness.Policy, Title: "unchanged resources are not downloaded again", Status: harness.Fail,
						Expected: "no download", Actual: "downloaded /res/1 again"},
					{ID: "DEST-RETRY-AFTER", Section: "RFC 9110 10.2.3", Level: harness.Should, Title: "Retry-After is honoured", Status: harness.NotObserved,
						Expected: "a retry after 2s", Actual: "no retry in the log"},
					{ID: "DEST-RUN", Section: "5.2", Level: harness.Must, Title: "the run completes", Status: harness.Pass, Expected: "exit 0", Actual: "exit 0"},
				}},
		},
	}}
}

var _ = Describe("The html format of test-destination", func() {
	render := func(strict bool) (*html.Node, string) {
		var buf bytes.Buffer
		Expect(reporter.WriteDestination(&buf, reporter.FormatHTML, destinationResults(), reporter.Options{Version: "test", Strict: strict})).To(Succeed())
		page, err := html.Parse(bytes.NewReader(buf.Bytes()))
		Expect(err).NotTo(HaveOccurred())
		return page, buf.String()
	}
	row := func(page *html.Node, id string) *html.Node {
		rows := findAll(page, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-requirement") == id })
		Expect(rows).To(HaveLen(1), id)
		return rows[0]
	}
	cells := func(tr *html.Node) []*html.Node {
		return findAll(tr, func(n *html.Node) bool { return n.Data == "td" })
	}

	It("is a matrix of requirements by the steps that ran, in the catalogue's order", func() {
		page, _ := render(false)
		heads := findAll(page, func(n *html.Node) bool { return n.Data == "th" && hasClass(n, "step") })
		Expect(heads).To(HaveLen(2))
		Expect(textOf(heads[0])).To(HavePrefix("step 0"))
		Expect(textOf(heads[1])).To(HavePrefix("step 2"))
		var order []string
		for _, tr := range findAll(page, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-requirement") != "" }) {
			order = append(order, attr(tr, "data-requirement"))
		}
		var want []string
		for _, r := range harness.Requirements {
			for _, id := range []string{"DEST-RUN", "DEST-PRESENT", "DEST-NO-REFETCH", "DEST-RETRY-AFTER"} {
				if r.ID == id {
					want = append(want, id)
				}
			}
		}
		Expect(order).To(Equal(want))
		Expect(textOf(findAll(page, byID("scenario-1"))[0])).To(ContainSubstring("Not run after steps 1 (not a checkpoint)"))
	})

	It("shows each verdict's status, and its expected, actual and evidence on click", func() {
		page, _ := render(false)
		present := cells(row(page, "DEST-PRESENT"))
		Expect(present).To(HaveLen(2))
		Expect(attr(present[0], "class")).To(Equal("fail"))
		Expect(attr(present[1], "class")).To(Equal("none"))
		d := findAll(present[0], func(n *html.Node) bool { return n.Data == "details" })
		Expect(d).To(HaveLen(1))
		Expect(attr(d[0], "open")).To(BeEmpty())
		Expect(textOf(d[0])).To(And(ContainSubstring("expected 10 resources present"),
			ContainSubstring("actual <img src=x onerror=alert(3)> missing"), ContainSubstring("… and 10 more")))
		refetch := cells(row(page, "DEST-NO-REFETCH"))
		Expect(attr(refetch[0], "class")).To(Equal("skip"))
		Expect(attr(refetch[1], "class")).To(Equal("warnfail"), "a POLICY failure does not fail the run")
		Expect(textOf(refetch[1])).To(ContainSubstring("fails only with --strict"))
		Expect(attr(cells(row(page, "DEST-RETRY-AFTER"))[1], "class")).To(Equal("notobserved"))
		Expect(attr(cells(row(page, "DEST-RUN"))[1], "class")).To(Equal("pass"))
		Expect(textOf(findAll(page, byID("summary"))[0])).To(And(ContainSubstring("The Destination fails"),
			ContainSubstring("1 scenario, 2 runs: 6 verdicts"), ContainSubstring("2 failed (1 failing the run)"), ContainSubstring("1 not observed")))
		Expect(textOf(findAll(page, byID("req-DEST-RUN"))[0])).To(ContainSubstring("DEST-RUN"))
	})

	It("fails SHOULD and POLICY verdicts under --strict", func() {
		page, _ := render(true)
		Expect(attr(cells(row(page, "DEST-NO-REFETCH"))[1], "class")).To(Equal("fail"))
	})

	It("escapes what the Destination and the scenario said", func() {
		page, out := render(false)
		Expect(out).NotTo(ContainSubstring("<script>alert"))
		Expect(out).NotTo(ContainSubstring("<img"))
		scripts := findAll(page, func(n *html.Node) bool { return n.Data == "script" })
		Expect(scripts).To(HaveLen(1))
		Expect(textOf(scripts[0])).To(Equal(string(reporter.HTMLScript())))
	})
})
