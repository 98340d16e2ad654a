package sourcehttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/sourcehttp"
)

var _ = Describe("A 404 asked once more (RetryNotFound)", func() {
	serve := func(statuses ...int) (*httptest.Server, *int) {
		tries := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := statuses[min(tries, len(statuses)-1)]
			tries++
			w.WriteHeader(s)
		}))
		DeferCleanup(srv.Close)
		return srv, &tries
	}

	It("gets the document answered on the second ask, the 404 in Earlier", func() {
		srv, tries := serve(404, 200)
		c := sourcehttp.New(sourcehttp.Config{Retries: 2, Clock: newFakeClock()})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{RetryNotFound: true})
		r.Close()
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(r.Earlier).To(Equal([]int{404}))
		Expect(*tries).To(Equal(2))
	})

	It("asks only once more, whatever the retries", func() {
		srv, tries := serve(404)
		c := sourcehttp.New(sourcehttp.Config{Retries: 3, Clock: newFakeClock()})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{RetryNotFound: true})
		r.Close()
		Expect(r.Status).To(Equal(http.StatusNotFound))
		Expect(r.Earlier).To(Equal([]int{404}))
		Expect(*tries).To(Equal(2))
	})

	It("does not ask again without RetryNotFound, nor without retries", func() {
		srv, tries := serve(404, 200)
		r := sourcehttp.New(sourcehttp.Config{Retries: 2, Clock: newFakeClock()}).Get(context.Background(), srv.URL, sourcehttp.Request{})
		r.Close()
		Expect(r.Status).To(Equal(http.StatusNotFound))
		Expect(r.Earlier).To(BeEmpty())
		r = sourcehttp.New(sourcehttp.Config{Clock: newFakeClock()}).Get(context.Background(), srv.URL, sourcehttp.Request{RetryNotFound: true})
		r.Close()
		Expect(r.Status).To(Equal(http.StatusOK)) // the server's second answer
		Expect(*tries).To(Equal(2))
	})

	It("records a 503 retried before the answer", func() {
		srv, _ := serve(503, 200)
		c := sourcehttp.New(sourcehttp.Config{Retries: 2, Clock: newFakeClock()})
		r := c.Get(context.Background(), srv.URL, sourcehttp.Request{})
		r.Close()
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(r.Earlier).To(Equal([]int{503}))
	})
})
