package sourcehttp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/sourcehttp"
)

func newFakeClock() *sourcehttp.StepClock {
	return sourcehttp.NewStepClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	Expect(err).NotTo(HaveOccurred())
	return u
}

func origins(entry string, allow ...string) *sourcehttp.Origins {
	o, err := sourcehttp.NewOrigins(mustURL(entry), allow)
	Expect(err).NotTo(HaveOccurred())
	return o
}

var _ = Describe("Retry-After", func() {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	DescribeTable("is read in seconds and HTTP-date form, capped",
		func(v string, want time.Duration, wantOK bool) {
			d, ok := sourcehttp.ParseRetryAfter(v, now)
			Expect(ok).To(Equal(wantOK))
			Expect(d).To(Equal(want))
		},
		Entry("seconds", "120", 120*time.Second, true),
		Entry("seconds with spaces", " 7 ", 7*time.Second, true),
		Entry("an HTTP-date 90 s ahead", now.Add(90*time.Second).Format(http.TimeFormat), 90*time.Second, true),
		Entry("an HTTP-date in the past", now.Add(-time.Hour).Format(http.TimeFormat), time.Duration(0), true),
		Entry("a huge number of seconds is capped, not overflowed", "99999999999999999999999999", 100*365*24*time.Hour, true),
		Entry("just above int64 nanoseconds", "9223372037", 100*365*24*time.Hour, true),
		Entry("negative", "-5", time.Duration(0), false),
		Entry("garbage", "soon", time.Duration(0), false),
		Entry("empty", "", time.Duration(0), false),
	)

	It("waits what the Source asks, on the injected clock", func() {
		var mu sync.Mutex
		tries := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			tries++
			n := tries
			mu.Unlock()
			if n == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
		}))
		defer srv.Close()
		clk := newFakeClock()
		c := sourcehttp.New(sourcehttp.Config{Retries: 2, Clock: clk, Origins: origins(srv.URL)})
		r := c.Get(context.Background(), srv.URL+"/x", sourcehttp.Request{})
		defer r.Close()
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(tries).To(Equal(2))
		Expect(clk.Slept()).To(Equal(7 * time.Second))
	})

	It("does not ask again when the Source asks for more than MaxRetryWait, however huge", func() {
		for _, v := range []string{"3600", "1000000000000000000000000"} {
			tries := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries++
				w.Header().Set("Retry-After", v)
				w.WriteHeader(http.StatusTooManyRequests)
			}))
			clk := newFakeClock()
			c := sourcehttp.New(sourcehttp.Config{Retries: 3, MaxRetryWait: time.Minute, Clock: clk, Origins: origins(srv.URL)})
			r := c.Get(context.Background(), srv.URL+"/x", sourcehttp.Request{})
			r.Close()
			Expect(tries).To(Equal(1), v)
			Expect(r.RetryAfter).To(BeNumerically(">", time.Minute), v)
			Expect(r.Failure()).To(ContainSubstring("Retry-After"))
			Expect(clk.Slept()).To(BeZero())
			_, err := c.Read(context.Background(), srv.URL+"/y", sourcehttp.Request{}, func(io.Reader) error { return nil })
			Expect(err).To(MatchError(ContainSubstring("more than the 1m0s allowed")))
			srv.Close()
		}
	})
})

var _ = Describe("Retries", func() {
	It("back off exponentially, capped by MaxRetryWait", func() {
		tries := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tries++
			w.WriteHeader(http.StatusBadGateway)
		}))
		defer srv.Close()
		clk := newFakeClock()
		c := sourcehttp.New(sourcehttp.Config{Retries: 3, Backoff: time.Second, MaxRetryWait: 3 * time.Second, Clock: clk})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{})
		r.Close()
		Expect(tries).To(Equal(4))
		Expect(r.Status).To(Equal(http.StatusBadGateway))
		Expect(clk.Waits()).To(Equal([]time.Duration{time.Second, 2 * time.Second, 3 * time.Second}))
	})

	It("fetch a body cut short again when reading", func() {
		tries := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tries++
			if tries == 1 {
				w.Header().Set("Content-Length", "100")
				w.Write([]byte("short"))
				return
			}
			w.Write([]byte("whole"))
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Retries: 1, Clock: newFakeClock()})
		var got []byte
		_, err := c.Read(context.Background(), srv.URL, sourcehttp.Request{}, func(r io.Reader) error {
			b, err := io.ReadAll(r)
			got = b
			return err
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("whole"))
		Expect(tries).To(Equal(2))
	})
})

