package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/baseline"
)

// unsortedCL has two RS-CL-ORDER errors and one RS-TIME-UTC warning.
const unsortedCL = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
  <url><loc>http://example.com/res1</loc><rs:md change="updated" datetime="2013-01-03T18:00:00Z"/></url>
  <url><loc>http://example.com/res2</loc><rs:md change="updated" datetime="2013-01-03T13:00:00Z"/></url>
  <url><loc>http://example.com/res3</loc><rs:md change="updated" datetime="2013-01-03T19:00:00+02:00"/></url>
</urlset>
`

var _ = Describe("Configuration, baselines and fail levels", func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.Chdir, wd)
		Expect(os.MkdirAll(filepath.Join(dir, "site", "sub"), 0o755)).To(Succeed())
		Expect(os.Chdir(filepath.Join(dir, "site", "sub"))).To(Succeed())
		write(dir, "site/cl.xml", []byte(unsortedCL))
	})

	It("reads .rsconform.yaml from the working directory or above; flags win", func() {
		write(dir, ".rsconform.yaml", []byte("rules: [RS-TIME-*]\nfail-level: warning\n"))
		code, rep := jsonReport("../cl.xml")
		Expect(code).To(Equal(1), "the warning fails at fail-level warning")
		Expect(rep.Documents[0].Findings).To(HaveLen(1))
		Expect(rep.Documents[0].Findings[0].Rule).To(Equal("RS-TIME-UTC"))

		code, _ = jsonReport("--fail-level", "error", "../cl.xml")
		Expect(code).To(Equal(0), "the flag overrides the file")
	})

	It("takes --config, and refuses unknown keys with a suggestion", func() {
		write(dir, "other.yaml", []byte("rules: 'RS-CL-*'\n"))
		code, rep := jsonReport("--config", filepath.Join(dir, "other.yaml"), "../cl.xml")
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings).To(HaveLen(2))

		write(dir, ".rsconform.yaml", []byte("fail-levl: warning\n"))
		code, _, errs := cli("validate", "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`unknown key "fail-levl" (did you mean "fail-level"?)`))
	})

	It("reads spec: 1.0 unquoted as written", func() {
		write(dir, ".rsconform.yaml", []byte("spec: 1.0\n"))
		code, rep := jsonReport("../cl.xml")
		Expect(code).To(Equal(1))
		Expect(rep.Spec).To(Equal("1.0"))
	})

	DescribeTable("refuses a value of the wrong type, or a second document, naming the key and printing no report",
		func(config, want string) {
			write(dir, ".rsconform.yaml", []byte(config))
			code, out, errs := cli("validate", "../cl.xml")
			Expect(code).To(Equal(2))
			Expect(out).To(BeEmpty(), "no report")
			Expect(errs).To(ContainSubstring(want))
			Expect(errs).NotTo(ContainSubstring("secret"), "a header's value is never printed")
			Expect(filepath.Join(dir, "site", "sub", "a")).NotTo(BeAnExistingFile())
		},
		Entry("headers: a string", "headers: secret\n", ".rsconform.yaml:1: headers: want a mapping of header names to values"),
		Entry("header: no colon", "header: [secret]\n", ".rsconform.yaml:1: header: header #1: want 'Name: value'"),
		Entry("baseline: a list", "baseline: [a, b]\n", ".rsconform.yaml:1: baseline: want a single value, got a list"),
		Entry("strict: not a boolean", "strict: maybe\n", ".rsconform.yaml:1: strict:"),
		Entry("a second document", "spec: \"1.1\"\n---\nstrict: true\n", ".rsconform.yaml:2: a second YAML document"),
	)

	It("prints no report when --header is malformed", func() {
		code, out, errs := cli("validate", "--header", "secret", "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(out).To(BeEmpty())
		Expect(errs).To(ContainSubstring("--header #1: want 'Name: value'"))
	})

	It("writes a baseline, then fails only on new findings, whatever line they moved to", func() {
		base := filepath.Join(dir, "baseline.json")
		code, _, errs := cli("validate", "--baseline", base, "../cl.xml")
		Expect(code).To(Equal(0))
		Expect(errs).To(ContainSubstring("wrote 3 findings to the baseline"))
		var f baseline.File
		data, err := os.ReadFile(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(data, &f)).To(Succeed())
		Expect(f.Findings).To(ContainElement(HaveField("Count", 1)))
		Expect(string(data)).To(ContainSubstring("(line #)"), "line numbers in messages are not part of the key")

		// Two lines inserted above: the same findings, on other lines.
		shifted := strings.Replace(unsortedCL, "<rs:md capability", "\n\n<rs:md capability", 1)
		write(dir, "site/cl.xml", []byte(shifted))
		code, rep := jsonReport("--baseline", base, "../cl.xml")
		Expect(code).To(Equal(0))
		Expect(rep.Documents[0].Findings).To(BeEmpty())
		Expect(rep.Documents[0].Status).To(Equal("valid"))

		// One more out-of-order entry: one new finding.
		more := strings.Replace(shifted, "</urlset>", `  <url><loc>http://example.com/res4</loc><rs:md change="updated" datetime="2013-01-03T10:00:00Z"/></url>
