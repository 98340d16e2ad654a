package main

import (
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("The HTTP server of serve and monitor --addr", func() {
	It("refuses headers over 64 KB, and its shutdown cuts a request still running after the grace", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		started, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				close(started)
				<-release
			}
		})
		done, shutdown := startHTTPServer(ln, h, 0, time.Minute, 200*time.Millisecond)
		base := "http://" + ln.Addr().String()
		req, err := http.NewRequest("GET", base+"/", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("X-Big", strings.Repeat("a", 100<<10))
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusRequestHeaderFieldsTooLarge))

		slow := make(chan error, 1)
		go func() {
			resp, err := http.Get(base + "/slow")
			if err == nil {
				resp.Body.Close()
			}
			slow <- err
		}()
		Eventually(started, 10*time.Second).Should(BeClosed())
		t0 := time.Now()
		shutdown()
		Expect(time.Since(t0)).To(BeNumerically("<", 5*time.Second))
		Eventually(done).Should(Receive(MatchError(http.ErrServerClosed)))
		Eventually(slow, 2*time.Second).Should(Receive(HaveOccurred()), "the request in progress was cut")
	})
})
