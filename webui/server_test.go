package webui_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/webui"
)

var (
	schemaOnce sync.Once
	schemaV    frontend.LibXML2
)

// testSchema loads the XSDs once for the suite (libxml2 leaks per load).
func testSchema() frontend.LibXML2 {
	schemaOnce.Do(func() {
		var err error
		schemaV, err = frontend.New()
		Expect(err).NotTo(HaveOccurred())
	})
	return schemaV
}

// startValidator serves the web validator for one test.
func startValidator(o webui.Options) *httptest.Server {
	o.Schema = testSchema()
	o.Version = "test"
	h, err := webui.New(o)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	return srv
}

// startMock serves the mock Source with a scenario played to its end.
func startMock(name string) *httptest.Server {
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
	Expect(err).NotTo(HaveOccurred())
	for {
		if _, err := src.Step(); err != nil {
			Expect(errors.Is(err, mocksource.ErrFinished)).To(BeTrue(), "%v", err)
			break
		}
	}
	srv := httptest.NewServer(src.Handler())
	src.SetBaseURL(srv.URL)
	DeferCleanup(srv.Close)
	return srv
}

// countingServer answers every request with body and counts them.
func countingServer(body string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, body)
	}))
	DeferCleanup(srv.Close)
	return srv, &n
}

func postForm(srv *httptest.Server, fields url.Values) (*http.Response, string) {
	resp, err := http.PostForm(srv.URL+"/check", fields)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, string(b)
}

// postMultipart posts fields and, when name is set, a file.
func postMultipart(srv *httptest.Server, fields map[string]string, name string, data []byte) (*http.Response, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		Expect(mw.WriteField(k, v)).To(Succeed())
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		Expect(err).NotTo(HaveOccurred())
		_, err = fw.Write(data)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(mw.Close()).To(Succeed())
	resp, err := http.Post(srv.URL+"/check", mw.FormDataContentType(), &body)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, string(b)
}

func get(srv *httptest.Server, path string) (*http.Response, string) {
	resp, err := http.Get(srv.URL + path)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, string(b)
}

// unsorted is a Change List whose entries are out of order (RS-CL-ORDER).
const unsorted = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
  <url><loc>http://example.com/res2.pdf</loc><rs:md change="updated" datetime="2013-01-03T18:00:00Z"/></url>
  <url><loc>http://example.com/res3.tiff</loc><rs:md change="deleted" datetime="2013-01-03T13:00:00Z"/></url>
