package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/internal/inputs"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
)

// The FromFlags functions, tested on the config value they return,
// without running the command.
var _ = Describe("Configs from flags", func() {
	It("end on --help with the help, and on a bad flag with a usage error", func() {
		_, err := crawlConfigFromFlags([]string{"--help"}, io.Discard)
		var help helpText
		Expect(err).To(BeAssignableToTypeOf(help))
		Expect(string(err.(helpText))).To(And(HavePrefix("Usage: rsconform crawl"), ContainSubstring("\n  -max-documents N\n")))
		var out, errs bytes.Buffer
		Expect(flagsExit(err, &out, &errs)).To(Equal(0))
		Expect(out.String()).To(Equal(string(err.(helpText))))

		var flagErrs bytes.Buffer
		_, err = crawlConfigFromFlags([]string{"--max-document", "3", "http://example.com/"}, &flagErrs)
		Expect(err).To(MatchError("rsconform crawl: see --help"))
		Expect(flagErrs.String()).To(ContainSubstring("did you mean --max-documents?"))
		out.Reset()
		errs.Reset()
		Expect(flagsExit(err, &out, &errs)).To(Equal(2))
		Expect(out.String()).To(BeEmpty())
		Expect(errs.String()).To(Equal("rsconform crawl: see --help\n"))
	})

	Context("crawl", func() {
		It("fills the defaults: an entry point, crawler options and HTTP settings", func() {
			c, err := crawlConfigFromFlags([]string{"http://example.com/", "--sample", "all"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.entry).To(Equal("http://example.com/"))
			Expect(c.mock).To(BeFalse())
			o := c.options
			Expect(o.MaxDocuments).To(Equal(1000))
			Expect(o.Sample).To(Equal(crawler.SampleAll))
			Expect(o.SampleSet).To(BeTrue())
			Expect(o.HTTP.Rate).To(Equal(float64(sourcehttp.DefaultRate)))
			Expect(o.HTTP.Timeout).To(Equal(sourcehttp.DefaultTimeout))
			Expect(o.HTTP.UserAgent).To(HavePrefix("rsconform/"))
			Expect(c.engine.Spec).To(Equal(engine.Spec11))
			Expect(c.engine.Limits.MaxEntries).To(Equal(50000))
		})

		It("does not rate-limit the in-process mock unless --rate is given", func() {
			c, err := crawlConfigFromFlags([]string{"--mock"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.entry).To(BeEmpty(), "set when the mock starts")
			Expect(c.scenario).To(Equal("showcase"))
			Expect(c.options.HTTP.Rate).To(BeZero())
			c, err = crawlConfigFromFlags([]string{"--mock", "--rate", "5"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.options.HTTP.Rate).To(Equal(5.0))
		})

		It("refuses flags that do not go together, before anything starts", func() {
			for _, args := range [][]string{
				{"--mock", "--state", "crawl.state"},
				{"--mock", "http://example.com/"},
				{"http://example.com/", "http://example.org/"},
				{"--mock", "--sample", "some"},
				{"--revisit", "-1s", "http://example.com/"},
			} {
				c, err := crawlConfigFromFlags(args, io.Discard)
				Expect(err).To(MatchError(HavePrefix("rsconform crawl: ")), "%q", args)
				Expect(c).To(BeNil())
			}
		})
	})

	Context("validate", func() {
		It("applies the configuration file and walks directories into inputs", func() {
			dir := GinkgoT().TempDir()
			wd, err := os.Getwd()
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(os.Chdir, wd)
			Expect(os.Chdir(dir)).To(Succeed())
			write(dir, ".rsconform.yaml", []byte("strict: true\nspec: \"1.0\"\n"))
			Expect(os.MkdirAll(filepath.Join(dir, "site", "drafts"), 0o755)).To(Succeed())
			write(dir, "site/a.xml", []byte(validRL))
			write(dir, "site/drafts/b.xml", []byte(validRL))
			c, err := validateConfigFromFlags([]string{"site", "--exclude", "drafts"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.report.failLevel).To(Equal("warning"), "strict from the file")
			Expect(c.engine.Spec).To(Equal(engine.Spec10))
			Expect(c.inputs).To(Equal([]inputs.Input{{Name: filepath.Join("site", "a.xml"), Walked: true, Size: int64(len(validRL))}}))
			Expect(c.client).To(BeNil(), "no URL given")

			c, err = validateConfigFromFlags([]string{"--allow-host", "cdn.example.com", "http://example.com/rl.xml"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.client).NotTo(BeNil())

			_, err = validateConfigFromFlags([]string{"site", "--exclude", "drafs"}, io.Discard)
			Expect(err).To(MatchError(ContainSubstring(`rsconform validate: --exclude "drafs" matches nothing`)))
			_, err = validateConfigFromFlags(nil, io.Discard)
			Expect(err).To(MatchError("rsconform validate: no PATH, URL or - given (see --help)"))
		})
	})
	Context("suite", func() {
		It("builds the source suite's config and Ginkgo's", func() {
			c, err := suiteConfigFromFlags([]string{"source", "--sample", "all", "--fail-level", "error",
				"--label-filter", "Level:MUST", "--junit-report", "j.xml", "--color", "never", "http://example.com/"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.which).To(Equal("source"))
			Expect(c.source.Entry).To(Equal("http://example.com/"))
			Expect(c.source.Sample).To(Equal(crawler.SampleAll))
			Expect(c.source.FailLevel).To(Equal(engine.SeverityError))
			Expect(c.source.HTTP.UserAgent).To(HavePrefix("rsconform/"))
			Expect(c.specs.LabelFilter).To(Equal("Level:MUST"))
			Expect(c.reporter.JUnitReport).To(Equal("j.xml"))
			Expect(c.reporter.NoColor).To(BeTrue())
		})

		It("gives the destination suite --timeout only when it is given", func() {
			c, err := suiteConfigFromFlags([]string{"destination", "--scenario", "wrong-hash,realtime", "--", "sync", "{source}", "{dir}"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.destination.Command).To(Equal([]string{"sync", "{source}", "{dir}"}))
			Expect(c.destination.Scenarios).To(Equal([]string{"wrong-hash", "realtime"}))
			Expect(c.destination.Timeout).To(BeZero(), "the suite's default")
			c, err = suiteConfigFromFlags([]string{"destination", "--timeout", "2m", "--", "sync"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.destination.Timeout).To(Equal(2 * time.Minute))
			Expect(c.destination.Scenarios).To(BeNil(), "all")
		})

		It("refuses a suite it does not have and a filter that selects nothing", func() {
			_, err := suiteConfigFromFlags([]string{"sorce", "http://example.com/"}, io.Discard)
			Expect(err).To(MatchError(`rsconform suite: unknown suite "sorce" (did you mean source?) (see --help)`))
			_, err = suiteConfigFromFlags([]string{"source", "--label-filter", "Levl:MUST", "http://example.com/"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix(`rsconform suite source: --label-filter "Levl:MUST" selects no spec`)))
			_, err = suiteConfigFromFlags([]string{"destination"}, io.Discard)
			Expect(err).To(MatchError("rsconform suite destination: give the Destination command after -- (see --help)"))
			_, err = suiteConfigFromFlags([]string{"help"}, io.Discard)
			Expect(err).To(BeAssignableToTypeOf(helpText("")))
		})
	})

	Context("test-destination", func() {
		It("loads the scenarios and fills the harness config", func() {
			c, err := testDestConfigFromFlags([]string{"--scenario", "wrong-hash, realtime", "--resources", "3", "--strict",
				"--rules", "DEST-*,-DEST-RATE", "--", "sync", "{source}", "{dir}"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.scenarios).To(HaveLen(2))
			Expect(c.scenarios[1].Name).To(Equal("realtime"))
			h := c.harness
			Expect(h.Command).To(Equal([]string{"sync", "{source}", "{dir}"}))
			Expect(h.Source.Resources).To(Equal(3))
			Expect(h.Timeout).To(Equal(5 * time.Minute))
			Expect(h.MaxRate).To(Equal(50.0))
			Expect(h.Select.Selects("DEST-FIXITY")).To(BeTrue())
			Expect(h.Select.Selects("DEST-RATE")).To(BeFalse())
			Expect(c.report.Strict).To(BeTrue())
			Expect(c.report.Version).NotTo(BeEmpty())
		})

		It("says to put the command after -- when its flag was taken for ours", func() {
			_, err := testDestConfigFromFlags([]string{"--scenario", "wrong-hash", "./harvester", "--out", "{dir}"}, io.Discard)
			Expect(err).To(MatchError(And(HavePrefix("rsconform test-destination: flag provided but not defined: -out (see --help)\n"),
				HaveSuffix("put the command after --: rsconform test-destination --scenario NAME -- CMD ARGS..."))))
			_, err = testDestConfigFromFlags([]string{"--scenario", "no-such-scenario", "--", "true"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix(`rsconform test-destination: scenario "no-such-scenario" is neither`)))
			_, err = testDestConfigFromFlags([]string{"--scenario", "wrong-hash", "--format", "xml", "--", "true"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix(`rsconform test-destination: unknown format "xml"`)))
		})
	})
	Context("mock", func() {
		It("loads the scenario, keeps an explicit --seed 0, and lists without loading one", func() {
			c, err := mockConfigFromFlags([]string{"--scenario", "create-update-delete", "--seed", "0", "--resources", "7"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.source.Scenario.Name).To(Equal("create-update-delete"))
			Expect(c.source.Scenario.Seed).To(BeZero(), "--seed 0 given: not the scenario's seed")
			Expect(c.source.Resources).To(Equal(7))
			Expect(c.addr).To(Equal("127.0.0.1:8080"))
			c, err = mockConfigFromFlags([]string{"--scenario", "create-update-delete"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.source.Scenario.Seed).NotTo(BeZero(), "the scenario's seed")

			c, err = mockConfigFromFlags([]string{"--list", "--scenario", "no-such-scenario"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.list).To(BeTrue())
			Expect(c.source.Scenario).To(BeNil())

			_, err = mockConfigFromFlags([]string{"--auto", "1s", "--realtime", "1s"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix("rsconform mock: --auto and --realtime exclude each other")))
			_, err = mockConfigFromFlags([]string{"extra"}, io.Discard)
			Expect(err).To(MatchError(`rsconform mock: unexpected argument "extra" (see --help)`))
		})
	})

	Context("sync", func() {
		It("fills the Destination's options, one mode at most", func() {
			c, err := syncConfigFromFlags([]string{"http://example.com/", "mirror", "--audit", "--map", "http://cdn.example.com/=cdn"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			o := c.options
			Expect(o.Source).To(Equal("http://example.com/"))
			Expect(o.Dir).To(Equal("mirror"))
			Expect(o.Mode).To(Equal(destination.ModeAudit))
			Expect(o.Maps).To(HaveLen(1))
			Expect(o.IndexName).To(Equal(destination.DefaultIndexName))
			Expect(o.PackageLimits.MaxBytes).To(Equal(int64(rs.DefaultMaxPackageBytes)))
			Expect(o.HTTP.UserAgent).To(HavePrefix("rsconform/"))
			Expect(c.format).To(Equal("text"))

			_, err = syncConfigFromFlags([]string{"--baseline", "--incremental", "http://example.com/", "mirror"}, io.Discard)
			Expect(err).To(MatchError("rsconform sync: --baseline, --incremental and --audit exclude each other"))
			var flagErrs bytes.Buffer
			_, err = syncConfigFromFlags([]string{"--baselin", "http://example.com/", "mirror"}, &flagErrs)
			Expect(err).To(MatchError("rsconform sync: flag provided but not defined: -baselin (did you mean --baseline?) (see --help)"))
			Expect(flagErrs.String()).To(BeEmpty(), "said once, in the usage error")
		})
	})

	Context("monitor", func() {
		It("reads the Sources file and refuses a dashboard with --once", func() {
			dir := GinkgoT().TempDir()
			file := write(dir, "sources.yaml", []byte("sources:\n  - name: demo\n    url: https://example.org/\n    sample: all\n"))
			c, err := monitorConfigFromFlags([]string{"--sources", file, "--once", "--webhook", "https://hooks.example.org/x"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.sources).To(HaveLen(1))
			Expect(c.sources[0].Sample).To(Equal(crawler.SampleAll))
			Expect(c.sources[0].Every).To(Equal(6 * time.Hour))
			Expect(c.monitor.MaxCrawls).To(Equal(4))
			Expect(c.monitor.Grace).To(Equal(30 * time.Second))
			Expect(c.webhook).To(Equal("https://hooks.example.org/x"))

			_, err = monitorConfigFromFlags([]string{"--sources", file, "--once", "--addr", "127.0.0.1:0"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix("rsconform monitor: --addr serves the dashboard")))
			_, err = monitorConfigFromFlags([]string{"--sources", file, "--webhook", "ftp://example.org/"}, io.Discard)
			Expect(err).To(MatchError(HavePrefix("rsconform monitor: --webhook: ")))
		})
	})

	It("serve: fills the web validator's options and refuses a limit that is not positive", func() {
		c, err := serveConfigFromFlags([]string{"--max-jobs", "8"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.web.MaxJobs).To(Equal(8))
		Expect(c.web.JobTimeout).To(Equal(time.Minute))
		Expect(c.web.Version).NotTo(BeEmpty())
		Expect(c.addr).To(Equal("127.0.0.1:8080"))
		_, err = serveConfigFromFlags([]string{"--max-body", "0"}, io.Discard)
		Expect(err).To(MatchError(HavePrefix("rsconform serve: --max-jobs, --max-body")))
		// --max-findings-per-rule as validate and crawl take it: the
		// engine's default, 0 keeping all.
		Expect(c.web.MaxFindingsPerRule).To(Equal(engine.DefaultMaxFindingsPerRule))
		c, err = serveConfigFromFlags([]string{"--max-findings-per-rule", "7"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.web.MaxFindingsPerRule).To(Equal(7))
		c, err = serveConfigFromFlags([]string{"--max-findings-per-rule", "0"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.web.MaxFindingsPerRule).To(BeNumerically("<", 0), "webui keeps all")
		_, err = serveConfigFromFlags([]string{"--max-findings-per-rule", "-1"}, io.Discard)
		Expect(err).To(MatchError(HavePrefix("rsconform serve: --max-findings-per-rule must not be negative")))
	})

	It("explain and rules: find what to explain or list", func() {
		c, err := explainConfigFromFlags([]string{"dest-fixity"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.rule).To(BeNil())
		Expect(c.requirement.ID).To(Equal("DEST-FIXITY"))
		c, err = explainConfigFromFlags([]string{"rs-cl-order"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.requirement).To(BeNil())
		Expect(c.rule.ID).To(Equal("RS-CL-ORDER"))
		_, err = explainConfigFromFlags([]string{"rs-cl-ordr"}, io.Discard)
		Expect(err).To(MatchError(ContainSubstring("(did you mean RS-CL-ORDER?)")))

		r, err := rulesConfigFromFlags([]string{"--spec", "1.0", "--rules", "RS-CL-*"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.spec).To(Equal(engine.Spec10))
		Expect(r.selector.Selects("RS-CL-ORDER")).To(BeTrue())
		Expect(r.selector.Selects("RS-RL-AT")).To(BeFalse())
	})
})