var _ = Describe("Unanswered", func() {
	It("is a request the transport left without an answer, not an answer of any status nor a refusal of ours", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/loop":
				http.Redirect(w, r, "/loop", http.StatusFound)
			case "/away":
				http.Redirect(w, r, "http://elsewhere.example/", http.StatusFound)
			default:
				w.WriteHeader(http.StatusInternalServerError)
			}
		}))
		down := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		down.Close()
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Origins: origins(srv.URL, mustURL(down.URL).Host), Clock: newFakeClock()})
		unanswered := func(u string) bool {
			r := c.Get(context.Background(), u, sourcehttp.Request{})
			r.Close()
			return r.Unanswered()
		}
		Expect(unanswered(srv.URL+"/500")).To(BeFalse(), "an HTTP 500")
		Expect(unanswered(srv.URL+"/loop")).To(BeFalse(), "a redirect loop")
		Expect(unanswered(srv.URL+"/away")).To(BeFalse(), "a redirect to an origin not allowed")
		Expect(unanswered("http://elsewhere.example/")).To(BeFalse(), "an origin not allowed")
		Expect(unanswered("ftp://a.example/")).To(BeFalse(), "not http(s)")
		Expect(unanswered(down.URL+"/")).To(BeTrue(), "connection refused")

		untrusted := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // its handshake errors are the point
		untrusted.StartTLS()
		defer untrusted.Close()
		c = sourcehttp.New(sourcehttp.Config{Origins: origins(untrusted.URL), Clock: newFakeClock()})
		Expect(unanswered(untrusted.URL+"/")).To(BeFalse(), "a certificate not trusted")
	})
})

// gzipped is s in gzip.
func gzipped(s string) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(s))
	zw.Close()
	return z.Bytes()
}

