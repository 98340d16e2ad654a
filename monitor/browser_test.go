package monitor_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/chromium"
	"github.com/rsconform/rsconform/monitor"
)

// The dashboard as a browser shows it: three Sources of the mock (one that
// conforms, one with errors, one that stopped answering), the Sources
// page, a Source's page with its trend and runs, the run's report it
// links to, and the badge, each checked in the DOM Chromium built.
var _ = Describe("The monitor's dashboard in a browser", Label("browser"), Ordered, func() {
	var (
		b     *chromium.Browser
		dir   string
		home  string
		store *monitor.Store
		bad   []monitor.Run
		mocks = map[string]string{}
	)

	BeforeAll(func() {
		path := chromium.Find()
		if why, fail := chromium.Missing(path, os.Getenv); fail {
			Fail(why)
		} else if why != "" {
			Skip(why)
		}
		dir = GinkgoT().TempDir()
		// Chromium starts while the monitor crawls the mock Sources.
		bctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		type started struct {
			b   *chromium.Browser
			err error
		}
		browser := make(chan started, 1)
		go func() {
			b, err := chromium.Start(bctx, path, filepath.Join(dir, "profile"))
			browser <- started{b, err}
			close(browser)
		}()
		// A browser started for a BeforeAll that failed before taking it.
		DeferCleanup(func() {
			if st, ok := <-browser; ok && st.b != nil {
				st.b.Close()
			}
		})

		good, wrong, gone := mockServer("baseline-resourcelist"), mockServer("wrong-hash"), mockServer("baseline-resourcelist")
		mocks["good"], mocks["bad"], mocks["gone"] = good.URL+"/", wrong.URL+"/", gone.URL+"/"
		store, _ = openStore()
		m, err := monitor.New(monitor.Config{Store: store, KeepReports: 2, Sources: []monitor.Source{
			source("good", mocks["good"], time.Hour), source("bad", mocks["bad"], time.Hour), source("gone", mocks["gone"], time.Hour)}})
		Expect(err).NotTo(HaveOccurred())
		ctx := context.Background()
		for i := 0; i < 3; i++ {
			if i == 2 {
				gone.Close()
			}
			for _, res := range m.RunOnce(ctx) {
				if res.Run.Status != monitor.StatusUnreachable {
					Expect(res.Err).NotTo(HaveOccurred())
				}
			}
		}
		bad, err = store.Runs(ctx, "bad", 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(HaveLen(3))
		Expect(bad[0].Errors).To(BeNumerically(">", 0))

		dash := httptest.NewServer(monitor.Dashboard(store, "test"))
		DeferCleanup(dash.Close)
		home = dash.URL + "/"

		st := <-browser
		Expect(st.err).NotTo(HaveOccurred())
		b = st.b
		DeferCleanup(b.Close)
	})

	AfterEach(func() {
		if b != nil {
			Expect(b.Errors).To(BeEmpty(), "console errors")
		}
	})

	screenshot := func(name string) {
		path := filepath.Join(dir, name)
		Expect(b.Screenshot(path)).To(Succeed())
		AddReportEntry("screenshot", path)
	}

	It("lists the Sources with their status, counts and trend", func() {
		Expect(b.Navigate(home)).To(Succeed())
		type row struct {
			Href, URL, Status, Class, Last, Errors, Runs string
			Trend                                        string
		}
		var page struct {
			Title, Watched string
			Rows           map[string]row
		}
		Expect(b.Eval(`({Title: document.title, Watched: document.getElementById('watched').firstChild.textContent, Rows: Object.fromEntries(
			[...document.querySelectorAll('#sources tbody tr')].map(tr => { const td = tr.cells; return [tr.id, {
			  Href: td[0].querySelector('a').href, URL: td[0].querySelector('.loc').textContent,
			  Status: td[1].textContent, Class: td[1].className,
			  Last: td[2].querySelector('a') ? td[2].querySelector('a').href : '',
			  Errors: td[3].textContent, Runs: td[7].textContent,
			  Trend: td[8].querySelector('svg.trend') ? td[8].querySelector('svg.trend').getAttribute('aria-label') : ''}]; }))})`, &page)).To(Succeed())
		Expect(page.Title).To(Equal("rsconform monitor"))
		Expect(page.Watched).To(Equal("3 Sources watched. "))
		Expect(page.Rows).To(HaveLen(3))
		good, bd, gone := page.Rows["source-good"], page.Rows["source-bad"], page.Rows["source-gone"]
		Expect(good.Href).To(Equal(home + "sources/good"))
		Expect(good.URL).To(Equal(mocks["good"]))
		Expect([]string{good.Status, good.Class, good.Errors, good.Runs}).To(Equal([]string{"conforms", "pass", "0", "3"}))
		Expect(good.Trend).To(Equal("errors over the last 3 runs: 0, 0, 0"))

		n := strconv.Itoa(bad[0].Errors)
		Expect([]string{bd.Status, bd.Class, bd.Errors, bd.Runs}).To(Equal([]string{n + " errors", "fail", n, "3"}))
		Expect(bd.Last).To(Equal(fmt.Sprintf("%sruns/%d/report.html", home, bad[0].ID)))
		Expect(bd.Trend).To(Equal(fmt.Sprintf("errors over the last 3 runs: %s, %s, %s", n, n, n)))

		Expect([]string{gone.Status, gone.Class, gone.Runs}).To(Equal([]string{"unreachable", "skip", "3"}))
		goneRuns, err := store.Runs(context.Background(), "gone", 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(gone.Last).To(Equal(fmt.Sprintf("%sruns/%d/report.html", home, goneRuns[0].ID)), "the report says why")
		Expect(gone.Trend).To(Equal("errors over the last 2 runs: 0, 0"), "the trend counts complete runs only")

		dom, err := b.DOM()
		Expect(err).NotTo(HaveOccurred())
		Expect(dom).To(ContainSubstring(`<svg class="trend"`))
		screenshot("monitor-sources.png")
	})

	It("shows a Source's runs, its trend and badge, and links each kept run to its stored report", func() {
		Expect(b.Navigate(home)).To(Succeed())
		Expect(b.Submit(`document.querySelector('#source-bad a[href="sources/bad"]').click()`)).To(Succeed())
		var page struct {
			Title, Trend, Changes string
			Runs                  []struct{ ID, Status, Errors, HTML, JSON, Report string }
			Badge                 struct{ Href, Title string }
		}
		Expect(b.Eval(`({Title: document.title, Changes: document.querySelector('h2').nextElementSibling.textContent,
			Badge: {Href: document.getElementById('badge').href, Title: document.querySelector('#badge svg title').textContent},
			Trend: document.querySelector('svg.trend') ? document.querySelector('svg.trend').getAttribute('aria-label') : '',
			Runs: [...document.querySelectorAll('#runs tbody tr')].map(tr => { const td = tr.cells, a = td[11].querySelectorAll('a');
			  return {ID: td[0].textContent, Status: td[3].textContent, Errors: td[7].textContent,
			    HTML: a.length ? a[0].href : '', JSON: a.length ? a[1].href : '', Report: td[11].textContent}; })})`, &page)).To(Succeed())
		Expect(page.Title).To(Equal("rsconform monitor: bad"))
		n := strconv.Itoa(bad[0].Errors)
		Expect(page.Trend).To(Equal(fmt.Sprintf("errors over the last 3 runs: %s, %s, %s", n, n, n)))
		Expect(page.Changes).To(Equal("Nothing new, nothing fixed."), "the last run found what the one before did")
		Expect(page.Badge.Href).To(Equal(home + "badge/bad.svg"))
		Expect(page.Badge.Title).To(Equal("ResourceSync: " + n + " errors"))
		Expect(page.Runs).To(HaveLen(3))
		for i, run := range page.Runs {
			Expect(run.ID).To(Equal(strconv.FormatInt(bad[i].ID, 10)))
			Expect(run.Status).To(Equal("ok"))
			Expect(run.Errors).To(Equal(n))
			if i < 2 {
				Expect(run.HTML).To(Equal(fmt.Sprintf("%sruns/%d/report.html", home, bad[i].ID)))
				Expect(run.JSON).To(Equal(fmt.Sprintf("%sruns/%d/report.json", home, bad[i].ID)))
			} else {
				Expect(run.HTML).To(BeEmpty(), "KeepReports: 2")
				Expect(run.Report).To(Equal("not kept: older than the last 2 runs of its Source, which keep their full reports (--keep-reports 2)"))
			}
		}
		screenshot("monitor-source.png")

		// The newest run's link opens the report the store kept.
		Expect(b.Submit(fmt.Sprintf(`document.querySelector('#run-%d a[href$="report.html"]').click()`, bad[0].ID))).To(Succeed())
		var report struct {
			URL, Title string
			Hash       int
		}
		Expect(b.Eval(`({URL: location.href, Title: document.title,
			Hash: document.querySelectorAll('li.finding[data-rule="RS-REP-HASH"]').length})`, &report)).To(Succeed())
		Expect(report.URL).To(Equal(page.Runs[0].HTML))
		Expect(report.Title).To(HavePrefix(fmt.Sprintf("bad, run %d (", bad[0].ID)))
		Expect(report.Hash).To(BeNumerically(">", 0))
		stored, err := store.Report(context.Background(), bad[0].ID, "html")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(stored)).To(ContainSubstring("<title>" + report.Title + "</title>"))
	})

	It("draws the badge", func() {
		for name, want := range map[string]string{"good": "conforms", "bad": strconv.Itoa(bad[0].Errors) + " errors", "gone": "unreachable"} {
			Expect(b.Navigate(home + "badge/" + name + ".svg")).To(Succeed())
			var badge struct {
				Root, Text string
				Width      float64
			}
			Expect(b.Eval(`({Root: document.documentElement.localName, Text: document.querySelector('title').textContent,
				Width: document.documentElement.getBBox().width})`, &badge)).To(Succeed())
			Expect(badge.Root).To(Equal("svg"))
			Expect(badge.Text).To(Equal("ResourceSync: " + want))
			Expect(badge.Width).To(BeNumerically(">", 0), "drawn")
			if name == "bad" {
				screenshot("monitor-badge.png")
			}
		}
	})
})