</urlset>
`

var _ = Describe("The form", func() {
	It("offers a URL, an upload and a pasted document, with headers that keep the page to itself", func() {
		srv := startValidator(webui.Options{})
		resp, body := get(srv, "/")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/html; charset=utf-8"))
		Expect(resp.Header.Get("Content-Security-Policy")).To(And(ContainSubstring("default-src 'none'"), ContainSubstring("frame-ancestors 'none'")))
		Expect(resp.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"))
		Expect(body).To(And(ContainSubstring(`name="url"`), ContainSubstring(`name="file"`), ContainSubstring(`name="xml"`),
			ContainSubstring(`action="check"`), ContainSubstring("Loopback, private and link-local addresses are refused")))
	})

	It("answers 404 for other paths and 405 for other methods", func() {
		srv := startValidator(webui.Options{})
		resp, _ := get(srv, "/nothing")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		req, err := http.NewRequest(http.MethodPut, srv.URL+"/check", nil)
		Expect(err).NotTo(HaveOccurred())
		resp, err = http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		resp, body := get(srv, "/check")
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(body).To(ContainSubstring("nothing to check"))
	})

	It("sends the URL to crawl in the link (GET), so a report can be shared", func() {
		srv := startValidator(webui.Options{})
		_, body := get(srv, "/")
		Expect(body).To(ContainSubstring(`<form class="check" id="check-url" method="get" action="check">`))
	})
})

var _ = Describe("Checking a document", func() {
	It("validates a pasted document and reports its findings with the lines and rule links", func() {
		srv := startValidator(webui.Options{})
		resp, body := postMultipart(srv, map[string]string{"xml": unsorted, "spec": "1.1"}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring("Report: pasted document"), ContainSubstring(`data-rule="RS-CL-ORDER"`),
			ContainSubstring(`href="rules/RS-CL-ORDER"`), ContainSubstring(`href="./"`), ContainSubstring(`<mark>`),
			ContainSubstring("Does not conform")))
	})

	It("validates an uploaded file, gzip or not, under its name", func() {
		srv := startValidator(webui.Options{})
		resp, body := postMultipart(srv, nil, "changelist.xml", []byte(unsorted))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring("Report: changelist.xml"), ContainSubstring(`data-rule="RS-CL-ORDER"`)))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(unsorted))
		zw.Close()
		resp, body = postMultipart(srv, nil, "changelist.xml.gz", gz.Bytes())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`data-rule="RS-CL-ORDER"`))
	})

	It("keeps an upload in memory: nothing is written to the temporary directory", func() {
		tmp := GinkgoT().TempDir()
		GinkgoT().Setenv("TMPDIR", tmp)
		// Looked at while the job runs: net/http removes a spilled form's
		// files when the handler returns.
		var during []os.DirEntry
		var listed atomic.Bool
		logf := func(string, ...any) {
			entries, err := os.ReadDir(tmp)
			if err == nil {
				during = entries
				listed.Store(true)
			}
		}
		srv := startValidator(webui.Options{MaxBody: 4 << 20, Logf: logf})
		big := []byte(unsorted + "<!--" + strings.Repeat("x", 2<<20) + "-->")
		resp, body := postMultipart(srv, map[string]string{"spec": "1.1"}, "big.xml", big)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`data-rule="RS-CL-ORDER"`))
		Expect(listed.Load()).To(BeTrue())
		Expect(during).To(BeEmpty())
	})

	It("validates a pasted document sent urlencoded, with --strict and the 1.0 profile", func() {
		srv := startValidator(webui.Options{})
		resp, body := postForm(srv, url.Values{"xml": {unsorted}, "strict": {"1"}, "spec": {"1.0"}})
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring("ResourceSync 1.0"), ContainSubstring("strict: warnings fail")))
	})

	DescribeTable("refuses a request that does not say one thing to check",
		func(fields url.Values, want string) {
			srv := startValidator(webui.Options{})
			resp, body := postForm(srv, fields)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(body).To(ContainSubstring(want))
		},
		Entry("nothing", url.Values{}, "nothing to check"),
		Entry("a URL and a document", url.Values{"url": {"http://example.com/"}, "xml": {unsorted}}, "give one thing to check"),
		Entry("not http", url.Values{"url": {"ftp://example.com/x.xml"}}, "not an http or https URL"),
		Entry("credentials in the URL", url.Values{"url": {"http://u:p@example.com/"}}, "user name or password"),
		Entry("an unknown spec", url.Values{"xml": {unsorted}, "spec": {"2.0"}}, "unknown spec version"),
	)

	It("refuses a form encoding it does not read", func() {
		srv := startValidator(webui.Options{})
		resp, err := http.Post(srv.URL+"/check", "application/json", strings.NewReader(`{"url":"x"}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	})
})

var _ = Describe("Limits", func() {
	It("refuses a request body over --max-body with 413, pasted or uploaded", func() {
		srv := startValidator(webui.Options{MaxBody: 1024})
		big := unsorted + "<!--" + strings.Repeat("x", 4096) + "-->"
		resp, body := postMultipart(srv, map[string]string{"xml": big}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(body).To(ContainSubstring("too large"))
		resp, _ = postMultipart(srv, nil, "big.xml", []byte(big))
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		resp, _ = postForm(srv, url.Values{"xml": {big}})
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		// Under the limit, it still works.
		resp, _ = postMultipart(srv, map[string]string{"xml": unsorted}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	})

	It("refuses a check beyond --max-jobs with 503 while the others run", func() {
		arrived := make(chan struct{}, 1)
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case arrived <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			http.NotFound(w, r)
		}))
		DeferCleanup(slow.Close)
		srv := startValidator(webui.Options{MaxJobs: 1, AllowPrivate: true})
		first := make(chan int, 1)
		go func() {
			defer GinkgoRecover()
			resp, _ := postForm(srv, url.Values{"url": {slow.URL + "/capabilitylist.xml"}})
			first <- resp.StatusCode
		}()
		Eventually(arrived).WithTimeout(10 * time.Second).Should(Receive())
		resp, body := postMultipart(srv, map[string]string{"xml": unsorted}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusServiceUnavailable))
		Expect(resp.Header.Get("Retry-After")).NotTo(BeEmpty())
		Expect(body).To(ContainSubstring("busy"))
		close(release)
		Eventually(first).WithTimeout(10 * time.Second).Should(Receive(Equal(http.StatusOK)))
		// The slot is free again.
		resp, _ = postMultipart(srv, map[string]string{"xml": unsorted}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	})

	It("stops a crawl at --job-timeout and says the report is partial", func() {
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}))
		DeferCleanup(hang.Close)
		srv := startValidator(webui.Options{JobTimeout: 300 * time.Millisecond, AllowPrivate: true})
		start := time.Now()
		resp, body := postForm(srv, url.Values{"url": {hang.URL + "/capabilitylist.xml"}})
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring("The crawl was stopped after 300ms"))
	})
})

