package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// syncBuffer is a bytes.Buffer safe to write from one goroutine and read
// from another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ = Describe("--format html", func() {
	It("writes one page with the findings and the lines of the document", func() {
		dir := GinkgoT().TempDir()
		out := filepath.Join(dir, "report.html")
		code, _, errs := cli("validate", "--format", "html", "-o", out, "../../fixtures/RS-CL-ORDER/fail-unsorted.xml")
		Expect(code).To(Equal(1), errs)
		page, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(page)).To(And(HavePrefix("<!DOCTYPE html>"), ContainSubstring(`data-rule="RS-CL-ORDER"`),
			ContainSubstring(`<span class="ln">7</span>`), ContainSubstring("<mark>"), ContainSubstring("docs/rules.md#rs-cl-order")))
	})

	It("renders a crawl of the mock Source as a tree", func() {
		code, out, errs := cli("crawl", "--mock", "--format", "html")
		Expect(code).To(Equal(0), errs)
		Expect(out).To(And(ContainSubstring(`<ul class="tree" id="tree">`), ContainSubstring("/dataset1/capabilitylist.xml")))
		Expect(strings.Count(out, `<li class="doc`)).To(BeNumerically(">", 10))
	})
})

var _ = Describe("rsconform serve", func() {
	It("prints help, and refuses arguments and bad limits", func() {
		code, out, _ := cli("serve", "--help")
		Expect(code).To(Equal(0))
		Expect(out).To(And(ContainSubstring("Usage: rsconform serve"), ContainSubstring("--allow-private"), ContainSubstring("reverse proxy")))
		code, _, _ = cli("serve", "extra")
		Expect(code).To(Equal(2))
		code, _, _ = cli("serve", "--max-jobs", "0")
		Expect(code).To(Equal(2))
		code, _, errs := cli("serve", "--addr", "256.0.0.1:99999")
		Expect(code).To(Equal(2), errs)
	})

	It("serves the form until its context ends", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, io.Discard, &stderr) }()
		addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
		Eventually(func() string { return addr.FindString(stderr.String()) }).WithTimeout(30 * time.Second).ShouldNot(BeEmpty())
		resp, err := http.Get(addr.FindString(stderr.String()))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(string(body)).To(ContainSubstring(`name="url"`))
		cancel()
		Eventually(done).WithTimeout(15 * time.Second).Should(Receive(Equal(0)))
	})
})