var _ = Describe("Incomplete", func() {
	It("is a fetch without an answer, or whose body the transport cut, not a body the client stopped reading", func() {
		gz := gzipped(strings.Repeat("x", 1000))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/cut":
				// The server closes the connection 95 bytes short.
				w.Header().Set("Content-Length", "100")
				w.Write([]byte("short"))
			case "/stalled":
				w.Header().Set("Content-Length", "100")
				w.Write([]byte("short"))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			case "/gzip-cut":
				// A whole body whose gzip is cut: the server's, not the
				// transport's.
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(gz[:len(gz)/2])
			case "/500":
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte("oops"))
			default:
				w.Write(bytes.Repeat([]byte("x"), 4<<10))
			}
		}))
		defer srv.Close()
		down := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		down.Close()
		c := sourcehttp.New(sourcehttp.Config{Timeout: 200 * time.Millisecond, Retries: sourcehttp.NoRetries, Clock: newFakeClock()})
		// fetch reads at most limit bytes of the body (all: -1).
		fetch := func(c *sourcehttp.Client, u string, req sourcehttp.Request, limit int64) (*sourcehttp.Response, error) {
			r := c.Get(context.Background(), u, req)
			var err error
			if r.Body != nil {
				var body io.Reader = r.Body
				if limit >= 0 {
					body = io.LimitReader(r.Body, limit)
				}
				_, err = io.ReadAll(body)
			}
			r.Close()
			return r, err
		}
		r, err := fetch(c, srv.URL+"/cut", sourcehttp.Request{}, -1)
		Expect(err).To(MatchError(io.ErrUnexpectedEOF))
		Expect(r.Incomplete()).To(BeTrue(), "a body cut short of its Content-Length")
		Expect(r.Unanswered()).To(BeFalse(), "it was answered")
		r, err = fetch(c, srv.URL+"/stalled", sourcehttp.Request{}, -1)
		Expect(err).To(MatchError(ContainSubstring("the body did not arrive within 200ms")))
		Expect(r.Incomplete()).To(BeTrue(), "a body the time-out cut")
		r, _ = fetch(c, down.URL+"/", sourcehttp.Request{}, -1)
		Expect(r.Incomplete()).To(BeTrue(), "connection refused")

		r, err = fetch(c, srv.URL+"/whole", sourcehttp.Request{}, -1)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Incomplete()).To(BeFalse(), "a whole body")
		r, _ = fetch(c, srv.URL+"/whole", sourcehttp.Request{}, 10)
		Expect(r.Incomplete()).To(BeFalse(), "a body the client stopped reading (a size limit)")
		r, err = fetch(c, srv.URL+"/gzip-cut", sourcehttp.Request{Decode: true}, -1)
		Expect(err).To(MatchError(io.ErrUnexpectedEOF))
		Expect(r.Incomplete()).To(BeFalse(), "a whole body whose gzip is cut")
		r, _ = fetch(c, srv.URL+"/500", sourcehttp.Request{}, -1)
		Expect(r.Incomplete()).To(BeFalse(), "an HTTP 500")
		budget := sourcehttp.New(sourcehttp.Config{MaxBytes: 1000, Clock: newFakeClock()})
		r, err = fetch(budget, srv.URL+"/whole", sourcehttp.Request{}, -1)
		Expect(err).To(MatchError(sourcehttp.ErrBudget))
		Expect(r.Incomplete()).To(BeFalse(), "a body beyond the byte budget")

		// Over HTTP/2, a server that aborts partway resets the stream:
		// an error that is neither a net.Error nor an unexpected EOF.
		var resets atomic.Int32
		h2 := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/whole" {
				w.Write(bytes.Repeat([]byte("x"), 5000))
				return
			}
			resets.Add(1)
			w.Write(bytes.Repeat([]byte("x"), 5000))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}))
		h2.EnableHTTP2 = true
		h2.StartTLS()
		defer h2.Close()
		over2 := sourcehttp.New(sourcehttp.Config{Retries: sourcehttp.NoRetries, Clock: newFakeClock(), Transport: h2.Client().Transport})
		r, err = fetch(over2, h2.URL+"/reset", sourcehttp.Request{}, -1)
		Expect(err).To(MatchError(ContainSubstring("stream error")), "HTTP/2's own error")
		Expect(r.Incomplete()).To(BeTrue(), "an HTTP/2 stream reset partway: %v", err)
		r, err = fetch(over2, h2.URL+"/whole", sourcehttp.Request{}, -1)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Incomplete()).To(BeFalse(), "a whole body over HTTP/2")
		// Client.Read asks again for a body the transport cut, HTTP/2's
		// reset included.
		resets.Store(0)
		retrying := sourcehttp.New(sourcehttp.Config{Retries: 1, Backoff: time.Millisecond, Clock: newFakeClock(), Transport: h2.Client().Transport})
		r, err = retrying.Read(context.Background(), h2.URL+"/reset", sourcehttp.Request{}, func(b io.Reader) error {
			_, err := io.ReadAll(b)
			return err
		})
		Expect(err).To(MatchError(ContainSubstring("stream error")))
		Expect(r).To(BeNil())
		Expect(resets.Load()).To(BeEquivalentTo(2), "asked twice: --retries 1")
	})
})