// manyFindings is a Resource List of n entries, each with a relative
// <loc>: two findings an entry, and work for the validator.
func manyFindings(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for i := 0; i < n; i++ {
		b.WriteString("<url><loc>x</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// eofReader reads r and closes eof when r is at its end.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

// Issue 26: the web validator under abuse.
var _ = Describe("Abuse", func() {
	It("reads a body before taking a job slot: a slow body holds none, and gets 408 at --body-timeout", func() {
		srv := startValidator(webui.Options{MaxJobs: 1, BodyTimeout: time.Second})
		var slow []net.Conn
		for i := 0; i < 3; i++ {
			c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			_, err = io.WriteString(c, "POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nxml=")
			Expect(err).NotTo(HaveOccurred())
			slow = append(slow, c)
		}
		time.Sleep(200 * time.Millisecond) // the handlers are reading the bodies
		// Checked while the slow bodies are still awaited (a job slot
		// taken before the body would answer 503 at once).
		resp, body := postMultipart(srv, map[string]string{"xml": unsorted}, "", nil)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), body)
		readers := make([]*bufio.Reader, len(slow))
		for i, c := range slow {
			Expect(c.SetReadDeadline(time.Now().Add(time.Millisecond))).To(Succeed())
			readers[i] = bufio.NewReader(c)
			_, err := readers[i].ReadString('\n')
			Expect(err).To(MatchError(os.ErrDeadlineExceeded), "a slow body was answered before the check was")
		}
		for i, c := range slow {
			Expect(c.SetReadDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
			line, err := readers[i].ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			Expect(line).To(HavePrefix("HTTP/1.1 408"))
		}
	})

	It("stops validating an upload at --job-timeout, with 503 and no verdict", func() {
		var mu sync.Mutex
		var logged []string
		srv := startValidator(webui.Options{JobTimeout: 200 * time.Millisecond, Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprintf(format, args...))
		}})
		resp, body := postMultipart(srv, nil, "many.xml", manyFindings(300_000))
		Expect(resp.StatusCode).To(Equal(http.StatusServiceUnavailable))
		Expect(body).To(ContainSubstring("The check was stopped after 200ms"))
		// How long the validation ran (the upload itself not counted).
		mu.Lock()
		defer mu.Unlock()
		Expect(logged).To(HaveLen(1))
		took, err := time.ParseDuration(logged[0][strings.LastIndex(logged[0], " ")+1:])
		Expect(err).NotTo(HaveOccurred(), logged[0])
		Expect(took).To(BeNumerically("<", 2*time.Second))
	})

	It("stops validating when the visitor hangs up", func() {
		var mu sync.Mutex
		var logged []string
		o := webui.Options{Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprintf(format, args...))
		}}
		srv := startValidator(o)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, err := mw.CreateFormFile("file", "many.xml")
		Expect(err).NotTo(HaveOccurred())
		_, err = fw.Write(manyFindings(300_000))
		Expect(err).NotTo(HaveOccurred())
		Expect(mw.Close()).To(Succeed())
		// Hung up 200 ms after the whole body is sent: the validation runs.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sent := make(chan struct{})
		go func() {
			<-sent
			time.Sleep(200 * time.Millisecond)
			cancel()
		}()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/check", &eofReader{r: &body, eof: sent})
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		_, err = http.DefaultClient.Do(req)
		Expect(err).To(HaveOccurred())
		hungUp := time.Now()
		Eventually(func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), logged...)
		}).WithTimeout(5 * time.Second).Should(ContainElement(ContainSubstring("stopped, the visitor has gone")))
		Expect(time.Since(hungUp)).To(BeNumerically("<", 3*time.Second))
	})

	It("shows at most --max-findings findings of a document, says how many more, and gives all as JSON", func() {
		srv := startValidator(webui.Options{MaxFindings: 100})
		data := manyFindings(1000)
		resp, body := postMultipart(srv, nil, "many.xml", data)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(strings.Count(body, `<li class="finding `)).To(Equal(100))
		Expect(body).To(ContainSubstring("1,900 more findings of this document are not shown: the page shows the first 100. Check it again with the report format JSON or SARIF for all of them."))
		Expect(body).To(ContainSubstring(">1001 errors<"), "the counts are of all findings")

		resp, body = postMultipart(srv, map[string]string{"format": "json"}, "many.xml", data)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		var rep struct {
			Documents []struct{ Findings []json.RawMessage }
		}
		Expect(json.Unmarshal([]byte(body), &rep)).To(Succeed())
		Expect(rep.Documents[0].Findings).To(HaveLen(2000))
	})

	It("keeps --max-findings-per-rule findings of a rule per document, as the CLI does, counting the others", func() {
		type report struct {
			Documents []struct {
				Findings []struct{ Rule string }
				Omitted  []struct {
					Rule  string
					Count int
				}
			}
		}
		perRule := func(o webui.Options, entries int) (kept, omitted map[string]int) {
			srv := startValidator(o)
			resp, body := postMultipart(srv, map[string]string{"format": "json"}, "many.xml", manyFindings(entries))
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			var rep report
			Expect(json.Unmarshal([]byte(body), &rep)).To(Succeed())
			kept, omitted = map[string]int{}, map[string]int{}
			for _, f := range rep.Documents[0].Findings {
				kept[f.Rule]++
			}
			for _, om := range rep.Documents[0].Omitted {
				omitted[om.Rule] += om.Count
			}
			return kept, omitted
		}
		// manyFindings has two rules with a finding per entry (the
		// first entry's <loc> is not a duplicate).
		kept, omitted := perRule(webui.Options{MaxFindingsPerRule: 10}, 50)
		Expect(omitted).To(HaveLen(2))
		for rule, n := range omitted {
			Expect(kept[rule]).To(Equal(10), rule)
			Expect(kept[rule]+n).To(BeNumerically(">=", 49), rule)
		}
		// The default is the CLI's.
		kept, omitted = perRule(webui.Options{}, engine.DefaultMaxFindingsPerRule+5)
		Expect(omitted).To(HaveLen(2))
		for rule, n := range omitted {
			Expect(kept[rule]).To(Equal(engine.DefaultMaxFindingsPerRule), rule)
			Expect(kept[rule]+n).To(BeNumerically(">=", engine.DefaultMaxFindingsPerRule+4), rule)
		}
	})

	It("refuses an element with too many attributes at once (RS-LIMIT-ATTRS)", func() {
		srv := startValidator(webui.Options{})
		var b strings.Builder
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(&b, " x:a%d='1'", i)
		}
		doc := strings.Replace(unsorted, `<rs:md capability="changelist"`, `<rs:md xmlns:x="urn:x"`+b.String()+` capability="changelist"`, 1)
		start := time.Now()
		resp, body := postMultipart(srv, nil, "attrs.xml", []byte(doc))
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring("RS-LIMIT-ATTRS"))
	})
})

