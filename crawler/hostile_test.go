package crawler_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
)

// goodSite is the conforming template, served with extra handlers in
// front of it.
func goodSite() *fixtures.Site {
	s, err := fixtures.Template("good")
	Expect(err).NotTo(HaveOccurred())
	return s
}

// hostile serves the good site, with some paths answered by handlers of
// the test; it counts the requests per path and keeps the User-Agents.
type hostile struct {
	mu     sync.Mutex
	counts map[string]int
	agents map[string]bool
	routes map[string]http.HandlerFunc
	srv    *httptest.Server
}

func newHostile(routes map[string]http.HandlerFunc) *hostile {
	if routes == nil {
		routes = map[string]http.HandlerFunc{}
	}
	h := &hostile{counts: map[string]int{}, agents: map[string]bool{}, routes: routes}
	site := goodSite().Handler()
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.counts[r.URL.Path]++
		h.agents[r.UserAgent()] = true
		h.mu.Unlock()
		if f, ok := h.routes[r.URL.Path]; ok {
			f(w, r)
			return
		}
		site.ServeHTTP(w, r)
	}))
	DeferCleanup(h.srv.Close)
	return h
}

func (h *hostile) crawl(entry string, opts crawler.Options) *crawler.Report {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	rep, err := crawler.Crawl(ctx, h.srv.URL+entry, opts)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// crawlPackage crawls the good site with --packages, its package
// /dataset1/part1.zip replaced by data.
func crawlPackage(data []byte) (*hostile, *crawler.Report) {
	return crawlPackageWith(data, rs.PackageLimits{})
}

// crawlPackageWith crawls a Source whose one package is data, under limits.
func crawlPackageWith(data []byte, limits rs.PackageLimits) (*hostile, *crawler.Report) {
	h := newHostile(map[string]http.HandlerFunc{"/dataset1/part1.zip": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Write(data)
	}})
	opts := testOptions()
	opts.Packages, opts.PackageLimits = true, limits
	return h, h.crawl("/", opts)
}

func result(rep *crawler.Report, u string) *engine.Result {
	for i := range rep.Results {
		if rep.Results[i].Location == u {
			return &rep.Results[i]
		}
	}
	return nil
}

func rulesOf(res *engine.Result) []string {
	var out []string
	for _, d := range res.Diagnostics {
		out = append(out, d.Rule)
	}
	return out
}