var _ = Describe("The rate per host", func() {
	It("spaces the requests to one host on the injected clock", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer srv.Close()
		clk := newFakeClock()
		c := sourcehttp.New(sourcehttp.Config{Rate: 2, Clock: clk})
		for i := 0; i < 5; i++ {
			c.Get(context.Background(), srv.URL, sourcehttp.Request{}).Close()
		}
		Expect(clk.Slept()).To(Equal(2 * time.Second)) // 4 gaps of 500 ms
		Expect(c.Requests()).To(Equal(int64(5)))
	})
})

var _ = Describe("The origin policy", func() {
	DescribeTable("allows scheme, host and port",
		func(entry string, allow []string, target string, allowed, trusted bool) {
			o := origins(entry, allow...)
			Expect(o.Allowed(mustURL(target))).To(Equal(allowed), "allowed")
			Expect(o.Trusted(mustURL(target))).To(Equal(trusted), "trusted")
		},
		Entry("the entry origin", "http://a.example:8080/x", nil, "http://a.example:8080/y", true, true),
		Entry("another port of the entry host", "http://a.example:8080/", nil, "http://a.example:9090/", false, false),
		Entry("the default port of the entry host", "http://a.example:8080/", nil, "http://a.example/", false, false),
		Entry("the https upgrade on default ports", "http://a.example/", nil, "https://a.example/", true, true),
		Entry("no downgrade to http", "https://a.example/", nil, "http://a.example/", false, false),
		Entry("HOST:PORT allows that port", "http://a.example:8080/", []string{"a.example:9090"}, "http://a.example:9090/", true, true),
		Entry("HOST allows the default ports", "http://a.example/", []string{"cdn.example"}, "https://cdn.example/z", true, true),
		Entry("HOST does not allow another port", "http://a.example/", []string{"cdn.example"}, "https://cdn.example:8443/z", false, false),
		Entry("* allows, never trusts", "http://a.example/", []string{"*"}, "http://b.example:1234/", true, false),
		Entry("hosts compare case-insensitively", "http://A.Example/", []string{"CDN.example"}, "http://cdn.EXAMPLE/", true, true),
		Entry("IPv6 with a port", "http://[::1]:8080/", []string{"[::1]:9090"}, "http://[::1]:9090/", true, true),
		Entry("not http", "http://a.example/", []string{"*"}, "file:///etc/passwd", false, false),
	)

	It("rejects a malformed --allow-host", func() {
		_, err := sourcehttp.NewOrigins(mustURL("http://a.example/"), []string{"http://b.example/"})
		Expect(err).To(HaveOccurred())
		_, err = sourcehttp.NewOrigins(mustURL("http://a.example/"), []string{"b.example:port"})
		Expect(err).To(HaveOccurred())
	})

	It("refuses a redirect to another port of the entry host unless HOST:PORT allows it", func() {
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal") }))
		defer other.Close()
		entry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/admin", http.StatusFound)
		}))
		defer entry.Close()
		port := mustURL(other.URL).Port()

		c := sourcehttp.New(sourcehttp.Config{Origins: origins(entry.URL), Clock: newFakeClock(), Retries: 2})
		r := c.Get(context.Background(), entry.URL+"/", sourcehttp.Request{})
		Expect(r.Err).To(MatchError(ContainSubstring("--allow-host 127.0.0.1:" + port)))
		Expect(c.Requests()).To(Equal(int64(1)), "a refusal is not retried")

		c = sourcehttp.New(sourcehttp.Config{Origins: origins(entry.URL, "127.0.0.1"), Clock: newFakeClock()})
		r = c.Get(context.Background(), entry.URL+"/", sourcehttp.Request{})
		Expect(r.Err).To(HaveOccurred(), "a bare HOST allows the default ports only")

		c = sourcehttp.New(sourcehttp.Config{Origins: origins(entry.URL, "127.0.0.1:"+port), Clock: newFakeClock()})
		r = c.Get(context.Background(), entry.URL+"/", sourcehttp.Request{})
		defer r.Close()
		Expect(r.Err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(r.Redirects).To(Equal([]string{entry.URL + "/", other.URL + "/admin"}))
	})
})

