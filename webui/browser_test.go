package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/chromium"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/webui"
)

// hostileXML is a Change List out of order whose text tries to run script
// in the report.
const hostileXML = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
  <url><loc>http://example.com/res2.pdf</loc><rs:md change="updated" datetime="2013-01-03T18:00:00Z"/></url>
  <url><loc>http://example.com/&lt;script&gt;window.pwned=3&lt;/script&gt;</loc><rs:md change="deleted" datetime="2013-01-03T13:00:00Z"/></url> <!-- </pre><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> -->
</urlset>
`

// saveScreenshot writes a screenshot under the test's temporary directory
// and, when $RSCONFORM_SCREENSHOTS names a directory, there too (how the
// README's pictures are made: go generate ./webui). Otherwise the
// committed picture docs/screenshots/NAME must still show what the page
// does: the test fails when it is stale.
func saveScreenshot(b *chromium.Browser, dir, name string) {
	path := filepath.Join(dir, name)
	Expect(b.Screenshot(path)).To(Succeed())
	AddReportEntry("screenshot", path)
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	if out := os.Getenv("RSCONFORM_SCREENSHOTS"); out != "" {
		Expect(os.WriteFile(filepath.Join(out, name), data, 0o644)).To(Succeed())
		return
	}
	committed, err := os.ReadFile(filepath.Join("..", "docs", "screenshots", name))
	if errors.Is(err, os.ErrNotExist) {
		return // not a picture of the README
	}
	Expect(err).NotTo(HaveOccurred())
	stale, err := screenshotStale(data, committed)
	Expect(err).NotTo(HaveOccurred())
	Expect(stale).To(BeEmpty(), "docs/screenshots/%s is stale (this run's is %s): regenerate the README's pictures with 'go generate ./webui'", name, path)
}

// screenshotStale says how a screenshot differs from the committed one, ""
// when it does not: another size (a page that grew), or more than 2 % of
// the pixels changed (the mock Source's port, which every run picks anew,
// is a few words of the page). The same bytes are the same picture: most
// pages come out of Chromium byte for byte as committed, and decoding two
// PNGs costs about a second of CPU under -race; when they differ, both
// are decoded at once.
func screenshotStale(got, committed []byte) (string, error) {
	if bytes.Equal(got, committed) {
		if _, err := png.DecodeConfig(bytes.NewReader(got)); err != nil {
			return "", fmt.Errorf("this run's screenshot: %w", err)
		}
		return "", nil
	}
	var b image.Image
	var errB error
	decoded := make(chan struct{})
	go func() {
		defer close(decoded)
		b, errB = png.Decode(bytes.NewReader(committed))
	}()
	a, err := png.Decode(bytes.NewReader(got))
	<-decoded
	if err != nil {
		return "", fmt.Errorf("this run's screenshot: %w", err)
	}
	if errB != nil {
		return "", fmt.Errorf("the committed screenshot: %w", errB)
	}
	if a.Bounds().Size() != b.Bounds().Size() {
		return fmt.Sprintf("%v, committed %v", a.Bounds().Size(), b.Bounds().Size()), nil
	}
	r := a.Bounds()
	differ := 0
	ra, okA := a.(*image.RGBA)
	rb, okB := b.(*image.RGBA)
	if okA && okB {
		// What png.Decode gives for Chromium's RGB pictures: compare rows
		// whole (bytes.Equal), pixels only in the rows that differ.
		for y := 0; y < r.Dy(); y++ {
			rowA := ra.Pix[y*ra.Stride : y*ra.Stride+4*r.Dx()]
			rowB := rb.Pix[y*rb.Stride : y*rb.Stride+4*r.Dx()]
			if bytes.Equal(rowA, rowB) {
				continue
			}
			for x := 0; x < len(rowA); x += 4 {
				if rowA[x] != rowB[x] || rowA[x+1] != rowB[x+1] || rowA[x+2] != rowB[x+2] {
					differ++
				}
			}
		}
	} else {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				r1, g1, b1, _ := a.At(x, y).RGBA()
				r2, g2, b2, _ := b.At(x-r.Min.X+b.Bounds().Min.X, y-r.Min.Y+b.Bounds().Min.Y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 {
					differ++
				}
			}
		}
	}
	if total := r.Dx() * r.Dy(); differ*50 > total {
		return fmt.Sprintf("%d of %d pixels differ", differ, total), nil
	}
	return "", nil
}

func js(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = Describe("The web validator in a browser", Label("browser"), Ordered, func() {
	var (
		b    *chromium.Browser
		dir  string
		home string
		mock string
	)

	BeforeAll(func() {
		path := chromium.Find()
		if why, fail := chromium.Missing(path, os.Getenv); fail {
			Fail(why)
		} else if why != "" {
			Skip(why)
		}
		dir = GinkgoT().TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		var err error
		b, err = chromium.Start(ctx, path, filepath.Join(dir, "profile"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(b.Close)
		// The mock Source binds 127.0.0.1: the validator must allow it.
		home = startValidator(webui.Options{AllowPrivate: true, Rate: -1}).URL + "/"
		mock = startMock("showcase").URL
	})

	AfterEach(func() {
		if b != nil {
			Expect(b.Errors).To(BeEmpty(), "console errors")
		}
	})

	It("shows the form", func() {
		Expect(b.Navigate(home)).To(Succeed())
		var form struct {
			URL, File, XML bool
			Rules          string
		}
		Expect(b.Eval(`({URL: !!document.querySelector('#check-url input[name=url]'),
			File: !!document.querySelector('#check-file input[type=file]'),
			XML: !!document.querySelector('#check-xml textarea[name=xml]'),
			Rules: document.querySelector('a[href="rules/"]').href})`, &form)).To(Succeed())
		Expect(form.URL && form.File && form.XML).To(BeTrue())
		Expect(form.Rules).To(Equal(home + "rules/"))
		Expect(b.Eval(`document.getElementById('xml').value = `+js(hostileXML), nil)).To(Succeed())
		saveScreenshot(b, dir, "web-form.png")
	})

	It("crawls the mock Source's showcase from a submitted URL and renders its whole tree", func() {
		Expect(b.Navigate(home)).To(Succeed())
		Expect(b.Submit(`document.getElementById('url').value = ` + js(mock+"/.well-known/resourcesync") + `;
			document.getElementById('submit-url').click()`)).To(Succeed())
		var page struct {
			Title, Summary, Top, Nested string
			Docs, Open, Details         int
		}
		Expect(b.Eval(`document.getElementById('expand-all').click();
			({Title: document.title,
			  Summary: document.querySelector('#summary .counts').textContent,
			  Top: document.querySelector('#tree > li.doc .loc').textContent,
			  Nested: document.querySelector('#tree > li.doc > details > ul > li.doc .loc').textContent,
			  Docs: document.querySelectorAll('#tree li.doc').length,
			  Details: document.querySelectorAll('#tree details').length,
			  Open: document.querySelectorAll('#tree details[open]').length})`, &page)).To(Succeed())
		Expect(page.Title).To(Equal("Report: " + mock + "/.well-known/resourcesync"))
		Expect(page.Top).To(Equal(mock + "/.well-known/resourcesync"))
		Expect(page.Nested).To(Equal(mock + "/dataset1/capabilitylist.xml"))
		Expect(page.Docs).To(BeNumerically(">", 10))
		Expect(page.Summary).To(HavePrefix(itoa(page.Docs) + " documents:"))
		Expect(page.Open).To(Equal(page.Details), "expand all opens every document")
		saveScreenshot(b, dir, "web-crawl.png")
	})

	It("validates a pasted document: findings, their lines and rule links, and nothing from it runs", func() {
		Expect(b.Navigate(home)).To(Succeed())
		Expect(b.Submit(`document.getElementById('xml').value = ` + js(hostileXML) + `;
			document.getElementById('submit-xml').click()`)).To(Succeed())
		var page struct {
			Verdict, Rule, RuleHref, Mark string
			Glossary, Pos, PosTarget      string
			FiltersShown                  bool
			Pwned                         any
			Scripts, Imgs, Findings       int
		}
		Expect(b.Eval(`(() => { const f = document.querySelector('li.finding[data-rule="RS-CL-ORDER"]');
			return {Verdict: document.querySelector('.verdict').textContent,
			  Rule: f.querySelector('a.rule').textContent, RuleHref: f.querySelector('a.rule').getAttribute('href'),
			  Glossary: document.querySelector('#rule-RS-CL-ORDER a').href,
			  Pos: f.querySelector('a.pos').getAttribute('href'), PosTarget: f.querySelector('pre.src').id,
			  FiltersShown: !document.getElementById('filters').hidden,
			  Mark: f.querySelector('pre.src .hit').textContent,
			  Pwned: window.pwned === undefined ? null : window.pwned,
			  Scripts: document.scripts.length, Imgs: document.images.length,
			  Findings: document.querySelectorAll('li.finding').length}; })()`, &page)).To(Succeed())
		Expect(page.Verdict).To(Equal("Does not conform"))
		Expect(page.Rule).To(Equal("RS-CL-ORDER"))
		Expect(page.RuleHref).To(Equal("#rule-RS-CL-ORDER"), "the page's own glossary")
		Expect(page.Glossary).To(Equal(home + "rules/RS-CL-ORDER"))
		Expect(page.Pos).To(Equal("#" + page.PosTarget))
		Expect(page.FiltersShown).To(BeTrue(), "the script shows the filter bar")
		Expect(page.Mark).To(ContainSubstring("<script>window.pwned=1</script>"))
		Expect(page.Pwned).To(BeNil())
		Expect(page.Scripts).To(Equal(1))
		Expect(page.Imgs).To(BeZero())
		saveScreenshot(b, dir, "web-report.png")

		// The filters hide errors, then show one rule.
		var shown struct{ Errors, All int }
		Expect(b.Eval(`(() => { const c = document.querySelector('input[name=sev][value=error]'); c.click();
			const r = {Errors: document.querySelectorAll('li.finding[data-severity=error]:not([hidden])').length};
			c.click();
			const s = document.getElementById('rule-filter'); s.value = 'RS-CL-ORDER'; s.dispatchEvent(new Event('change', {bubbles: true}));
			r.All = document.querySelectorAll('li.finding:not([hidden])').length; return r; })()`, &shown)).To(Succeed())
		Expect(shown.Errors).To(BeZero())
		Expect(shown.All).To(Equal(1))
		Expect(page.Findings).To(BeNumerically(">", 1))

		// The rule's entry in the glossary leads to the rule's page.
		Expect(b.Submit(`document.querySelector('#rule-RS-CL-ORDER a').click()`)).To(Succeed())
		var rule struct{ Title, Fail, Pass string }
		Expect(b.Eval(`({Title: document.querySelector('h1').textContent,
			Fail: document.getElementById('fail-example').textContent,
			Pass: document.getElementById('pass-example').textContent})`, &rule)).To(Succeed())
		Expect(rule.Title).To(HavePrefix("RS-CL-ORDER: "))
		Expect(rule.Fail).To(ContainSubstring("<urlset"))
		Expect(rule.Pass).To(ContainSubstring("<urlset"))
	})

	It("shows a Destination's verdicts as a matrix whose cells open on click, from file://", func() {
		var page bytes.Buffer
		Expect(reporter.WriteDestination(&page, reporter.FormatHTML, destinationMatrix(), reporter.Options{Version: "test"})).To(Succeed())
		file := filepath.Join(dir, "destination.html")
		Expect(os.WriteFile(file, page.Bytes(), 0o644)).To(Succeed())
		Expect(b.Navigate("file://" + file)).To(Succeed())
		var cell struct {
			Before, After bool
			Text          string
			Rows, Cols    int
		}
		Expect(b.Eval(`(() => { const d = document.querySelector('tr[data-requirement="DEST-PRESENT"] td.fail details');
			const r = {Before: d.open, Rows: document.querySelectorAll('table.matrix tbody tr').length,
			  Cols: document.querySelectorAll('table.matrix th.step').length};
			d.querySelector('summary').click();
			r.After = d.open; r.Text = d.innerText; return r; })()`, &cell)).To(Succeed())
		Expect(cell.Before).To(BeFalse())
		Expect(cell.After).To(BeTrue())
		Expect(cell.Text).To(And(ContainSubstring("expected 10 resources present"), ContainSubstring("actual 1 missing: /res/0000003.txt")))
		Expect(cell.Rows).To(Equal(3))
		Expect(cell.Cols).To(Equal(2))
		saveScreenshot(b, dir, "web-destination.png")
	})
})

// destinationMatrix is a test-destination run of two checkpoints: the
// Destination misses a resource after the first and downloads an
// unchanged one again after the second.
func destinationMatrix() []*harness.Result {
	t0 := time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC)
	run := &harness.RunInfo{ExitCode: 0, Seconds: 0.3, Requests: 14, Output: "synced 9 resources"}
	v := func(r *harness.Requirement, st harness.Status, expected, actual string, evidence ...string) harness.Verdict {
		return harness.Verdict{ID: r.ID, Section: r.Section, Level: r.Level, Title: r.Title, Status: st,
			Expected: expected, Actual: actual, Evidence: evidence}
	}
	var reqs = map[string]*harness.Requirement{}
	for _, r := range harness.Requirements {
		reqs[r.ID] = r
	}
	return []*harness.Result{{
		Scenario: "create-update-delete", Description: "The life of one resource",
		Source: "http://127.0.0.1:8080/.well-known/resourcesync", Dir: "/tmp/destination",
		Command: []string{"my-destination", "--source", "{source}", "--dir", "{dir}"}, Duration: 1.2,
		Steps: []harness.StepResult{
			{Step: 0, Name: "initial state", Time: t0, Checkpoint: true, Ran: true, Run: run, Verdicts: []harness.Verdict{
				v(reqs["DEST-RUN"], harness.Pass, "exit 0 within 5m0s", "exit 0 in 0.3s"),
				v(reqs["DEST-PRESENT"], harness.Fail, "10 resources present", "1 missing: /res/0000003.txt", "GET /res/0000003.txt 404 never asked"),
				v(reqs["DEST-NO-REFETCH"], harness.Skip, "no download of a resource held unchanged", "nothing held before this run"),
			}},
			{Step: 1, Name: "update res 2", Time: t0.Add(time.Hour), Checkpoint: true, Ran: true, Run: run, Verdicts: []harness.Verdict{
				v(reqs["DEST-RUN"], harness.Pass, "exit 0 within 5m0s", "exit 0 in 0.3s"),
				v(reqs["DEST-PRESENT"], harness.Pass, "10 resources present", "10 present"),
				v(reqs["DEST-NO-REFETCH"], harness.Fail, "no download of a resource held unchanged", "downloaded again: /res/0000001.txt", "GET /res/0000001.txt 200"),
			}},
		},
	}}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestScreenshotStale(t *testing.T) {
	picture := func(w, h, changed int) []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img.Set(x, y, color.White)
			}
		}
		for i := 0; i < changed; i++ {
			img.Set(i%w, i/w, color.Black)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	committed := picture(100, 100, 0)
	for _, c := range []struct {
		name  string
		got   []byte
		stale bool
	}{
		{"the same bytes", committed, false},
		{"the same", picture(100, 100, 0), false},
		{"a few words changed (the mock's port)", picture(100, 100, 150), false},
		{"22 px taller", picture(100, 122, 0), true},
		{"a part of the page redrawn", picture(100, 100, 2500), true},
	} {
		stale, err := screenshotStale(c.got, committed)
		if err != nil {
			t.Fatal(err)
		}
		if (stale != "") != c.stale {
			t.Errorf("%s: stale %q, want stale %v", c.name, stale, c.stale)
		}
	}
	if _, err := screenshotStale([]byte("not a png"), committed); err == nil {
		t.Error("a broken screenshot is an error")
	}
	if _, err := screenshotStale([]byte("not a png"), []byte("not a png")); err == nil {
		t.Error("a broken screenshot is an error, even the same as the committed one")
	}
	if _, err := screenshotStale(committed, []byte("not a png")); err == nil {
		t.Error("a broken committed screenshot is an error")
	}
}