var _ = Describe("Crawling hostile and broken Sources", func() {
	It("ends with an entry error when the host is dead", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		l.Close()
		start := time.Now()
		rep, err := crawler.Crawl(context.Background(), "http://"+addr+"/", testOptions())
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.EntryError).To(MatchError(ContainSubstring("refused")))
		Expect(rep.Results).To(HaveLen(1))
		Expect(rep.Results[0].Status).To(Equal(engine.StatusError))
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
	})

	It("walks the whole Source from a Resource List, up to the top and down again, once per URL", func() {
		h := newHostile(nil)
		opts := testOptions()
		opts.Packages = true
		rep := h.crawl("/dataset1/resourcelist2.xml", opts)
		Expect(rep.EntryError).NotTo(HaveOccurred())
		base := h.srv.URL
		Expect(found(rep, base, false)).To(BeEmpty(), describe(rep, base))
		for _, u := range []string{"/.well-known/resourcesync", "/dataset1/capabilitylist.xml", "/dataset1/changelist-old.xml", "/dataset1/part1.zip#manifest.xml"} {
			Expect(result(rep, base+u)).NotTo(BeNil(), u)
		}
		// The hierarchy: the Source Description first, lists under the
		// Capability List.
		Expect(rep.Results[0].Location).To(Equal(base + "/.well-known/resourcesync"))
		Expect(result(rep, base+"/dataset1/capabilitylist.xml").Parent).To(Equal(base + "/.well-known/resourcesync"))
		Expect(result(rep, base+"/dataset1/resourcelist2.xml").Parent).To(Equal(base + "/dataset1/resourcelist-index.xml"))
		Expect(result(rep, base+"/dataset1/capabilitylist.xml").Children).To(ContainElement(base + "/dataset1/resourcelist-index.xml"))
		// Once each, but the open Change List and its index: fetched again
		// after the resources, for the latest record of changes.
		for p, n := range h.counts {
			want := 1
			if p == "/dataset1/changelist-index.xml" || p == "/dataset1/changelist2.xml" {
				want = 2
			}
			Expect(n).To(Equal(want), "%s fetched %d times", p, n)
		}
		Expect(h.agents).To(HaveKey("rsconform/test"))
		// Lists and manifests are kept without their entries.
		n := rep.Graph.Node(base + "/dataset1/resourcelist1.xml")
		Expect(n.Doc.Entries).To(BeEmpty())
		Expect(n.Entries).To(Equal(3))
		Expect(n.LocFingerprints).To(HaveLen(3))
		Expect(rep.Graph.Node(base + "/dataset1/capabilitylist.xml").Doc.Entries).To(HaveLen(4))
	})

	It("reports a 404 halfway down and goes on", func() {
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/resourcelist1.xml": http.NotFound})
		rep := h.crawl("/", testOptions())
		base := h.srv.URL
		Expect(result(rep, base+"/dataset1/resourcelist1.xml").Status).To(Equal(engine.StatusError))
		Expect(rulesOf(result(rep, base+"/dataset1/resourcelist-index.xml"))).To(ContainElement("RS-HTTP-STATUS"))
		Expect(result(rep, base+"/dataset1/changelist-old.xml").Status).To(Equal(engine.StatusValid))
	})

	It("refuses an element with too many attributes at once, with its rule, and goes on", func() {
		var many strings.Builder
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(&many, " x:a%d='1'", i)
		}
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/resourcelist1.xml": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="urn:x">`+
				"\n\n  <rs:md capability=\"resourcelist\" at=\"2013-01-03T09:00:00Z\"%s/></urlset>", many.String())
		}})
		start := time.Now()
		rep := h.crawl("/", testOptions())
		Expect(time.Since(start)).To(BeNumerically("<", 20*time.Second))
		res := result(rep, h.srv.URL+"/dataset1/resourcelist1.xml")
		Expect(res.Status).To(Equal(engine.StatusInvalid))
		Expect(res.Diagnostics).To(ConsistOf(And(HaveField("Rule", "RS-LIMIT-ATTRS"),
			HaveField("Location.Line", 3), HaveField("Location.Column", 3))))
		Expect(result(rep, h.srv.URL+"/dataset1/changelist-old.xml").Status).To(Equal(engine.StatusValid))
	})

	It("gives up on a document whose server does not answer within the time-out", func() {
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/changelist-index.xml": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}})
		opts := testOptions()
		opts.HTTP.Timeout = 500 * time.Millisecond
		start := time.Now()
		rep := h.crawl("/", opts)
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		res := result(rep, h.srv.URL+"/dataset1/changelist-index.xml")
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("--timeout"))
		Expect(result(rep, h.srv.URL+"/dataset1/resourcelist1.xml").Status).To(Equal(engine.StatusValid))
	})

	It("gives up on a slow-drip body at the time-out", func() {
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/changelist-archive.xml": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusOK)
			for i := 0; i < 200; i++ {
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}})
		opts := testOptions()
		opts.HTTP.Timeout = 700 * time.Millisecond
		start := time.Now()
		rep := h.crawl("/", opts)
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		res := result(rep, h.srv.URL+"/dataset1/changelist-archive.xml")
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("did not arrive within"))
	})

	It("stops a redirect loop at the entry point", func() {
		h := newHostile(map[string]http.HandlerFunc{
			"/a.xml": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b.xml", http.StatusFound) },
			"/b.xml": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a.xml", http.StatusFound) },
		})
		rep := h.crawl("/a.xml", testOptions())
		Expect(rep.EntryError).To(MatchError(ContainSubstring("redirect")))
		Expect(rulesOf(result(rep, h.srv.URL+"/a.xml"))).To(ContainElement("RS-HTTP-REDIRECTS"))
	})

	It("ends an up-link cycle", func() {
		doc := func(up, capability string) string {
			return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="` + up + `"/>
  <rs:md capability="` + capability + `"/>
</urlset>
`
		}
		serve := func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprint(w, strings.ReplaceAll(body, "BASE", "http://"+r.Host))
			}
		}
		h := newHostile(map[string]http.HandlerFunc{
			"/cycle/a.xml": serve(doc("BASE/cycle/b.xml", "capabilitylist")),
			"/cycle/b.xml": serve(doc("BASE/cycle/a.xml", "capabilitylist")),
		})
		rep := h.crawl("/cycle/a.xml", testOptions())
		Expect(rep.EntryError).NotTo(HaveOccurred())
		Expect(rulesOf(result(rep, h.srv.URL+"/cycle/a.xml"))).To(ContainElement("RS-UP-TARGET"))
		Expect(h.counts["/cycle/a.xml"]).To(Equal(1))
		Expect(h.counts["/cycle/b.xml"]).To(Equal(1))
	})

	It("stops downloading a huge package at the limit without holding it", func() {
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/part1.zip": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/zip")
			w.Header().Set("Content-Length", "2147483648")
			chunk := make([]byte, 64<<10)
			for i := 0; i < (2<<30)/len(chunk); i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}})
		opts := testOptions()
		opts.Packages = true
		opts.PackageLimits.MaxBytes = 1 << 20
		opts.TempDir = GinkgoT().TempDir()
		rep := h.crawl("/", opts)
		res := result(rep, h.srv.URL+"/dataset1/part1.zip")
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("larger than the limit"))
		Expect(rep.Stats.Bytes).To(BeNumerically("<", 16<<20))
		left, _ := os.ReadDir(opts.TempDir)
		Expect(left).To(BeEmpty(), "the spilled package is removed")
	})

	// A limit of 1,000 rather than the default 100,000 (writing 100,001
	// entries took 2-3 s under -race): the crawl passes its limits on the
	// same way, the default is resourcesync's (PackageLimits.WithDefaults,
	// tested there), and the ZIP-bomb spec below meets a default limit
	// through the crawl.
	It("refuses a ZIP with more entries than --max-package-entries", func() {
		const limit = 1000
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := 0; i <= limit; i++ {
			_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%d", i), Method: zip.Store})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(zw.Close()).To(Succeed())
		h, rep := crawlPackageWith(buf.Bytes(), rs.PackageLimits{MaxEntries: limit})
		res := result(rep, h.srv.URL+"/dataset1/part1.zip")
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("1001 entries, more than the limit of 1000 (--max-package-entries)"))
	})

	It("refuses a ZIP bomb by its compression ratio", func() {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		fw, err := zw.Create("manifest.xml")
		Expect(err).NotTo(HaveOccurred())
		// 2 MiB of one byte: over the 1 MiB floor, Deflate's best ratio
		// (about 1,030) is over the default limit of 1,000, as 64 MiB's
		// is, without compressing and inflating 64 MiB under -race.
		fw.Write(bytes.Repeat([]byte{' '}, 2<<20))
		Expect(zw.Close()).To(Succeed())
		h, rep := crawlPackage(buf.Bytes())
		res := result(rep, h.srv.URL+"/dataset1/part1.zip")
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("ZIP bomb"))
	})

	It("reads each package member once, however many manifest entries name it", func() {
		body := []byte("the one bitstream\n")
		md5sum, sha := md5.Sum(body), sha256.Sum256(body)
		var man strings.Builder
		man.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcedump-manifest" at="2013-01-03T09:00:00Z"/>
`)
		for i := 0; i < 300; i++ {
			hash := "md5:" + hex.EncodeToString(md5sum[:])
			switch {
			case i%3 == 1:
				hash = "sha-256:" + hex.EncodeToString(sha[:])
			case i == 299:
				hash = "md5:" + strings.Repeat("0", 32) // the one wrong digest
			}
			fmt.Fprintf(&man, "<url><loc>http://example.com/r%d</loc><rs:md hash=%q length=\"%d\" path=\"/one.txt\"/></url>\n", i, hash, len(body))
		}
		fmt.Fprintf(&man, "<url><loc>http://example.com/other</loc><rs:md length=\"5\" path=\"/other.txt\"/></url>\n</urlset>\n")
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, m := range []struct{ name, body string }{{"manifest.xml", man.String()}, {"one.txt", string(body)}, {"other.txt", "other"}} {
			fw, err := zw.Create(m.name)
			Expect(err).NotTo(HaveOccurred())
			fw.Write([]byte(m.body))
		}
		Expect(zw.Close()).To(Succeed())
		h, rep := crawlPackage(buf.Bytes())
		Expect(rep.Stats.MembersRead).To(Equal(2), "one.txt once for its 300 entries, other.txt once")
		var bitstream []string
		for _, d := range result(rep, h.srv.URL+"/dataset1/part1.zip#manifest.xml").Diagnostics {
			if d.Rule == "RS-PKG-BITSTREAM" {
				bitstream = append(bitstream, d.Message)
			}
		}
		Expect(bitstream).To(ConsistOf(ContainSubstring("the manifest says md5:" + strings.Repeat("0", 32))))
	})

	It("reports HTML where XML was expected, and goes on", func() {
		h := newHostile(map[string]http.HandlerFunc{"/dataset1/changelist-index.xml": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!DOCTYPE html>\n<html><head><title>Oops</title></head><body><p>Not found<br></body></html>\n")
		}})
		rep := h.crawl("/", testOptions())
		res := result(rep, h.srv.URL+"/dataset1/changelist-index.xml")
		Expect(rulesOf(res)).To(ContainElements("RS-XML-WELLFORMED", "RS-HTTP-CONTENT-TYPE"))
		Expect(result(rep, h.srv.URL+"/dataset1/changelist-old.xml").Status).To(Equal(engine.StatusValid))
	})

	It("reads gzip Content-Encoding", func() {
		site := goodSite().Handler()
		h := newHostile(nil)
		h.routes["/dataset1/capabilitylist.xml"] = func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			site.ServeHTTP(rec, r)
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(rec.Body.Bytes())
			zw.Close()
			w.Header().Set("Content-Type", "application/xml")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(z.Bytes())
		}
		rep := h.crawl("/", testOptions())
		Expect(result(rep, h.srv.URL+"/dataset1/capabilitylist.xml").Status).To(Equal(engine.StatusValid))
		Expect(result(rep, h.srv.URL+"/dataset1/changelist-old.xml")).NotTo(BeNil())
	})

	It("honours Retry-After", func() {
		var mu sync.Mutex
		tries := 0
		h := newHostile(nil)
		site := goodSite().Handler()
		h.routes["/dataset1/changelist1.xml"] = func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			tries++
			first := tries == 1
			mu.Unlock()
			if first {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			site.ServeHTTP(w, r)
		}
		opts := testOptions()
		opts.HTTP.Retries = 2
		clock := sourcehttp.NewStepClock(time.Now())
		opts.HTTP.Clock = clock
		rep := h.crawl("/", opts)
		Expect(clock.Waits()).To(ContainElement(time.Second), "waited the Retry-After, on the injected clock")
		Expect(tries).To(Equal(2))
		Expect(result(rep, h.srv.URL+"/dataset1/changelist1.xml").Status).To(Equal(engine.StatusValid))
	})

	It("keeps to its budgets", func() {
		h := newHostile(nil)
		opts := testOptions()
		opts.MaxDocuments = 3
		rep := h.crawl("/", opts)
		skipped := 0
		for _, r := range rep.Results {
			if r.Status == engine.StatusSkipped && strings.Contains(r.Error, "--max-documents") {
				skipped++
			}
		}
		Expect(skipped).To(BeNumerically(">", 0))
		Expect(rep.Stats.Documents).To(BeNumerically("<=", 6)) // 3 documents and the discovery probes

		opts = testOptions()
		opts.MaxBytes = 3000
		rep = h.crawl("/", opts)
		Expect(rep.Stats.Bytes).To(BeNumerically("<", 3000+8192))
		budget := 0
		for _, r := range rep.Results {
			if strings.Contains(r.Error, "--max-bytes") {
				budget++
			}
		}
		Expect(budget).To(BeNumerically(">", 0), describe(rep, h.srv.URL))
	})

	It("visits other hosts only when allowed", func() {
		other := httptest.NewServer(goodSite().Handler())
		defer other.Close()
		port := other.URL[strings.LastIndex(other.URL, ":")+1:]
		// other.test is another host on 127.0.0.1, through loopbackNames.
		foreign := "http://other.test:" + port + "/dataset1/changelist-old.xml"
		h := newHostile(nil)
		h.routes["/dataset1/changelist-archive.xml"] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://%s/dataset1/capabilitylist.xml"/>
  <rs:md capability="changelist-archive"/>
  <url><loc>%s</loc></url>
</urlset>
`, r.Host, foreign)
		}
		opts := testOptions()
		opts.HTTP.Transport = loopbackNames("other.test")
		rep := h.crawl("/", opts)
		res := result(rep, foreign)
		Expect(res).NotTo(BeNil())
		Expect(res.Status).To(Equal(engine.StatusSkipped))
		Expect(res.Error).To(ContainSubstring("--allow-host"))

		// A bare HOST allows its default ports only.
		opts.AllowHosts = []string{"other.test"}
		rep = h.crawl("/", opts)
		Expect(result(rep, foreign).Status).To(Equal(engine.StatusSkipped))

		opts.AllowHosts = []string{"other.test:" + port}
		rep = h.crawl("/", opts)
		Expect(result(rep, foreign).Status).To(Equal(engine.StatusValid), describe(rep, h.srv.URL))
	})

	It("refuses a redirect to another port of the entry host unless --allow-host HOST:PORT", func() {
		internal := httptest.NewServer(goodSite().Handler())
		defer internal.Close()
		port := internal.URL[strings.LastIndex(internal.URL, ":")+1:]
		h := newHostile(nil)
		h.routes["/dataset1/changelist1.xml"] = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, internal.URL+"/dataset1/changelist1.xml", http.StatusFound)
		}
		target := h.srv.URL + "/dataset1/changelist1.xml"
		rep := h.crawl("/", testOptions())
		res := result(rep, target)
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(ContainSubstring("--allow-host 127.0.0.1:" + port))

		opts := testOptions()
		opts.AllowHosts = []string{"127.0.0.1"}
		rep = h.crawl("/", opts)
		Expect(result(rep, target).Status).To(Equal(engine.StatusError), "a bare HOST does not open other ports")

		opts.AllowHosts = []string{"127.0.0.1:" + port}
		rep = h.crawl("/", opts)
		res = result(rep, target)
		Expect(res.Error).To(BeEmpty(), describe(rep, h.srv.URL))
		Expect(res.Kind.Title()).To(Equal("Change List"), "the redirect was followed")
	})

	It("limits the rate per host", func() {
		h := newHostile(nil)
		opts := testOptions()
		opts.HTTP.Rate = 40
		start := time.Now()
		clock := sourcehttp.NewStepClock(start)
		opts.HTTP.Clock = clock
		rep := h.crawl("/", opts)
		n := rep.Stats.Requests
		Expect(n).To(BeNumerically(">", 10))
		// The requests to the one host were spaced by 1/40 s at least
		// (on the injected clock: the test does not wait).
		Expect(clock.Now().Sub(start)).To(BeNumerically(">=", time.Duration(n-1)*time.Second/40))
	})
})

var _ = Describe("Crawling a build output with --map", func() {
	It("serves a URL prefix from a folder, without a server", func() {
		dir := GinkgoT().TempDir()
		write := func(name, body string) {
			p := filepath.Join(dir, filepath.FromSlash(name))
			Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
			Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
		}
		good := goodSite()
		for _, f := range good.Files() {
			if strings.Contains(f, ".zip/") {
				continue
			}
			body, err := fetchFrom(good, f)
			Expect(err).NotTo(HaveOccurred())
			write(f, strings.ReplaceAll(body, "http://127.0.0.1:1", "https://build.example.org"))
		}
		m, err := sourcehttp.ParseMap("https://build.example.org/=" + dir)
		Expect(err).NotTo(HaveOccurred())
		opts := testOptions()
		opts.Maps = []sourcehttp.Map{m}
		opts.HTTP.Transport = refuseTransport{}
		rep, err := crawler.Crawl(context.Background(), "https://build.example.org/", opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.EntryError).NotTo(HaveOccurred())
		Expect(result(rep, "https://build.example.org/dataset1/changelist-old.xml").Status).To(Equal(engine.StatusValid), describe(rep, ""))
		Expect(rep.Discovered()).To(HaveLen(3))
	})
})

var _ = Describe("Last-Modified in a --map crawl", func() {
	// A build writes its resources, then the lists with at set to the time
	// of writing and <lastmod> from where the resources come from: the
	// files' modification times, just before at, are not the resources'.
	It("is not judged, since --map makes it up from the files' modification times, and the report says so", func() {
		dir := GinkgoT().TempDir()
		now := time.Now().UTC().Truncate(time.Second)
		write := func(name, body string) {
			p := filepath.Join(dir, filepath.FromSlash(name))
			Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
			Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
			Expect(os.Chtimes(p, now.Add(-time.Minute), now.Add(-time.Minute))).To(Succeed())
		}
		write("res/a.txt", "a\n")
		write("resourcelist.xml", `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="`+now.Format(time.RFC3339)+`"/>
  <url><loc>https://build.example.org/res/a.txt</loc><lastmod>2013-01-02T10:00:00Z</lastmod><rs:md length="2"/></url>
</urlset>`)
		m, err := sourcehttp.ParseMap("https://build.example.org/=" + dir)
		Expect(err).NotTo(HaveOccurred())
		opts := testOptions()
		opts.Maps = []sourcehttp.Map{m}
		opts.HTTP.Transport = refuseTransport{}
		rep, err := crawler.Crawl(context.Background(), "https://build.example.org/resourcelist.xml", opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.EntryError).NotTo(HaveOccurred())
		res := result(rep, "https://build.example.org/resourcelist.xml")
		Expect(res.Applied).To(ContainElement("RS-REP-LASTMOD"), "the resource was sampled")
		for _, d := range res.Diagnostics {
			Expect(d.Rule).NotTo(HavePrefix("RS-REP-"), describe(rep, ""))
		}
		Expect(rep.Notes).To(ConsistOf(ContainSubstring("no rule judges Last-Modified")))
	})
})

var _ = Describe("Last-Modified of a resource redirected into a --map folder", func() {
	// The server redirects an old address into the mapped prefix: the
	// answer is still the map's, with no date of its own.
	It("is not seen by any rule, live and when the crawl is resumed from its --state", func() {
		dir := GinkgoT().TempDir()
		now := time.Now().UTC().Truncate(time.Second)
		p := filepath.Join(dir, "a.txt")
		Expect(os.WriteFile(p, []byte("a\n"), 0o644)).To(Succeed())
		Expect(os.Chtimes(p, now.Add(-time.Minute), now.Add(-time.Minute))).To(Succeed())
		list := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="` + now.Format(time.RFC3339) + `"/>
  <url><loc>https://build.example.org/old/a.txt</loc><lastmod>2013-01-02T10:00:00Z</lastmod><rs:md length="2"/></url>
</urlset>`
		m, err := sourcehttp.ParseMap("https://build.example.org/res/=" + dir)
		Expect(err).NotTo(HaveOccurred())
		opts := testOptions()
		opts.Maps = []sourcehttp.Map{m}
		opts.HTTP.Transport = redirectServer{list: list, from: "/old/", to: "/res/"}
		opts.State = filepath.Join(GinkgoT().TempDir(), "state")
		for _, run := range []string{"live", "resumed"} {
			rep, err := crawler.Crawl(context.Background(), "https://build.example.org/resourcelist.xml", opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.EntryError).NotTo(HaveOccurred())
			if run == "resumed" {
				Expect(rep.State.Resumed).To(BeTrue())
			}
			n := rep.Graph.Node("https://build.example.org/old/a.txt")
			Expect(n).NotTo(BeNil())
			Expect(n.Redirects).To(HaveLen(2), run)
			Expect(n.Header.Get("Last-Modified")).To(BeEmpty(), run)
			res := result(rep, "https://build.example.org/resourcelist.xml")
			for _, d := range res.Diagnostics {
				Expect(d.Rule).NotTo(HavePrefix("RS-REP-"), run+": "+describe(rep, ""))
			}
			Expect(rep.Notes).To(ConsistOf(ContainSubstring("without Last-Modified")), run)
		}
		state, err := os.ReadFile(opts.State)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(state)).NotTo(ContainSubstring("Last-Modified"), "the state file records what the crawl was served")
	})
})

