package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// tokenSource serves the mock Source (scenario showcase, played to its
// end) behind a bearer token: a request without it gets 401. It counts the
// requests with and without the token.
type tokenSource struct {
	srv               *httptest.Server
	mu                sync.Mutex
	withToken, denied int
}

const secretToken = "s3cr3t-T0KEN-value"

func newTokenSource() *tokenSource {
	sc, err := scenario.Load("showcase")
	Expect(err).NotTo(HaveOccurred())
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
	Expect(err).NotTo(HaveOccurred())
	Expect(src.PlayToEnd()).To(Succeed())
	ts := &tokenSource{}
	h := src.Handler()
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ok := r.Header.Get("Authorization") == "Bearer "+secretToken
		if ok {
			ts.withToken++
		} else {
			ts.denied++
		}
		ts.mu.Unlock()
		if !ok {
			http.Error(w, "a token is needed", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	src.SetBaseURL(ts.srv.URL)
	DeferCleanup(ts.srv.Close)
	return ts
}

func (ts *tokenSource) counts() (int, int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.withToken, ts.denied
}

var _ = Describe("--header and --header-file", func() {
	It("reach the Source and never appear in a report of any format, nor on standard error", func() {
		ts := newTokenSource()
		entry := ts.srv.URL + "/.well-known/resourcesync"
		header := "Authorization: Bearer " + secretToken
		for _, format := range []string{"text", "json", "junit", "sarif"} {
			code, out, errs := cli("validate", "--header", header, "--format", format, "-v", entry)
			Expect(code).To(Equal(0), "validate %s: %s", format, errs)
			Expect(out + errs).NotTo(ContainSubstring(secretToken))

			code, out, errs = cli("crawl", "--header", header, "--rate", "0", "--format", format, "-v", "--progress", "always", entry)
			Expect(code).NotTo(Equal(2), "crawl %s: %s", format, errs)
			Expect(out).To(ContainSubstring("changelist"))
			Expect(out + errs).NotTo(ContainSubstring(secretToken))
		}
		withToken, denied := ts.counts()
		Expect(withToken).To(BeNumerically(">", 20))
		Expect(denied).To(BeZero(), "every request carried the header")

		file := filepath.Join(GinkgoT().TempDir(), "headers")
		Expect(os.WriteFile(file, []byte("# the token\n"+header+"\n"), 0o600)).To(Succeed())
		dir := GinkgoT().TempDir()
		code, out, errs := cli("sync", "--header-file", file, "--rate", "0", "--format", "json", entry, dir)
		Expect(code).To(Equal(0), errs)
		Expect(out + errs).NotTo(ContainSubstring(secretToken))
		_, denied = ts.counts()
		Expect(denied).To(BeZero())

		// Without the token the Source refuses; the reports say 401.
		code, out, _ = cli("validate", "--format", "json", entry)
		Expect(code).To(Equal(2))
		Expect(out).To(ContainSubstring("401"))
	})

	It("never echo a malformed header's value", func() {
		for _, cmd := range [][]string{
			{"validate", "--header", "Authorization Bearer " + secretToken, "http://127.0.0.1:1/x.xml"},
			{"crawl", "--header", "X-Token: " + secretToken + "\x01", "http://127.0.0.1:1/"},
			{"sync", "--header", "Bad Name " + secretToken + ": x", "http://127.0.0.1:1/", GinkgoT().TempDir()},
		} {
			code, out, errs := cli(cmd...)
			Expect(code).To(Equal(2), strings.Join(cmd, " "))
			Expect(errs).To(ContainSubstring("--header #1"))
			Expect(out + errs).NotTo(ContainSubstring(secretToken))
		}
	})
})