var _ = Describe("The user's headers", func() {
	const secret = "Bearer s3cr3t-t0ken"
	It("reach the Source's origins only, redirects included", func() {
		var mu sync.Mutex
		seen := map[string]string{}
		record := func(name string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen[name] = r.Header.Get("Authorization") + "|" + r.Header.Get("X-Api-Key")
				mu.Unlock()
			}
		}
		foreign := httptest.NewServer(record("foreign"))
		defer foreign.Close()
		named := httptest.NewServer(record("named"))
		defer named.Close()
		mux := http.NewServeMux()
		mux.HandleFunc("/", record("entry"))
		mux.HandleFunc("/to-foreign", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, foreign.URL+"/", http.StatusFound) })
		mux.HandleFunc("/to-named", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, named.URL+"/", http.StatusFound) })
		entry := httptest.NewServer(mux)
		defer entry.Close()

		var hs sourcehttp.Headers
		Expect(hs.Set("Authorization: " + secret)).To(Succeed())
		Expect(hs.Set("X-Api-Key: k")).To(Succeed())
		Expect(hs.Err()).NotTo(HaveOccurred())
		o := origins(entry.URL, "*", mustURL(named.URL).Host)
		c := sourcehttp.New(sourcehttp.Config{Origins: o, Header: hs.Header(), Clock: newFakeClock()})
		for _, p := range []string{"/", "/to-foreign", "/to-named"} {
			r := c.Get(context.Background(), entry.URL+p, sourcehttp.Request{})
			Expect(r.Err).NotTo(HaveOccurred())
			r.Close()
		}
		Expect(seen).To(Equal(map[string]string{
			"entry":   secret + "|k",
			"foreign": "|",
			"named":   secret + "|k",
		}))
	})

	It("never show a value in their errors", func() {
		var hs sourcehttp.Headers
		hs.Set("Authorization " + secret) // no colon
		hs.Set("Bad Name s3cr3t: x")      // not a token
		hs.Set("X-Token: s3cr3t\x01")     // a control character
		hs.Set("Host: s3cr3t.example")    // the client's own
		Expect(hs.Err()).To(HaveOccurred())
		Expect(hs.Err().Error()).NotTo(ContainSubstring("s3cr3t"))
		Expect(hs.String()).NotTo(ContainSubstring("s3cr3t"))
		Expect(hs.Header()).To(BeNil())
	})

	It("are read from a file, # comments skipped", func() {
		name := filepath.Join(GinkgoT().TempDir(), "h")
		Expect(os.WriteFile(name, []byte("# a token\n\nAuthorization: "+secret+"\n  # indented comment\nX-A: 1\n"), 0o600)).To(Succeed())
		var hs sourcehttp.Headers
		Expect(hs.ReadFile(name)).To(Succeed())
		Expect(hs.Err()).NotTo(HaveOccurred())
		Expect(hs.Header()).To(Equal(http.Header{"Authorization": {secret}, "X-A": {"1"}}))
	})

	It("are read from a file of at most MaxHeaderFileBytes, a pipe or a device included", func() {
		name := filepath.Join(GinkgoT().TempDir(), "h")
		line := "X-A: 1\n"
		Expect(os.WriteFile(name, []byte(strings.Repeat(line, sourcehttp.MaxHeaderFileBytes/len(line)+1)), 0o600)).To(Succeed())
		var hs sourcehttp.Headers
		Expect(hs.ReadFile(name)).To(MatchError(name + ": the header file is larger than 1 MiB, more than any header file needs: refused"))
		Expect(hs.ReadFile("/dev/zero")).To(MatchError(ContainSubstring("/dev/zero" + ":")))
	})
})

