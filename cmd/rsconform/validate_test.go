package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/reporter"
)

// cli runs rsconform with args and returns exit code, stdout and stderr.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func jsonReport(args ...string) (int, reporter.JSONReport) {
	code, out, errs := cli(append([]string{"validate", "--format", "json"}, args...)...)
	var rep reporter.JSONReport
	Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed(), "stdout: %s\nstderr: %s", out, errs)
	return code, rep
}

const validRL = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
  <url><loc>http://example.com/res1</loc></url>
</urlset>
`

func write(dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	Expect(os.WriteFile(p, data, 0o644)).To(Succeed())
	return p
}

var _ = Describe("rsconform validate", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("exits 0 on a valid document and reports it in JSON", func() {
		code, rep := jsonReport(write(dir, "rl.xml", []byte(validRL)))
		Expect(code).To(Equal(0))
		Expect(rep.Documents).To(HaveLen(1))
		Expect(rep.Documents[0].Kind).To(Equal("resourcelist"))
		Expect(rep.Documents[0].Status).To(Equal("valid"))
		Expect(rep.Documents[0].Findings).To(BeEmpty())
	})

	It("exits 1 with located findings on an invalid document", func() {
		bad := strings.Replace(validRL, `  <rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`+"\n", "", 1)
		code, rep := jsonReport(write(dir, "rl.xml", []byte(bad)))
		Expect(code).To(Equal(1))
		f := rep.Documents[0].Findings
		Expect(f).To(HaveLen(1))
		Expect(f[0].Rule).To(Equal("RS-LINK-UP"))
		Expect(f[0].Section).To(Equal("6.2"))
		Expect(f[0].Line).To(Equal(2))
	})

	It("fails warnings only under --strict", func() {
		warn := strings.Replace(validRL, "2013-01-03T09:00:00Z", "2013-01-03", 1)
		p := write(dir, "rl.xml", []byte(warn))
		code, rep := jsonReport(p)
		Expect(code).To(Equal(0))
		Expect(rep.Summary.Warnings).To(Equal(1))
		code, _ = jsonReport("--strict", p)
		Expect(code).To(Equal(1))
	})

	It("selects and suppresses rules with --rules", func() {
		bad := strings.Replace(validRL, `  <rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`+"\n", "", 1)
		p := write(dir, "rl.xml", []byte(bad))
		code, rep := jsonReport("--rules", "RS-*,-RS-LINK-UP", p)
		Expect(code).To(Equal(0))
		Expect(rep.Documents[0].Findings).To(BeEmpty())
		code, _, errs := cli("validate", "--rules", "RS-NO-SUCH-*", p)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("matches no rule"))
	})

	It("walks a directory for *.xml and *.xml.gz, and accepts flags after paths", func() {
		write(dir, "a.xml", []byte(validRL))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(validRL))
		zw.Close()
		write(dir, "b.xml.gz", gz.Bytes())
		write(dir, "ignored.txt", []byte("x"))
		code, out, _ := cli("validate", dir, "--format", "json")
		Expect(code).To(Equal(0))
		var rep reporter.JSONReport
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
		Expect(rep.Documents).To(HaveLen(2))
	})

	It("validates a URL and reports an unreachable one as unprocessed (exit 2)", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/rl.xml" {
				w.Write([]byte(validRL))
				return
			}
			http.NotFound(w, r)
		}))
		defer srv.Close()
		code, rep := jsonReport(srv.URL + "/rl.xml")
		Expect(code).To(Equal(0))
		Expect(rep.Documents[0].Location).To(Equal(srv.URL + "/rl.xml"))
		code, rep = jsonReport(srv.URL + "/missing.xml")
		Expect(code).To(Equal(2))
		Expect(rep.Documents[0].Status).To(Equal("error"))
		Expect(rep.Documents[0].Error).To(ContainSubstring("404"))
	})

	It("exits 2 on usage errors and unreadable input", func() {
		code, _, errs := cli("validate")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("no PATH"))
		code, _, _ = cli("validate", "--spec", "2.0", "x.xml")
		Expect(code).To(Equal(2))
		code, _, _ = cli("validate", "--format", "yaml", "x.xml")
		Expect(code).To(Equal(2))
		code, rep := jsonReport(filepath.Join(dir, "missing.xml"))
		Expect(code).To(Equal(2))
		Expect(rep.Documents[0].Error).To(ContainSubstring("no such file"))
		code, _, _ = cli("no-such-command")
		Expect(code).To(Equal(2))
	})

	It("prints help with examples for every command", func() {
		for _, c := range []string{"validate", "rules", "explain", "version"} {
			code, out, _ := cli(c, "--help")
			Expect(code).To(Equal(0), c)
			Expect(out).To(ContainSubstring("Usage: rsconform "+c), c)
		}
		code, out, _ := cli("--help")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("validate"))
	})

	Describe("bad input: a located finding or an error result, never a panic", func() {
		// The size limit is met with --max-size set to 256 KiB: the path is
		// the one the default 50 MB limit takes (a 60 MB file once took
		// 18 s and a 64 MB bomb 9 s to write and read under -race), and
		// the default itself is checked below, in the help.
		const limit = 256 << 10
		bomb := func() []byte {
			var gz bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
			zw.Write([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`))
			zw.Write(bytes.Repeat([]byte(" "), limit+limit/4))
			zw.Close()
			Expect(gz.Len()).To(BeNumerically("<", limit/100), "a bomb: small compressed, over the limit inflated")
			return gz.Bytes()
		}
		big := func() []byte {
			var b bytes.Buffer
			b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`)
			entry := "<url><loc>http://example.com/resource/0000000000</loc></url>\n"
			for b.Len() < limit+limit/5 {
				b.WriteString(entry)
			}
			b.WriteString("</urlset>")
			return b.Bytes()
		}
		It("limits a document to 50 MB (52,428,800 bytes) unless --max-size says otherwise", func() {
			code, out, _ := cli("validate", "--help")
			Expect(code).To(Equal(0))
			Expect(out).To(MatchRegexp(`(?m)^\s+--?max-size BYTES\b[^\n]*\n?[^\n]*\(default 52428800\)$`))
		})
		DescribeTable("input",
			func(name string, data func() []byte, exit int, rule string, line int, flags ...string) {
				code, rep := jsonReport(append(flags, write(dir, name, data()))...)
				Expect(code).To(Equal(exit))
				d := rep.Documents[0]
				Expect(d.Findings).NotTo(BeEmpty(), "status %s error %q", d.Status, d.Error)
				Expect(d.Findings[0].Rule).To(Equal(rule))
				Expect(d.Findings[0].Line).To(Equal(line))
			},
			Entry("not XML", "a.xml", func() []byte { return []byte("hello, world\n") }, 1, "RS-XML-WELLFORMED", 1),
			Entry("truncated XML", "a.xml", func() []byte { return []byte(validRL[:200]) }, 1, "RS-XML-WELLFORMED", 3),
			Entry("binary garbage", "a.xml", func() []byte { return []byte{0x00, 0xff, 0x13, 0x37, 0x80, 0x81} }, 1, "RS-XML-WELLFORMED", 1),
			Entry("an empty file", "a.xml", func() []byte { return nil }, 1, "RS-XML-WELLFORMED", 1),
			Entry("a wrong namespace", "a.xml", func() []byte {
				return []byte(strings.Replace(validRL, "http://www.sitemaps.org/schemas/sitemap/0.9", "http://www.google.com/schemas/sitemap/0.84", 1))
			}, 1, "RS-KIND-ROOT", 2),
			Entry("non-UTF-8 text", "a.xml", func() []byte { return []byte(strings.Replace(validRL, "res1", "r\xe9s1", 1)) }, 1, "RS-XML-WELLFORMED", 5),
			Entry("a DOCTYPE with an external entity (XXE)", "a.xml", func() []byte {
				return []byte(`<?xml version="1.0"?>` + "\n" + `<!DOCTYPE urlset [<!ENTITY x SYSTEM "file:///etc/passwd">]>` + "\n<urlset>&x;</urlset>")
			}, 1, "RS-XML-WELLFORMED", 2),
			Entry("an entity bomb", "a.xml", func() []byte {
				return []byte(`<?xml version="1.0"?>` + "\n" + `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>` + "\n<urlset>&c;</urlset>")
			}, 1, "RS-XML-WELLFORMED", 2),
			Entry("a file over --max-size", "a.xml", big, 1, "RS-LIMIT-SIZE", 0, "--max-size", fmt.Sprint(limit)),
			Entry("a gzip bomb", "a.xml.gz", bomb, 1, "RS-LIMIT-SIZE", 0, "--max-size", fmt.Sprint(limit)),
		)
		It("never reads the file an entity names", func() {
			_, out, _ := cli("validate", "--format", "json", write(dir, "x.xml", []byte(`<?xml version="1.0"?>`+"\n"+`<!DOCTYPE urlset [<!ENTITY x SYSTEM "file:///etc/passwd">]>`+"\n<urlset>&x;</urlset>")))
			Expect(out).NotTo(ContainSubstring("root:"))
		})
	})
})

var _ = Describe("Documents read at a time (readerProcs)", func() {
	It("reads as many documents at a time as there are CPUs, with GOMAXPROCS doubled", func() {
		if os.Getenv("GOMAXPROCS") != "" {
			Skip("GOMAXPROCS is set: readerProcs leaves it alone")
		}
		was := runtime.GOMAXPROCS(0)
		DeferCleanup(func() { runtime.GOMAXPROCS(was) })
		n := startProcs()
		Expect(readerProcs()).To(Equal(n))
		Expect(runtime.GOMAXPROCS(0)).To(Equal(2 * n))
		Expect(readerProcs()).To(Equal(n))
		Expect(runtime.GOMAXPROCS(0)).To(Equal(2 * n))
	})
})
