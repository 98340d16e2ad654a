package main

import (
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 15: "a URL that hangs says the same friendly thing in validate as
// in crawl". The server answers nothing until the client gives up; the
// time-out is short so the test waits a fraction of a second.
var _ = Describe("A URL that never answers", func() {
	It("reads the same in validate and crawl: no answer within the --timeout, exit 2", func() {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		const want = "no answer within 200ms (--timeout)"
		code, out, errs := cli("validate", "--timeout", "200ms", "--retries", "0", srv.URL+"/rl.xml")
		Expect(code).To(Equal(2), "stdout: %s\nstderr: %s", out, errs)
		Expect(out + errs).To(ContainSubstring(want))
		code, out, errs = cli("crawl", "--timeout", "200ms", "--retries", "0", srv.URL+"/capabilitylist.xml")
		Expect(code).To(Equal(2), "stdout: %s\nstderr: %s", out, errs)
		Expect(out + errs).To(ContainSubstring(want))
	})
})
