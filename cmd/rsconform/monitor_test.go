package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/monitor"
	"github.com/rsconform/rsconform/sourcehttp"
)

var _ = Describe("monitor", func() {
	// mockFromFile serves the scenario of testdata/NAME.yaml on 127.0.0.1.
	serveScenario := func(sc *scenario.Scenario) (*mocksource.Source, *httptest.Server) {
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(src.Handler())
		DeferCleanup(srv.Close)
		return src, srv
	}
	// entry is the mock's Source Description: at "/" the mock answers 404,
	// which a crawl asks again after the default back-off (500 ms) before
	// it discovers, a wait per run that these specs do not test.
	entry := func(srv *httptest.Server) string { return srv.URL + "/.well-known/resourcesync" }
	mockFromFile := func(name string) (*mocksource.Source, *httptest.Server) {
		data, err := os.ReadFile(filepath.Join("testdata", name+".yaml"))
		Expect(err).NotTo(HaveOccurred())
		sc, err := scenario.Parse(name+".yaml", data)
		Expect(err).NotTo(HaveOccurred())
		return serveScenario(sc)
	}
	writeFile := func(dir, name, text string) string {
		p := filepath.Join(dir, name)
		Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
		return p
	}
	monitorRun := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		code := run(ctx, append([]string{"monitor"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	// monitorRunOn is monitorRun with the monitor on clock: the crawls'
	// back-off waits on it instead of the wall clock.
	monitorRunOn := func(clock sourcehttp.Clock, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := monitorConfigFromFlags(args, &errb)
		Expect(err).NotTo(HaveOccurred())
		c.monitor.Clock = clock
		code := c.run(ctx, &out, &errb)
		return code, out.String(), errb.String()
	}
	get := func(base, path string) (int, string) {
		resp, err := http.Get(base + path)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, string(b)
	}

	It("exits 0, 1, 0 as a Source is clean, gains a wrong hash, is fixed; alerts once; the dashboard, badge and API show the three runs", func() {
		src, srv := mockFromFile("monitor-regression")
		dir := GinkgoT().TempDir()
		sources := writeFile(dir, "sources.yaml", fmt.Sprintf("sources:\n  - name: demo\n    url: %s\n    sample: all\n    rate: 0\n", entry(srv)))
		db := filepath.Join(dir, "monitor.db")
		alerts := filepath.Join(dir, "alerts")
		Expect(os.Mkdir(alerts, 0o755)).To(Succeed())
		alertCmd := "cat > " + alerts + "/$$.json"
		args := []string{"--sources", sources, "--db", db, "--once", "--alert-command", alertCmd}

		code, out, errs := monitorRun(args...)
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(Equal("demo: run 1 (0 errors, 0 warnings): first run: 0 findings recorded as the baseline\n"), errs)

		_, err := src.Step()
		Expect(err).NotTo(HaveOccurred())
		code, out, errs = monitorRun(args...)
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(MatchRegexp(`^demo: run 2 \([1-9]\d* errors?, 0 warnings\): new: [1-9]\d* \(RS-REP-HASH error in %s/dataset1/[a-z]+\.xml.*\), fixed: 0\n$`, srv.URL), errs)

		_, err = src.Step()
		Expect(err).NotTo(HaveOccurred())
		code, out, errs = monitorRun(args...)
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(MatchRegexp(`^demo: run 3 \(0 errors, 0 warnings\): new: 0, fixed: [1-9]\d* \(RS-REP-HASH error in .*\)\n$`), errs)

		// One alert, of the run that found the wrong hash.
		files, err := filepath.Glob(filepath.Join(alerts, "*.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(1))
		data, err := os.ReadFile(files[0])
		Expect(err).NotTo(HaveOccurred())
		var alert monitor.Alert
		Expect(json.Unmarshal(data, &alert)).To(Succeed(), string(data))
		Expect(alert.Source).To(Equal("demo"))
		Expect(alert.Run).To(BeEquivalentTo(2))
		Expect(alert.New).NotTo(BeEmpty())
		for _, f := range alert.New {
			Expect(f.Rule).To(Equal("RS-REP-HASH"), string(data))
			Expect(f.Example).To(ContainSubstring(srv.URL+"/res/0000003.txt"), string(data))
		}

		// The dashboard, on the database the monitor wrote.
		store, err := monitor.OpenReadOnly(context.Background(), db)
		Expect(err).NotTo(HaveOccurred())
		defer store.Close()
		dash := httptest.NewServer(monitor.Dashboard(store, "test"))
		defer dash.Close()
		status, page := get(dash.URL, "/")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring(`<a href="sources/demo">demo</a>`))
		Expect(page).To(ContainSubstring("conforms"))
		Expect(page).To(ContainSubstring(`<svg class="trend"`))
		status, page = get(dash.URL, "/sources/demo")
		Expect(status).To(Equal(200))
		for id := 1; id <= 3; id++ {
			Expect(page).To(ContainSubstring(fmt.Sprintf(`<tr id="run-%d">`, id)))
			Expect(page).To(ContainSubstring(fmt.Sprintf(`href="../runs/%d/report.html"`, id)))
		}
		status, page = get(dash.URL, "/runs/2/report.html")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring("RS-REP-HASH"))
		Expect(page).To(ContainSubstring("/res/0000003.txt"))
		status, page = get(dash.URL, "/runs/2/report.json")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring(`"rule": "RS-REP-HASH"`))
		status, page = get(dash.URL, "/badge/demo.svg")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring(">conforms</text>"))
		status, page = get(dash.URL, "/api/sources")
		Expect(status).To(Equal(200))
		var api struct {
			Sources []monitor.SourceSummary `json:"sources"`
		}
		Expect(json.Unmarshal([]byte(page), &api)).To(Succeed())
		Expect(api.Sources).To(HaveLen(1))
		Expect(api.Sources[0].Runs).To(Equal(3))
		Expect(api.Sources[0].Trend).To(HaveLen(3))
		Expect(api.Sources[0].Trend[0]).To(Equal(0))
		Expect(api.Sources[0].Trend[1]).To(BeNumerically(">", 0))
		Expect(api.Sources[0].Trend[2]).To(Equal(0))
		status, page = get(dash.URL, "/api/sources/demo/runs")
		Expect(status).To(Equal(200))
		var runs struct {
			Runs []monitor.Run `json:"runs"`
		}
		Expect(json.Unmarshal([]byte(page), &runs)).To(Succeed())
		Expect(runs.Runs).To(HaveLen(3))
		Expect(runs.Runs[0].ID).To(BeEquivalentTo(3))
		Expect(runs.Runs[1].NewErrors).To(BeNumerically(">", 0))
		Expect(runs.Runs[0].Fixed).To(BeNumerically(">", 0))
		for _, r := range runs.Runs {
			Expect(r.Status).To(Equal(monitor.StatusOK))
			Expect(r.Requests).To(BeNumerically(">", 0))
			Expect(r.Resources).To(BeNumerically(">", 0))
		}
		status, _ = get(dash.URL, "/badge/nobody.svg")
		Expect(status).To(Equal(404))
	})

	It("takes a first run's findings as the baseline (no alert); a Source never reached is no new error but exit 2", func() {
		src, srv := mockFromFile("monitor-regression")
		_, err := src.Step() // a wrong hash from the start
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		sources := writeFile(dir, "sources.yaml", fmt.Sprintf("sources:\n  - name: demo\n    url: %s\n    sample: all\n    rate: 0\n"+
			"  - name: gone\n    url: http://127.0.0.1:1/\n    rate: 0\n", entry(srv)))
		alerts := filepath.Join(dir, "alerts")
		Expect(os.Mkdir(alerts, 0o755)).To(Succeed())
		args := []string{"--sources", sources, "--db", filepath.Join(dir, "monitor.db"), "--once", "--alert-command", "cat > " + alerts + "/$$.json"}
		// gone's connection is refused, and asked again after the
		// back-off: on a step clock, which does not wait.
		clock := sourcehttp.NewStepClock(time.Now())
		code, out, errs := monitorRunOn(clock, args...)
		Expect(code).To(Equal(2), out+errs)
		Expect(out).To(MatchRegexp(`^demo: run \d \([1-9]\d* errors?, 0 warnings\): first run: [1-9]\d* findings? recorded as the baseline\n`+
			`gone: run \d \(unreachable: .*\): new: 0, fixed: 0\n$`), errs)
		Expect(errs).To(ContainSubstring("gone: never reached"))
		Expect(clock.Waits()).To(ContainElement(sourcehttp.DefaultBackoff), "gone asked again after the back-off")
		code, out, errs = monitorRunOn(clock, args...)
		Expect(code).To(Equal(2), out+errs)
		Expect(out).To(MatchRegexp(`^demo: run \d \([1-9]\d* errors?, 0 warnings\): new: 0, fixed: 0\n`), errs)
		files, err := filepath.Glob(filepath.Join(alerts, "*.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(BeEmpty())
	})

	It("keeps --max-findings-per-rule findings of a rule per document, or the Source's max_findings_per_rule", func() {
		sc, err := scenario.Load("time-zone-offsets")
		Expect(err).NotTo(HaveOccurred())
		src, srv := serveScenario(sc)
		Expect(src.PlayToEnd()).To(Succeed())
		dir := GinkgoT().TempDir()
		sources := writeFile(dir, "sources.yaml", fmt.Sprintf("sources:\n  - name: capped\n    url: %s\n    rate: 0\n"+
			"  - name: all\n    url: %s\n    rate: 0\n    max_findings_per_rule: 0\n", entry(srv), entry(srv)))
		db := filepath.Join(dir, "monitor.db")
		code, out, errs := monitorRun("--sources", sources, "--db", db, "--once", "--max-findings-per-rule", "2")
		Expect(code).To(Equal(0), out+errs)
		store, err := monitor.OpenReadOnly(context.Background(), db)
		Expect(err).NotTo(HaveOccurred())
		defer store.Close()
		kept := map[string]int{}
		for _, name := range []string{"capped", "all"} {
			runs, err := store.Runs(context.Background(), name, 1)
			Expect(err).NotTo(HaveOccurred())
			fs, err := store.Findings(context.Background(), runs[0].ID)
			Expect(err).NotTo(HaveOccurred())
			for _, f := range fs {
				if f.Rule == "RS-TIME-UTC" && strings.HasSuffix(f.Document, "/changelist.xml") {
					kept[name] += f.Count
				}
			}
			om, err := store.OmittedOf(context.Background(), runs[0].ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(om != nil).To(Equal(name == "capped"), "%s: %v", name, om)
		}
		Expect(kept["capped"]).To(Equal(2))
		Expect(kept["all"]).To(BeNumerically(">", 2))
	})

	It("runs as a service with a dashboard until it is stopped (exit 0)", func() {
		_, srv := mockFromFile("monitor-regression")
		dir := GinkgoT().TempDir()
		sources := writeFile(dir, "sources.yaml", fmt.Sprintf("sources:\n  - name: demo\n    url: %s/\n    every: 1h\n    rate: 0\n", srv.URL))
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		var out, errb syncBuffer
		code := make(chan int, 1)
		go func() {
			code <- run(ctx, []string{"monitor", "--sources", sources, "--db", filepath.Join(dir, "m.db"), "--addr", "127.0.0.1:0"}, &out, &errb)
		}()
		var base string
		Eventually(func() string {
			if m := regexp.MustCompile(`the dashboard is at (http://\S+)/`).FindStringSubmatch(errb.String()); m != nil {
				base = m[1]
			}
			return base
		}, 10*time.Second).ShouldNot(BeEmpty())
		status, page := get(base, "/")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring(`<a href="sources/demo">demo</a>`), "a Source is listed before its first run")
		status, _ = get(base, "/sources/demo")
		Expect(status).To(Equal(200))
		status, page = get(base, "/badge/demo.svg")
		Expect(status).To(Equal(200))
		Expect(page).To(Or(ContainSubstring(">no run yet</text>"), ContainSubstring(">conforms</text>")))
		status, page = get(base, "/api/sources")
		Expect(status).To(Equal(200))
		Expect(page).To(ContainSubstring(`"name": "demo"`))
		status, _ = get(base, "/api/sources/demo/runs")
		Expect(status).To(Equal(200), "a Source with no run yet has an empty list")
		status, _ = get(base, "/api/sources/nobody/runs")
		Expect(status).To(Equal(404))
		stop() // as SIGTERM does
		Eventually(code, 40*time.Second).Should(Receive(Equal(0)))
		Expect(errb.String()).To(ContainSubstring("rsconform monitor: stopped"))
	})

	It("reads the README's Sources file", func() {
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		writeFile(dir, "repo17-token.txt", "Authorization: Bearer x\n")
		sources, err := readSourcesFile(writeFile(dir, "sources.yaml", readmeBlock(string(readme), "### Monitor many Sources", "yaml")))
		Expect(err).NotTo(HaveOccurred())
		Expect(sources).To(HaveLen(2))
		Expect(sources[0].Every).To(Equal(6 * time.Hour))
		Expect(sources[1].Spec).To(Equal("1.0"))
		Expect(sources[1].Header.Header().Get("Authorization")).To(Equal("Bearer x"))
		Expect(sources[1].AllowHost).To(Equal([]string{"cdn.example.edu"}))
	})

	It("refuses a Sources file it would not read whole, before reading it", func() {
		_, err := readSourcesFile(os.DevNull)
		Expect(err).To(MatchError(os.DevNull + ": the Sources file is a character device, not a regular file: refused"))
		big := filepath.Join(GinkgoT().TempDir(), "sources.yaml")
		Expect(os.WriteFile(big, []byte("sources:\n"), 0o644)).To(Succeed())
		Expect(os.Truncate(big, monitor.MaxSourcesFileBytes+1)).To(Succeed())
		_, err = readSourcesFile(big)
		Expect(err).To(MatchError(big + ": the Sources file is larger than 16 MiB, more than any Sources file needs: refused"))
	})

	DescribeTable("refuses a bad Sources file with exit 2, naming the key",
		func(text, want string) {
			dir := GinkgoT().TempDir()
			sources := writeFile(dir, "sources.yaml", text)
			code, out, errs := monitorRun("--sources", sources, "--db", filepath.Join(dir, "m.db"), "--once")
			Expect(code).To(Equal(2), out+errs)
			Expect(errs).To(ContainSubstring(want))
			Expect(filepath.Join(dir, "m.db")).NotTo(BeAnExistingFile(), "a bad file opened the database")
		},
		Entry("an unknown key", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    evry: 1h\n", `sources.yaml:4: Source "a": evry: unknown key "evry" (did you mean "every"?)`),
		Entry("a bad duration", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    every: soon\n", `sources.yaml:4: Source "a": every: time: invalid duration "soon"`),
		Entry("a period too short", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    every: 1s\n", `every: want at least 1m`),
		Entry("a negative rate", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    rate: -1\n", `rate: want a number of requests per second`),
		Entry("a bad sample", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    sample: some\n", `sample: "some": want a number of resources per list, all or 0`),
		Entry("a bad spec", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    spec: \"2.0\"\n", `spec: "2.0": want 1.1 or 1.0`),
		Entry("no url", "sources:\n  - name: a\n", `sources.yaml:2: Source "a": url: missing`),
		Entry("a negative cap", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    max_findings_per_rule: -1\n",
			`max_findings_per_rule: "-1": want a number of findings, 0 or more`),
		Entry("not a URL", "sources:\n  - name: a\n    url: ftp://x/\n", `url: "ftp://x/" is not an http(s) URL`),
		Entry("a name that is no path segment", "sources:\n  - name: a/b\n    url: http://127.0.0.1:1/\n", `name: "a/b": want letters`),
		Entry("two Sources of one name", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n  - name: a\n    url: http://127.0.0.1:2/\n", `sources[1]: name: "a" is already the name of the Source at line 2`),
		Entry("a missing header file", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n    header_file: nothere.txt\n", `header_file:`),
		Entry("an unknown top-level key", "source:\n  - name: a\n", `sources.yaml:1: unknown key "source" (did you mean "sources"?)`),
		Entry("no Sources", "sources: []\n", `sources: want a list of Sources`),
	)

	It("refuses a second monitor on the same database (exit 2), and leaves it whole", func() {
		dir := GinkgoT().TempDir()
		db := filepath.Join(dir, "monitor.db")
		store, err := monitor.Open(context.Background(), db)
		Expect(err).NotTo(HaveOccurred())
		defer store.Close()
		sources := writeFile(dir, "sources.yaml", "sources:\n  - name: a\n    url: http://127.0.0.1:1/\n")
		code, out, errs := monitorRun("--sources", sources, "--db", db, "--once")
		Expect(code).To(Equal(2), out+errs)
		Expect(errs).To(ContainSubstring("another rsconform monitor uses this database"))
	})

	It("loses only the run in progress to a kill -9: the next start records it as interrupted, and goes on", func() {
		sc, err := scenario.Load("baseline-resourcelist")
		Expect(err).NotTo(HaveOccurred())
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		// Resources hang while blocked is set: the second run stays in
		// progress until it is killed.
		var mu sync.Mutex
		blocked := false
		arrived := make(chan struct{}, 100)
		release := make(chan struct{})
		h := src.Handler()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			b := blocked
			mu.Unlock()
			if b && strings.HasPrefix(r.URL.Path, "/res/") {
				arrived <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			h.ServeHTTP(w, r)
		}))
		defer srv.Close()
		defer close(release)
		dir := GinkgoT().TempDir()
		sources := writeFile(dir, "sources.yaml", fmt.Sprintf("sources:\n  - name: demo\n    url: %s\n    rate: 0\n", entry(srv)))
		db := filepath.Join(dir, "monitor.db")

		code, out, errs := monitorRun("--sources", sources, "--db", db, "--once")
		Expect(code).To(Equal(0), out+errs)

		mu.Lock()
		blocked = true
		mu.Unlock()
		cmd := exec.Command(os.Args[0], "monitor", "--sources", sources, "--db", db, "--once")
		cmd.Env = append(os.Environ(), "RSCONFORM_TEST_MAIN=1", "NO_COLOR=1")
		var childOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &childOut, &childOut
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill() })
		Eventually(arrived, 30*time.Second).Should(Receive(), "the crawl never reached a resource: %s", &childOut)
		Expect(cmd.Process.Kill()).To(Succeed()) // SIGKILL
		_ = cmd.Wait()
		mu.Lock()
		blocked = false
		mu.Unlock()

		code, out, errs = monitorRun("--sources", sources, "--db", db, "--once")
		Expect(code).To(Equal(0), out+errs)
		Expect(errs).To(ContainSubstring("1 run left in progress by a monitor that stopped: recorded as interrupted"))
		Expect(out).To(Equal("demo: run 3 (0 errors, 0 warnings): new: 0, fixed: 0\n"))

		store, err := monitor.OpenReadOnly(context.Background(), db)
		Expect(err).NotTo(HaveOccurred())
		defer store.Close()
		runs, err := store.Runs(context.Background(), "demo", 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(runs).To(HaveLen(3))
		Expect(runs[2].Status).To(Equal(monitor.StatusOK))
		Expect(runs[1].Status).To(Equal(monitor.StatusInterrupted))
		Expect(runs[0].Status).To(Equal(monitor.StatusOK))
		Expect(runs[0].Baseline).To(Equal(runs[2].ID), "the new run is compared with the last complete one")
	})
})
