package crawler_test

import (
	"context"
	"hash/fnv"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
)

// delayTransport answers each URL after a delay of its own.
type delayTransport struct {
	next  http.RoundTripper
	delay func(url string) time.Duration
}

func (t delayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(t.delay(req.URL.String()))
	return t.next.RoundTrip(req)
}

// Two crawls of one Source report the same, whatever order their fetches
// complete in: with requests in flight, that order is not the crawl's.
var _ = Describe("The order of a crawl's report", func() {
	It("does not depend on the order the fetches complete in", func() {
		h, _, want := showcaseBaseline()
		crawl := func(concurrency int, delay func(string) time.Duration) string {
			pauses := 0
			opts := stateOpts(delayTransport{newCounting(h), delay}, "", &pauses)
			opts.HTTP.Concurrency = concurrency
			rep, err := crawler.Crawl(context.Background(), stateEntry, opts)
			Expect(err).NotTo(HaveOccurred())
			return reportJSON(rep)
		}
		spread := func(u string) int {
			f := fnv.New32a()
			f.Write([]byte(u))
			return int(f.Sum32() % 4)
		}
		// want is the crawl one request at a time.
		// The same URLs slow in one crawl are fast in the other.
		Expect(crawl(4, func(u string) time.Duration { return time.Duration(spread(u)) * time.Millisecond })).To(Equal(want))
		Expect(crawl(4, func(u string) time.Duration { return time.Duration(3-spread(u)) * time.Millisecond })).To(Equal(want))
	})
})
