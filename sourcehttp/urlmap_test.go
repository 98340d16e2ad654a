package sourcehttp_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/sourcehttp"
)

var _ = Describe("--map URL=DIR", func() {
	parse := func(ss ...string) []sourcehttp.Map {
		var out []sourcehttp.Map
		for _, s := range ss {
			m, err := sourcehttp.ParseMap(s)
			Expect(err).NotTo(HaveOccurred(), s)
			out = append(out, m)
		}
		return out
	}

	DescribeTable("goes through the map of the URL's origin with the longest path prefix",
		func(maps []string, u string, want int, rest string) {
			i, r := sourcehttp.Longest(parse(maps...), mustURL(u))
			Expect(i).To(Equal(want))
			Expect(r).To(Equal(rest))
		},
		Entry("the origin's root", []string{"https://h/=a"}, "https://h/x/y.xml", 0, "x/y.xml"),
		Entry("the longest prefix", []string{"https://h/=a", "https://h/site/=b"}, "https://h/site/x.xml", 1, "x.xml"),
		Entry("whole segments only", []string{"https://h/=a", "https://h/site=b"}, "https://h/site2/x.xml", 0, "site2/x.xml"),
		Entry("a prefix without its slash covers its folder", []string{"https://h/site=b"}, "https://h/site/", 0, ""),
		Entry("scheme and host without case, a default port the same as none", []string{"HTTPS://H:443/=a"}, "https://h/x", 0, "x"),
		Entry("another port is another origin", []string{"https://h/=a"}, "https://h:8443/x", -1, ""),
		Entry("another scheme is another origin", []string{"https://h/=a"}, "http://h/x", -1, ""),
		Entry("another host is another origin (a plain string prefix would take it)", []string{"https://h/=a"}, "https://h.evil.example/x", -1, ""),
		Entry("escapes compared as written", []string{"https://h/a%20b/=a"}, "https://h/a%20b/c", 0, "c"),
	)

	It("refuses what is not URL=DIR with an http(s) URL prefix", func() {
		for _, s := range []string{"https://h/", "=dir", "ftp://h/=d", "https://h/?q=1=d", "/local=d"} {
			_, err := sourcehttp.ParseMap(s)
			Expect(err).To(MatchError(ContainSubstring("--map")), s)
		}
		m, err := sourcehttp.ParseMap("https://h/a=b=c")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Dir).To(Equal("b=c"), "the URL ends at the first =")
		Expect(m.String()).To(Equal("https://h/a/=b=c"))
	})

	Describe("serving the files of DIR", func() {
		var dir, outside string
		var client *http.Client
		BeforeEach(func() {
			dir, outside = GinkgoT().TempDir(), GinkgoT().TempDir()
			Expect(os.MkdirAll(filepath.Join(dir, "site", "sub"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "site", "list.xml"), []byte("<urlset/>"), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "site", "sub", "index.html"), []byte("<p>index</p>"), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "site", "resourcesync"), []byte("<?xml version='1.0'?><urlset/>"), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(outside, "secret.xml"), []byte("secret"), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "top.xml"), []byte("top"), 0o644)).To(Succeed())
			tr, err := sourcehttp.NewMapTransport(parse("https://h/="+filepath.Join(dir, "site")), nil)
			Expect(err).NotTo(HaveOccurred())
			client = &http.Client{Transport: tr}
		})
		get := func(u string, header ...string) (*http.Response, string) {
			GinkgoHelper()
			req, err := http.NewRequest(http.MethodGet, u, nil)
			Expect(err).NotTo(HaveOccurred())
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return resp, string(b)
		}

		It("serves a file with its type and length, a folder's index.html, and 404 for the rest", func() {
			resp, body := get("https://h/list.xml")
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(body).To(Equal("<urlset/>"))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/xml"))
			Expect(resp.ContentLength).To(Equal(int64(9)))
			Expect(resp.Header).NotTo(HaveKey("Last-Modified"), "a file's modification time is not its resource's")
			resp, _ = get("https://h/resourcesync")
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/xml"), "XML by its content")
			_, body = get("https://h/sub/")
			Expect(body).To(Equal("<p>index</p>"))
			resp, _ = get("https://h/missing.xml")
			Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		})

		It("answers ranges (http.ServeContent), and no If-Modified-Since from a made-up date", func() {
			future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
			resp, body := get("https://h/list.xml", "If-Modified-Since", future)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(body).To(Equal("<urlset/>"))
			resp, body = get("https://h/list.xml", "Range", "bytes=1-3")
			Expect(resp.StatusCode).To(Equal(http.StatusPartialContent))
			Expect(body).To(Equal("url"))
		})

		It("never leaves DIR: not by .., not by an escaped .., not by a symbolic link", func() {
			for _, u := range []string{"https://h/../top.xml", "https://h/%2e%2e/top.xml", "https://h/sub/..%2f..%2ftop.xml"} {
				resp, body := get(u)
				Expect(resp.StatusCode).To(Equal(http.StatusNotFound), u)
				Expect(body).NotTo(ContainSubstring("top"), u)
			}
			Expect(os.Symlink(filepath.Join(outside, "secret.xml"), filepath.Join(dir, "site", "link.xml"))).To(Succeed())
			Expect(os.Symlink(outside, filepath.Join(dir, "site", "out"))).To(Succeed())
			for _, u := range []string{"https://h/link.xml", "https://h/out/secret.xml"} {
				resp, body := get(u)
				Expect(resp.StatusCode).To(Equal(http.StatusForbidden), u)
				Expect(body).NotTo(ContainSubstring("secret\n"), u)
				Expect(body).NotTo(Equal("secret"), u)
			}
			Expect(os.Symlink("list.xml", filepath.Join(dir, "site", "alias.xml"))).To(Succeed())
			_, body := get("https://h/alias.xml")
			Expect(body).To(Equal("<urlset/>"), "a link inside DIR is followed")
		})

		It("answers 403 for a FIFO or a device instead of blocking on it", func() {
			Expect(syscall.Mkfifo(filepath.Join(dir, "site", "pipe.xml"), 0o600)).To(Succeed())
			Expect(os.Symlink("/dev/zero", filepath.Join(dir, "site", "zero.xml"))).To(Succeed())
			done := make(chan struct{})
			go func() {
				defer GinkgoRecover()
				defer close(done)
				resp, _ := get("https://h/pipe.xml")
				Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
			}()
			Eventually(done, 10*time.Second).Should(BeClosed())
			// /dev/zero is outside DIR: refused before its kind matters.
			resp, _ := get("https://h/zero.xml")
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		})

		It("passes the URLs no map covers to the next transport, and ends a request given up unread", func() {
			tr, err := sourcehttp.NewMapTransport(parse("https://h/="+filepath.Join(dir, "site")), nil)
			Expect(err).NotTo(HaveOccurred())
			_, err = (&http.Client{Transport: tr}).Get("https://other.example/")
			Expect(err).To(MatchError(ContainSubstring("no transport")))

			Expect(os.WriteFile(filepath.Join(dir, "site", "big.bin"), make([]byte, 1<<20), 0o644)).To(Succeed())
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://h/big.bin", nil)
			resp, err := tr.RoundTrip(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.ContentLength).To(Equal(int64(1 << 20)))
			cancel()
			var b [1]byte
			Eventually(func() error { _, err := resp.Body.Read(b[:]); return err }).Should(MatchError(context.Canceled))
		})

		It("refuses a DIR that is not a directory", func() {
			_, err := sourcehttp.NewMapTransport(parse("https://h/="+filepath.Join(dir, "top.xml")), nil)
			Expect(err).To(MatchError(ContainSubstring("not a directory")))
			_, err = sourcehttp.NewMapTransport(parse("https://h/="+filepath.Join(dir, "none")), nil)
			Expect(err).To(HaveOccurred())
		})
	})
})