// testNames is the resolver the tests inject: loopback.test and source.test
// are 127.0.0.1, every other name is unknown. No test resolves a name
// through the system resolver.
func testNames(ctx context.Context, network, host string) ([]netip.Addr, error) {
	switch host {
	case "loopback.test", "source.test":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "not a name of the test resolver", Name: host, IsNotFound: true}
}

var _ = Describe("Refusing private addresses", func() {
	DescribeTable("refuses, before any request, a URL whose host is or resolves to a private address",
		func(host func(port string) string, want string) {
			target, hits := countingServer("<urlset/>")
			u, err := url.Parse(target.URL)
			Expect(err).NotTo(HaveOccurred())
			srv := startValidator(webui.WithLookup(webui.Options{}, testNames))
			resp, body := postForm(srv, url.Values{"url": {"http://" + host(u.Port()) + "/capabilitylist.xml"}})
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
			Expect(body).To(ContainSubstring(want))
			Expect(hits.Load()).To(BeZero())
		},
		Entry("loopback", func(p string) string { return "127.0.0.1:" + p }, "127.0.0.1 is a loopback address"),
		Entry("a name for loopback", func(p string) string { return "loopback.test:" + p }, "loopback.test resolves to"),
		Entry("IPv6 loopback", func(p string) string { return "[::1]:" + p }, "loopback"),
		Entry("IPv4-mapped loopback", func(p string) string { return "[::ffff:127.0.0.1]:" + p }, "loopback"),
		Entry("private", func(p string) string { return "10.1.2.3:" + p }, "a private address"),
		Entry("link-local (cloud metadata)", func(p string) string { return "169.254.169.254:" + p }, "a link-local address"),
		Entry("carrier-grade NAT", func(p string) string { return "100.64.0.1:" + p }, "special-purpose"),
		Entry("unspecified", func(p string) string { return "0.0.0.0:" + p }, "address"),
	)

	It("refuses when the connection is made, whatever the name resolved to before (DNS rebinding)", func() {
		target, hits := countingServer("<urlset/>")
		u, err := url.Parse(target.URL)
		Expect(err).NotTo(HaveOccurred())
		// The early check is told the name is public; the connection then
		// resolves it to loopback.
		var lookups atomic.Int64
		rebinding := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			if lookups.Add(1) == 1 {
				return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
			}
			return testNames(ctx, network, host)
		}
		srv := startValidator(webui.WithLookup(webui.Options{}, rebinding))
		resp, body := postForm(srv, url.Values{"url": {"http://source.test:" + u.Port() + "/capabilitylist.xml"}})
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring("The entry point is unusable"), ContainSubstring("is a loopback address")))
		Expect(hits.Load()).To(BeZero())
		Expect(lookups.Load()).To(BeNumerically(">=", 2), "the connection resolved the name through the injected resolver")
	})

	It("connects through the resolver it is given, to the early check's and to the connection's names", func() {
		target, hits := countingServer("<urlset/>")
		u, err := url.Parse(target.URL)
		Expect(err).NotTo(HaveOccurred())
		srv := startValidator(webui.WithLookup(webui.Options{AllowPrivate: true, Rate: -1}, testNames))
		resp, body := postForm(srv, url.Values{"url": {"http://source.test:" + u.Port() + "/capabilitylist.xml"}})
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(hits.Load()).To(BeNumerically(">", 0), body)
		// A name the resolver does not know is not looked up elsewhere.
		resp, body = postForm(srv, url.Values{"url": {"http://unknown.test:" + u.Port() + "/capabilitylist.xml"}})
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring("not a name of the test resolver"))
	})

	It("refuses at dial time in the transport itself, redirects included", func() {
		target, hits := countingServer("<urlset/>")
		client := &http.Client{Transport: webui.NewTransportWithLookup(false, 5*time.Second, testNames)}
		for _, u := range []string{target.URL, strings.Replace(target.URL, "127.0.0.1", "loopback.test", 1)} {
			_, err := client.Get(u)
			var refused *webui.RefusedError
			Expect(errors.As(err, &refused)).To(BeTrue(), "%v", err)
			Expect(refused.Reason).To(Equal("a loopback address"))
		}
		Expect(hits.Load()).To(BeZero())
		// With --allow-private the same transport connects.
		resp, err := (&http.Client{Transport: webui.NewTransport(true, 5*time.Second)}).Get(target.URL)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(hits.Load()).To(Equal(int64(1)))
	})

	It("crawls the mock Source when started with --allow-private", func() {
		mock := startMock("showcase")
		srv := startValidator(webui.Options{AllowPrivate: true, Rate: -1})
		resp, body := postForm(srv, url.Values{"url": {mock.URL + "/.well-known/resourcesync"}})
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring(mock.URL+"/dataset1/capabilitylist.xml"), ContainSubstring(`class="tree"`),
			ContainSubstring("Report: "+mock.URL)))
		Expect(body).NotTo(ContainSubstring("The entry point is unusable"))
		Expect(body).To(ContainSubstring(`<p class="sampling">sampled `), "the crawl's sampling summary")

		// GET /check?url= answers the same report, as a link.
		resp, linked := get(srv, "/check?"+url.Values{"url": {mock.URL + "/.well-known/resourcesync"}}.Encode())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(linked).To(Equal(body))
		// A link never carries a document.
		resp, _ = get(srv, "/check?"+url.Values{"xml": {unsorted}}.Encode())
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	})
})

var _ = Describe("Rule pages", func() {
	It("lists every rule", func() {
		srv := startValidator(webui.Options{})
		resp, body := get(srv, "/rules/")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(And(ContainSubstring(`href="RS-CL-ORDER"`), ContainSubstring(`href="RS-XSD"`)))
	})

	It("explains a rule with its quote and a failing and a passing example, whatever the case of its ID", func() {
		srv := startValidator(webui.Options{})
		for _, id := range []string{"RS-CL-ORDER", "rs-cl-order"} {
			resp, body := get(srv, "/rules/"+id)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(body).To(And(ContainSubstring("RS-CL-ORDER: Change List entries are in forward chronological order"),
				ContainSubstring(`id="quote"`), ContainSubstring("12.1 Change List"),
				ContainSubstring(`id="fail-example"`), ContainSubstring(`id="pass-example"`),
				ContainSubstring("fixtures/RS-CL-ORDER/fail-"), ContainSubstring("&lt;urlset")))
		}
	})

	It("answers 404 for an unknown rule", func() {
		srv := startValidator(webui.Options{})
		resp, body := get(srv, "/rules/RS-NO-SUCH-RULE")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(body).To(ContainSubstring("no rule of that name"))
	})
})
