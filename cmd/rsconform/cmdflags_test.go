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
			Expect(c.inputs).To(Equal([]input{{name: filepath.Join("site", "a.xml"), walked: true}}))
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
})
