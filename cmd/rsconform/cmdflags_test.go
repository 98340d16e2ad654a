package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

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
})
