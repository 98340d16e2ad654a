package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"path/filepath"

	"github.com/rsconform/rsconform/reporter"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const plainSitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod></url>
</urlset>
`

const rssFeed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>News</title><link>https://example.com/</link>
<description>d</description><item><title>a</title><link>https://example.com/a</link></item></channel></rss>
`

const sourceDescription = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="description"/>
  <url><loc>http://example.com/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>
</urlset>
`

var _ = Describe("validate on a directory", func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dir, ".well-known"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(dir, "drafts"), 0o755)).To(Succeed())
		write(dir, "resourcelist.xml", []byte(validRL))
		write(dir, "sitemap.xml", []byte(plainSitemap))
		write(dir, "feed.xml", []byte(rssFeed))
		write(dir, ".well-known/resourcesync", []byte(sourceDescription))
		write(dir, "drafts/broken.xml", []byte("<urlset>"))
	})

	status := func(rep []documentStatus, name string) string {
		for _, d := range rep {
			if d.location == filepath.Join(dir, name) {
				return d.status + " " + d.why
			}
		}
		return "absent"
	}

	It("skips documents that are not ResourceSync, with the reason, and checks .well-known/resourcesync", func() {
		code, rep := jsonReport(dir, "--exclude", "drafts")
		Expect(code).To(Equal(0))
		docs := statuses(rep)
		Expect(docs).To(HaveLen(4))
		Expect(status(docs, "sitemap.xml")).To(HavePrefix("skipped a plain Sitemap"))
		Expect(status(docs, "feed.xml")).To(HavePrefix("skipped the root element is <rss>"))
		Expect(status(docs, ".well-known/resourcesync")).To(Equal("valid "))
		Expect(status(docs, "resourcelist.xml")).To(Equal("valid "))
		Expect(rep.Summary.Skipped).To(Equal(2))
	})

	It("skips a FIFO and a device found in the directory, saying what they are, instead of blocking on them", func() {
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe.xml"), 0o600)).To(Succeed())
		Expect(os.Symlink("/dev/zero", filepath.Join(dir, "zero.xml"))).To(Succeed())
		code, rep := jsonReport(dir, "--exclude", "drafts")
		Expect(code).To(Equal(0))
		docs := statuses(rep)
		Expect(status(docs, "pipe.xml")).To(HavePrefix("skipped is a named pipe (FIFO), not read when found in a directory"))
		Expect(status(docs, "zero.xml")).To(HavePrefix("skipped is a device, not read"))
		Expect(status(docs, "resourcelist.xml")).To(Equal("valid "))
	})

	It("tells large documents apart while streaming them: a plain Sitemap is skipped, a list whose only rs:ln is in its last entry is judged", func() {
		var plain, linked strings.Builder
		head := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`
		plain.WriteString(head)
		linked.WriteString(head)
		for i := 0; i < 3000; i++ { // several windows of entries
			fmt.Fprintf(&plain, "<url><loc>https://example.com/%d</loc></url>\n", i)
			fmt.Fprintf(&linked, "<url><loc>https://example.com/%d</loc></url>\n", i)
		}
		linked.WriteString(`<url><loc>https://example.com/last</loc><rs:ln rel="describedby" href="https://example.com/about"/></url>` + "\n")
		plain.WriteString("</urlset>\n")
		linked.WriteString("</urlset>\n")
		big := GinkgoT().TempDir()
		write(big, "plain.xml", []byte(plain.String()))
		write(big, "linked.xml", []byte(linked.String()))
		_, rep := jsonReport(big)
		docs := statuses(rep)
		find := func(name string) string {
			for _, d := range docs {
				if d.location == filepath.Join(big, name) {
					return d.status + " " + d.why
				}
			}
			return "absent"
		}
		Expect(find("plain.xml")).To(HavePrefix("skipped a plain Sitemap"))
		Expect(find("linked.xml")).To(HavePrefix("invalid"), "no <rs:md>: judged, not skipped")
	})

	It("still judges a plain Sitemap named on the command line", func() {
		code, rep := jsonReport(filepath.Join(dir, "sitemap.xml"))
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Status).To(Equal("invalid"))
		Expect(rep.Documents[0].Findings[0].Rule).To(Equal("RS-MD-TOP"))
	})

	It("excludes by name, by path under the directory, and folders", func() {
		code, rep := jsonReport(dir)
		Expect(code).To(Equal(1), "drafts/broken.xml is not well-formed")
		Expect(status(statuses(rep), "drafts/broken.xml")).To(HavePrefix("error"))

		code, rep = jsonReport(dir, "--exclude", "drafts/*.xml", "--exclude", "feed.xml", "--exclude", "*map.xml")
		Expect(code).To(Equal(0))
		docs := statuses(rep)
		Expect(docs).To(HaveLen(2))
		Expect(status(docs, "feed.xml")).To(Equal("absent"))
		Expect(status(docs, "sitemap.xml")).To(Equal("absent"))

		code, _, errs := cli("validate", dir, "--exclude", "[")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`--exclude "["`))
	})

	It("exits 2 when a named file is missing, even next to an invalid one", func() {
		code, rep := jsonReport(filepath.Join(dir, "drafts/broken.xml"), filepath.Join(dir, "missing.xml"))
		Expect(code).To(Equal(2))
		Expect(rep.Documents).To(HaveLen(2))
		Expect(rep.Summary.Unprocessed).To(Equal(2))
	})
})

type documentStatus struct{ location, status, why string }

func statuses(rep reporter.JSONReport) []documentStatus {
	var out []documentStatus
	for _, d := range rep.Documents {
		out = append(out, documentStatus{d.Location, d.Status, d.Error})
	}
	return out
}
