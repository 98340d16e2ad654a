package mocksource_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("Resources over HTTP", func() {
	var m *mock
	BeforeEach(func() { m = startScenario("incremental-changelist", mocksource.Options{}) })

	It("carry Content-Length, Content-Type, Last-Modified, a strong ETag and a Link to the Capability List", func() {
		resp, body := m.get("/res/0000001.html")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/html"))
		Expect(resp.Header.Get("Content-Length")).To(Equal(strconv.Itoa(len(body))))
		Expect(resp.Header.Get("ETag")).To(MatchRegexp(`^"[0-9a-f]{16}"$`))
		lm, err := http.ParseTime(resp.Header.Get("Last-Modified"))
		Expect(err).NotTo(HaveOccurred())
		Expect(lm).To(BeTemporally("<", m.src.Now()))
		Expect(resp.Header.Get("Link")).To(Equal("<" + m.srv.URL + `/dataset1/capabilitylist.xml>; rel="resourcesync"`))
		Expect(string(body)).To(HavePrefix("<!DOCTYPE html>"))
		_, again := m.get("/res/0000001.html")
		Expect(again).To(Equal(body))
	})

	It("answer conditional GETs with 304 Not Modified", func() {
		resp, _ := m.get("/res/0000000.txt")
		etag, lastmod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		for _, h := range [][]string{
			{"If-None-Match", etag},
			{"If-None-Match", "W/" + etag},
			{"If-None-Match", `"nope", ` + etag},
			{"If-None-Match", "*"},
			{"If-Modified-Since", lastmod},
			{"If-Modified-Since", m.src.Now().Format(http.TimeFormat)},
		} {
			r, b := m.get("/res/0000000.txt", h...)
			Expect(r.StatusCode).To(Equal(http.StatusNotModified), "%v", h)
			Expect(b).To(BeEmpty())
			Expect(r.Header.Get("ETag")).To(Equal(etag))
		}
		for _, h := range [][]string{
			{"If-None-Match", `"0000000000000000"`},
			{"If-Modified-Since", "Mon, 01 Jan 2024 00:00:00 GMT"},
			// If-None-Match wins over If-Modified-Since.
			{"If-None-Match", `"other"`, "If-Modified-Since", lastmod},
		} {
			r, b := m.get("/res/0000000.txt", h...)
			Expect(r.StatusCode).To(Equal(http.StatusOK), "%v", h)
			Expect(b).NotTo(BeEmpty())
		}
	})

	It("change ETag and Last-Modified when updated, and answer 404 once deleted", func() {
		in := m.step()
		_, cl := m.get("/dataset1/changelist.xml")
		d, err := rs.ParseBytes(cl)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(in.Changes))
		updated := m.pathOf(d.Entries[0].Loc)
		m.step()
		resp, _ := m.get("/res/0000002.json")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		r, body := m.get(updated, "If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		lm, _ := http.ParseTime(r.Header.Get("Last-Modified"))
		Expect(lm).To(Equal(in.Time))
		Expect(d.Entries[0].Md.Hash).To(Equal(hashAttr(body)))
		r, _ = m.get(updated, "If-Modified-Since", "Thu, 01 Jan 2026 00:15:00 GMT")
		Expect(r.StatusCode).To(Equal(http.StatusNotModified))
	})

	It("answer HEAD without a body, refuse other methods, and 404 unknown paths", func() {
		resp, err := m.client.Head(m.url("/res/0000001.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.ContentLength).To(BeNumerically(">", 0))
		resp.Body.Close()
		resp, err = m.client.Post(m.url("/res/0000001.html"), "text/plain", nil)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		for _, p := range []string{"/res/9999999.txt", "/res/0000001.txt", "/nothing", "/dataset1/changelist/7.xml", "/dataset1/resourcelist/1.xml", "/dataset1/changedump.xml"} {
			r, _ := m.get(p)
			Expect(r.StatusCode).To(Equal(http.StatusNotFound), p)
		}
	})

	It("answer 410 Gone for deleted resources when the scenario says so", func() {
		m := startScenario("create-update-delete", mocksource.Options{})
		m.step()
		m.step()
		m.step()
		r, _ := m.get("/res/life/report.html")
		Expect(r.StatusCode).To(Equal(http.StatusGone))
		m.step()
		r, _ = m.get("/res/life/report.html")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
	})

	It("serve documents with ETags and honour If-None-Match", func() {
		resp, _ := m.get("/dataset1/changelist.xml")
		etag := resp.Header.Get("ETag")
		Expect(etag).NotTo(BeEmpty())
		r, _ := m.get("/dataset1/changelist.xml", "If-None-Match", etag)
		Expect(r.StatusCode).To(Equal(http.StatusNotModified))
		m.step()
		r, _ = m.get("/dataset1/changelist.xml", "If-None-Match", etag)
		Expect(r.StatusCode).To(Equal(http.StatusOK))
	})

	It("write the configured base URL, or the request's Host", func() {
		_, body := m.get("/.well-known/resourcesync")
		Expect(string(body)).To(ContainSubstring("<loc>" + m.srv.URL + "/dataset1/capabilitylist.xml</loc>"))
		m.src.SetBaseURL("https://rs.example.org/")
		_, body = m.get("/.well-known/resourcesync")
		Expect(string(body)).To(ContainSubstring("<loc>https://rs.example.org/dataset1/capabilitylist.xml</loc>"))
	})
})

var _ = Describe("Faults", func() {
	It("answer 503 with Retry-After as many times as armed, then recover", func() {
		m := startScenario("flaky-server", mocksource.Options{})
		m.step()
		for i := 0; i < 2; i++ {
			r, _ := m.get("/dataset1/changelist.xml")
			Expect(r.StatusCode).To(Equal(http.StatusServiceUnavailable))
			Expect(r.Header.Get("Retry-After")).To(Equal("2"))
		}
		r, body := m.get("/dataset1/changelist.xml")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		res := theValidator().ValidateBytes(context.Background(), m.url("/dataset1/changelist.xml"), body)
		Expect(res.Diagnostics).To(BeEmpty(), findings(res))

		r, _ = m.get("/res/0000002.json")
		Expect(r.StatusCode).To(Equal(http.StatusInternalServerError))
		r, _ = m.get("/res/0000002.json")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
	})

	It("drop connections, truncate bodies and delay responses", func() {
		m := startScenario("flaky-server", mocksource.Options{})
		m.step()
		_, err := m.client.Get(m.url("/res/0000004.html"))
		Expect(err).To(HaveOccurred(), "the connection is dropped")
		r, _ := m.get("/res/0000004.html")
		Expect(r.StatusCode).To(Equal(http.StatusOK))

		resp, err := m.client.Get(m.url("/res/0000005.json"))
		Expect(err).NotTo(HaveOccurred())
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(err).To(MatchError(io.ErrUnexpectedEOF))
		Expect(b).To(HaveLen(20))
		Expect(resp.ContentLength).To(BeNumerically(">", 20))
		r, full := m.get("/res/0000005.json")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		Expect(full[:20]).To(Equal(b))

		impatient := &http.Client{Timeout: 300 * time.Millisecond, Transport: m.client.Transport}
		_, err = impatient.Get(m.url("/res/0000010.html"))
		Expect(err).To(HaveOccurred(), "a timeout")
		start := time.Now()
		r, _ = m.get("/res/0000010.html")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		Expect(time.Since(start)).To(BeNumerically(">=", 20*time.Millisecond))
		Expect(time.Since(start)).To(BeNumerically("<", time.Second))

		var faults []string
		for _, rq := range m.src.Log() {
			if rq.Fault != "" {
				faults = append(faults, rq.Path+" "+rq.Fault)
			}
		}
		Expect(faults).To(ContainElements("/res/0000004.html latency=20ms,drop", "/res/0000005.json latency=20ms,truncate=20"))

		m.step() // clear-faults
		start = time.Now()
		for _, p := range []string{"/dataset1/changelist.xml", "/res/0000004.html", "/res/0000010.html"} {
			r, _ := m.get(p)
			Expect(r.StatusCode).To(Equal(http.StatusOK))
		}
		Expect(time.Since(start)).To(BeNumerically("<", time.Second))
	})

	It("serve malformed XML, redirect documents and resources, and answer 410", func() {
		m := startScenario("broken-documents", mocksource.Options{})
		m.step()
		r, body := m.get("/dataset1/changelist.xml")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		res := theValidator().ValidateBytes(context.Background(), "changelist.xml", body)
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Diagnostics).To(ContainElement(HaveField("Rule", "RS-XML-WELLFORMED")))
		r, body = m.get("/dataset1/changelist.xml")
		Expect(theValidator().ValidateBytes(context.Background(), "changelist.xml", body).Status).To(Equal(engine.StatusValid))

		r, _ = m.get("/dataset1/resourcelist.xml")
		Expect(r.StatusCode).To(Equal(http.StatusFound))
		loc := r.Header.Get("Location")
		Expect(loc).To(Equal(m.srv.URL + "/moved/dataset1/resourcelist.xml"))
		r, moved := m.get(m.pathOf(loc))
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		_, direct := m.get("/dataset1/resourcelist.xml")
		Expect(moved).To(Equal(direct))

		for i := 0; i < 2; i++ {
			r, _ = m.get("/res/0000001.html")
			Expect(r.StatusCode).To(Equal(http.StatusMovedPermanently))
		}
		resLoc := r.Header.Get("Location")
		Expect(resLoc).To(Equal(m.srv.URL + "/moved/res/0000001.html"))
		r, _ = m.get(m.pathOf(resLoc))
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		// The log names the followed redirects by the path asked, so a
		// followed redirect is told from a direct GET.
		var asked []string
		for _, rq := range m.src.Log() {
			asked = append(asked, fmt.Sprintf("%s %s %d", rq.Method, rq.Path, rq.Status))
		}
		Expect(asked).To(ContainElements(
			"GET /moved/dataset1/resourcelist.xml 200", "GET /moved/res/0000001.html 200"))
		_, d := m.get("/dataset1/changelist.xml")
		doc, err := rs.ParseBytes(d)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range doc.Entries {
			if e.Md.Change == "deleted" {
				r, _ := m.get(m.pathOf(e.Loc))
				Expect(r.StatusCode).To(Equal(http.StatusGone))
			}
		}
	})

	It("advertise wrong hashes where armed, and true ones elsewhere", func() {
		m := startScenario("wrong-hash", mocksource.Options{})
		m.step()
		_, body := m.get("/dataset1/resourcelist.xml")
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		wrong := 0
		for _, e := range d.Entries {
			_, b := m.get(m.pathOf(e.Loc))
			Expect(e.Md.Length).To(Equal(strconv.Itoa(len(b))))
			switch m.pathOf(e.Loc) {
			case "/res/0000003.txt", "/res/0000010.html":
				Expect(e.Md.Hash).NotTo(Equal(hashAttr(b)))
				Expect(e.Md.Hash).To(MatchRegexp(`^md5:[0-9a-f]{32} sha-256:[0-9a-f]{64}$`))
				wrong++
			default:
				Expect(e.Md.Hash).To(Equal(hashAttr(b)))
			}
		}
		Expect(wrong).To(Equal(2))
		// The Expected state is the truth, not the advertised hash.
		_, b := m.get("/res/0000003.txt")
		Expect(m.src.Expected()["/res/0000003.txt"].SHA256).To(Equal(sha(b)))
	})

	It("are not applied with IgnoreFaults", func() {
		m := startScenario("flaky-server", mocksource.Options{IgnoreFaults: true})
		m.step()
		r, _ := m.get("/dataset1/changelist.xml")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
	})
})

var _ = Describe("The control API", func() {
	post := func(m *mock, p string) (*http.Response, []byte) {
		resp, err := m.client.Post(m.url(p), "application/json", nil)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}

	It("steps, reports the expected state and the request log", func() {
		m := startScenario("incremental-changelist", mocksource.Options{})
		r, _ := m.get("/_rsconform/step")
		Expect(r.StatusCode).To(Equal(http.StatusMethodNotAllowed))

		resp, body := post(m, "/_rsconform/step")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var in mocksource.StepInfo
		Expect(json.Unmarshal(body, &in)).To(Succeed())
		Expect(in.Step).To(Equal(1))
		Expect(in.Time).To(Equal(time.Date(2026, 1, 1, 0, 15, 0, 0, time.UTC)))
		Expect(in.Expect).NotTo(BeNil())
		Expect(string(body)).To(ContainSubstring(`"time": "2026-01-01T00:15:00Z"`))

		r, body = m.get("/_rsconform/expected")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		Expect(r.Header.Get("X-Rsconform-Step")).To(Equal("1"))
		var exp map[string]mocksource.ExpectedResource
		Expect(json.Unmarshal(body, &exp)).To(Succeed())
		Expect(exp).To(Equal(m.src.Expected()))
		Expect(exp).To(HaveLen(50))
		Expect(exp["/res/0000001.html"].Type).To(Equal("text/html"))

		first, _ := m.get("/res/0000001.html")
		m.get("/res/0000001.html", "If-None-Match", first.Header.Get("ETag"), "User-Agent", "dest/1")
		r, body = m.get("/_rsconform/log")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		var log []mocksource.Request
		Expect(json.Unmarshal(body, &log)).To(Succeed())
		Expect(log).To(HaveLen(2), "control requests are not logged")
		Expect(log[1].Status).To(Equal(http.StatusNotModified))
		Expect(log[1].Headers).To(HaveKeyWithValue("If-None-Match", first.Header.Get("ETag")))
		Expect(log[1].Headers).To(HaveKeyWithValue("User-Agent", "dest/1"))
		Expect(log[1].Time).To(Equal(in.Time))
		Expect(log[1].Seq).To(Equal(int64(2)))
		_, body = m.get("/_rsconform/log?since=1")
		Expect(json.Unmarshal(body, &log)).To(Succeed())
		Expect(log).To(HaveLen(1))

		r, body = m.get("/_rsconform/status")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		Expect(string(body)).To(ContainSubstring(`"scenario": "incremental-changelist"`))

		post(m, "/_rsconform/step")
		post(m, "/_rsconform/step")
		resp, body = post(m, "/_rsconform/step")
		Expect(resp.StatusCode).To(Equal(http.StatusConflict))
		Expect(string(body)).To(ContainSubstring(`"done": true`))
		_, err := m.src.Step()
		Expect(err).To(MatchError(mocksource.ErrFinished))
		r, _ = m.get("/_rsconform/nope")
		Expect(r.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("advances on a real-time cadence", func() {
		m := startScenario("incremental-changelist", mocksource.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		Expect(m.src.AutoAdvance(ctx, 5*time.Millisecond)).To(Succeed())
		Expect(m.src.Info().Done).To(BeTrue())

		m = startScenario("incremental-changelist", mocksource.Options{})
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		Expect(m.src.AutoAdvance(ctx, time.Hour)).To(MatchError(context.Canceled))
		Expect(m.src.Info().Step).To(Equal(0))
	})
})

var _ = Describe("Concurrency", func() {
	It("gives many Destinations correct answers while the scenario plays", func() {
		m := startScenario("changelist-rollover", mocksource.Options{})
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var mu sync.Mutex
		var problems []string
		report := func(format string, args ...any) {
			mu.Lock()
			problems = append(problems, strings.TrimSpace(format+" "+strings.Repeat("%v ", len(args))))
			mu.Unlock()
		}
		paths := []string{"/.well-known/resourcesync", "/dataset1/capabilitylist.xml", "/dataset1/resourcelist.xml",
			"/dataset1/changelist.xml", "/res/0000003.txt", "/res/0000010.html", "/res/0000001.html", "/res/after-close.txt"}
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func(g int) {
				defer GinkgoRecover()
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					p := paths[(g+i)%len(paths)]
					resp, err := m.client.Get(m.url(p))
					if err != nil {
						report("GET", p, err)
						return
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch {
					case err != nil:
						report("read", p, err)
					case resp.StatusCode == http.StatusNotFound && strings.HasPrefix(p, "/res/"):
					case resp.StatusCode != http.StatusOK:
						report("status", p, resp.StatusCode)
					case strconv.Itoa(len(b)) != resp.Header.Get("Content-Length"):
						report("length", p)
					case strings.HasPrefix(p, "/dataset1/"):
						if _, err := rs.ParseBytes(b); err != nil {
							report("parse", p, err)
						}
					}
				}
			}(g)
		}
		for !m.src.Info().Done {
			time.Sleep(20 * time.Millisecond)
			m.step()
			m.src.Expected()
			m.src.Log()
		}
		close(stop)
		wg.Wait()
		Expect(problems).To(BeEmpty())

		// At rest, every Destination reads the same truth.
		exp := m.src.Expected()
		wg = sync.WaitGroup{}
		errs := make(chan error, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p, e := range exp {
					resp, err := m.client.Get(m.url(p))
					if err != nil {
						errs <- err
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if sha(b) != e.SHA256 || resp.Header.Get("Content-Type") != e.Type {
						errs <- errors.New("wrong content for " + p)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		Expect(errs).To(BeEmpty())
	})
})

var _ = Describe("A million resources", func() {
	It("are served without holding bodies: the Resource List Index of 20 lists comes at once", func() {
		start := time.Now()
		m := startScenario("large-source", mocksource.Options{Resources: 1_000_000})
		resp, body := m.get("/dataset1/resourcelist.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Kind()).To(Equal(rs.ResourceListIndex))
		Expect(d.Entries).To(HaveLen(20))
		Expect(m.pathOf(d.Entries[19].Loc)).To(Equal("/dataset1/resourcelist/1-20.xml"))
		res := theValidator().ValidateBytes(context.Background(), m.url("/dataset1/resourcelist.xml"), body)
		Expect(res.Diagnostics).To(BeEmpty(), findings(res))
		r, b := m.get("/res/0999999.txt")
		Expect(r.StatusCode).To(Equal(http.StatusOK))
		Expect(b).NotTo(BeEmpty())
		m.step()
		resp, _ = m.get("/dataset1/changelist.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
	})

	It("serve a list of 50,000 entries of the index", Label("slow"), func() {
		skipUnlessSlow()
		m := startScenario("large-source", mocksource.Options{Resources: 1_000_000})
		start := time.Now()
		resp, body := m.get("/dataset1/resourcelist/1-20.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		GinkgoWriter.Printf("rendered 50,000 entries (%d bytes) in %v\n", len(body), time.Since(start))
		res := theValidator().ValidateBytes(context.Background(), m.url("/dataset1/resourcelist/1-20.xml"), body)
		Expect(res.Diagnostics).To(BeEmpty(), findings(res))
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(50000))
		Expect(m.pathOf(d.Entries[49999].Loc)).To(Equal("/res/0999999.txt"))
	})
})

var _ = Describe("Serve", func() {
	It("serves on a listener until the context is done", func() {
		sc, err := scenario.Load("incremental-changelist")
		Expect(err).NotTo(HaveOccurred())
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		src.SetBaseURL("http://" + ln.Addr().String())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- src.Serve(ctx, ln) }()
		resp, err := http.Get("http://" + ln.Addr().String() + "/.well-known/resourcesync")
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(string(b)).To(ContainSubstring("http://" + ln.Addr().String() + "/dataset1/capabilitylist.xml"))
		cancel()
		Eventually(done).WithTimeout(5 * time.Second).Should(Receive(BeNil()))
	})
})