</urlset>`, 1)
		write(dir, "site/cl.xml", []byte(more))
		code, rep = jsonReport("--baseline", base, "../cl.xml")
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings).To(HaveLen(1))
		Expect(rep.Documents[0].Findings[0].Rule).To(Equal("RS-CL-ORDER"))
	})

	It("keeps a finding per datetime: one more non-UTC datetime is new at its own line, the known one stays suppressed", func() {
		base := filepath.Join(dir, "baseline.json")
		code, _, errs := cli("validate", "--rules", "RS-TIME-UTC", "--baseline", base, "../cl.xml")
		Expect(code).To(Equal(0), errs)
		more := strings.Replace(unsortedCL, "</urlset>", `  <url><loc>http://example.com/res4</loc><rs:md change="updated" datetime="2013-01-03T20:00:00+01:00"/></url>
</urlset>`, 1)
		write(dir, "site/cl.xml", []byte(more))
		code, rep := jsonReport("--rules", "RS-TIME-UTC", "--fail-level", "warning", "--baseline", base, "../cl.xml")
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings).To(HaveLen(1))
		Expect(rep.Documents[0].Findings[0].Line).To(Equal(8), "the new datetime's line, not the known one's (7)")
		Expect(rep.Documents[0].Findings[0].Message).To(ContainSubstring("2013-01-03T20:00:00+01:00"))
	})

	It("accepts a known not-well-formed document without exit 2, and fails on a new problem in it", func() {
		base := filepath.Join(dir, "baseline.json")
		broken := "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>x</url></urlset>\n"
		write(dir, "site/bad.xml", []byte(broken))
		code, _ := jsonReport("../bad.xml")
		Expect(code).To(Equal(1), "without a baseline: its RS-XML-WELLFORMED error")

		code, _, errs := cli("validate", "--baseline", base, "../bad.xml")
		Expect(code).To(Equal(0), errs)
		Expect(errs).To(ContainSubstring("wrote 1 finding to the baseline"))
		code, rep := jsonReport("--baseline", base, "../bad.xml")
		Expect(code).To(Equal(0))
		Expect(rep.Documents[0].Status).To(Equal("skipped"))
		Expect(rep.Documents[0].Error).To(ContainSubstring("in the baseline"))
		Expect(rep.Documents[0].Error).To(ContainSubstring("not a well-formed XML document"))

		// Broken elsewhere: a new finding that fails.
		write(dir, "site/bad.xml", []byte(strings.Replace(broken, "<loc>x</url>", "<loc>x</loc></urlset>", 1)))
		code, rep = jsonReport("--baseline", base, "../bad.xml")
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Status).To(Equal("error"))
		Expect(rep.Documents[0].Findings).To(HaveLen(1))
	})

	It("refuses, with exit 2 and a message, a --config or --baseline that is not a regular file or is too large", func() {
		code, _, errs := cli("validate", "--config", "/dev/zero", "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("/dev/zero: the configuration file is a character device, not a regular file: refused"))
		code, _, errs = cli("validate", "--baseline", "/dev/zero", "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("/dev/zero: the baseline is a character device, not a regular file: refused"))

		// Sparse files: larger than the bounds, taking no room.
		big := func(name string, size int64) string {
			p := filepath.Join(dir, name)
			f, err := os.Create(p)
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Truncate(size)).To(Succeed())
			Expect(f.Close()).To(Succeed())
			return p
		}
		code, _, errs = cli("validate", "--config", big("big.yaml", maxConfigBytes+1), "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("big.yaml: the configuration file is larger than 4 MiB"))
		code, _, errs = cli("validate", "--baseline", big("big.json", baseline.MaxBytes+1), "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("big.json: the baseline is larger than 128 MiB"))
	})

	It("never writes a baseline through a symbolic link, dangling or not", func() {
		outside := filepath.Join(GinkgoT().TempDir(), "outside.json")
		link := filepath.Join(dir, "baseline.json")
		Expect(os.Symlink(outside, link)).To(Succeed())
		code, _, errs := cli("validate", "--baseline", link, "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("a symbolic link, not followed"))
		_, err := os.Lstat(outside)
		Expect(os.IsNotExist(err)).To(BeTrue(), "the link's target was created")
	})

	It("fails at --fail-level, and refuses an unknown level before any work", func() {
		code, _ := jsonReport("--rules", "RS-TIME-*", "../cl.xml")
		Expect(code).To(Equal(0))
		code, _ = jsonReport("--rules", "RS-TIME-*", "--fail-level", "warning", "../cl.xml")
		Expect(code).To(Equal(1))
		code, _, errs := cli("validate", "--fail-level", "warnings", "../cl.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("did you mean warning?"))
	})

	It("prints only documents with findings under --quiet, counting all", func() {
		write(dir, "site/rl.xml", []byte(validRL))
		code, out, _ := cli("validate", "--quiet", "--no-color", "../cl.xml", "../rl.xml")
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("cl.xml (changelist) invalid"))
		Expect(out).NotTo(ContainSubstring("rl.xml"))
		Expect(out).To(ContainSubstring("2 documents: 1 valid, 1 invalid"))
	})
})