// redirectServer serves list at /resourcelist.xml and redirects the paths
// under from to the same paths under to; the rest is 404.
type redirectServer struct{ list, from, to string }

func (s redirectServer) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	switch rest, ok := strings.CutPrefix(r.URL.Path, s.from); {
	case r.URL.Path == "/resourcelist.xml":
		rec.Header().Set("Content-Type", "application/xml")
		rec.WriteString(s.list)
	case ok:
		u := *r.URL
		u.Path = s.to + rest
		http.Redirect(rec, r, u.String(), http.StatusMovedPermanently)
	default:
		http.NotFound(rec, r)
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

var _ = Describe("A FIFO in a --map folder", func() {
	It("is refused as a static server refuses it (403), instead of blocking the crawl", func() {
		dir := GinkgoT().TempDir()
		Expect(syscall.Mkfifo(filepath.Join(dir, "capabilitylist.xml"), 0o600)).To(Succeed())
		m, err := sourcehttp.ParseMap("https://build.example.org/=" + dir)
		Expect(err).NotTo(HaveOccurred())
		opts := testOptions()
		opts.Maps = []sourcehttp.Map{m}
		opts.HTTP.Transport = refuseTransport{}
		done := make(chan *crawler.Report, 1)
		go func() {
			defer GinkgoRecover()
			rep, err := crawler.Crawl(context.Background(), "https://build.example.org/capabilitylist.xml", opts)
			Expect(err).NotTo(HaveOccurred())
			done <- rep
		}()
		var rep *crawler.Report
		Eventually(done, 10*time.Second).Should(Receive(&rep))
		Expect(rep.EntryError).To(MatchError(ContainSubstring("403")))
	})
})

// fetchFrom returns what a site serves at a path, as served at
// http://127.0.0.1:1.
func fetchFrom(s *fixtures.Site, p string) (string, error) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1"+p, nil)
	if p == "/index.html" {
		req = httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
	}
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return "", fmt.Errorf("%s: %d", p, rec.Code)
	}
	return rec.Body.String(), nil
}

// refuseTransport fails every request that reaches it: a --map crawl must
// not touch the network.
type refuseTransport struct{}

func (refuseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("network request to %s in a --map test", r.URL)
}