var _ = Describe("Bodies", func() {
	It("are decoded from gzip when asked, and counted against the budget", func() {
		z := gzipped(strings.Repeat("x", 1000))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept-Encoding") != "gzip" {
				w.Write([]byte("plain"))
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(z)
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Clock: newFakeClock(), MaxBytes: 1 << 20})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{Decode: true})
		b, err := io.ReadAll(r.Body)
		r.Close()
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(HaveLen(1000))
		Expect(r.Header.Get("Content-Encoding")).To(Equal("gzip"))
		Expect(c.Bytes()).To(Equal(int64(len(z))))

		r = c.Get(context.Background(), srv.URL, sourcehttp.Request{AcceptEncoding: "identity"})
		b, _ = io.ReadAll(r.Body)
		r.Close()
		Expect(string(b)).To(Equal("plain"))
	})

	It("say so when the gzip is not gzip", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("<urlset/>"))
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Clock: newFakeClock()})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{Decode: true})
		_, err := io.ReadAll(r.Body)
		r.Close()
		Expect(err).To(MatchError(ContainSubstring("not the gzip its Content-Encoding says")))
	})

	It("stop at the byte budget", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte("x"), 64<<10))
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Clock: newFakeClock(), MaxBytes: 1000})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{})
		_, err := io.ReadAll(r.Body)
		r.Close()
		Expect(err).To(MatchError(sourcehttp.ErrBudget))
		Expect(c.BudgetLeft()).To(BeFalse())
	})

	It("are not read for a 304 to a conditional GET, nor for an error status", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/gone" {
				w.WriteHeader(http.StatusGone)
				return
			}
			if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte("body"))
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Clock: newFakeClock()})
		called := false
		r, err := c.Read(context.Background(), srv.URL, sourcehttp.Request{IfNoneMatch: `"v1"`, IfModifiedSince: "Mon, 02 Jan 2006 15:04:05 GMT"},
			func(io.Reader) error { called = true; return nil })
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusNotModified))
		Expect(called).To(BeFalse())
		_, err = c.Read(context.Background(), srv.URL+"/gone", sourcehttp.Request{}, func(io.Reader) error { called = true; return nil })
		var se *sourcehttp.StatusError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Gone()).To(BeTrue())
		Expect(called).To(BeFalse())
	})
})

var _ = Describe("The request method", func() {
	It("is GET unless the Request names another, and a HEAD's answer has no body", func() {
		var methods []string
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			methods = append(methods, r.Method)
			mu.Unlock()
			w.Write([]byte("body"))
		}))
		defer srv.Close()
		c := sourcehttp.New(sourcehttp.Config{Clock: newFakeClock()})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{Method: http.MethodHead})
		Expect(r.Status).To(Equal(http.StatusOK))
		b, err := io.ReadAll(r.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeEmpty())
		r.Close()
		r = c.Get(context.Background(), srv.URL, sourcehttp.Request{})
		b, err = io.ReadAll(r.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("body"))
		r.Close()
		Expect(methods).To(Equal([]string{http.MethodHead, http.MethodGet}))
	})
})

var _ = Describe("The Link header", func() {
	DescribeTable("is parsed once, by RFC 8288",
		func(values []string, rel string, want []string) {
			h := http.Header{"Link": values}
			Expect(sourcehttp.LinkTargets(h, rel)).To(Equal(want))
		},
		Entry("one link", []string{`</cl.xml>; rel="resourcesync"`}, "resourcesync", []string{"/cl.xml"}),
		Entry("several rels, any case", []string{`<a>; rel="describedby ResourceSync"`}, "resourcesync", []string{"a"}),
		Entry("comma inside <> and quotes", []string{`<http://x/a,b>; title="x, y"; rel=resourcesync, <c>; rel=other`}, "resourcesync", []string{"http://x/a,b"}),
		Entry("several header values", []string{`<a>; rel=other`, `<b>; rel=resourcesync`}, "resourcesync", []string{"b"}),
		Entry("semicolon inside quotes", []string{`<a>; title="x; rel=resourcesync"; rel=other`}, "resourcesync", []string(nil)),
		Entry("malformed", []string{`a; rel=resourcesync`, `<b; rel=resourcesync`}, "resourcesync", []string(nil)),
	)
})
