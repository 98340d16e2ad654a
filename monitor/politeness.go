package monitor

import (
	"net/http"
	"sync"
	"time"

	"github.com/rsconform/rsconform/sourcehttp"
)

// hostLimiter keeps each host's request rate across every crawl of the
// monitor: two Sources on one host share its rate, the smallest of the
// rates they ask for.
type hostLimiter struct {
	clock sourcehttp.Clock
	mu    sync.Mutex
	rates map[string]float64   // host:port → requests per second (0 none)
	next  map[string]time.Time // host:port → when it may be asked again
}

func newHostLimiter(c sourcehttp.Clock) *hostLimiter {
	return &hostLimiter{clock: c, rates: map[string]float64{}, next: map[string]time.Time{}}
}

// declare says that a Source on host asks for rate; the host keeps the
// smallest rate declared (a rate of 0 does not lift another's limit).
func (h *hostLimiter) declare(host string, rate float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.rates[host]; !ok || old == 0 || (rate > 0 && rate < old) {
		h.rates[host] = rate
	}
}

// reserve returns how long a request to host must wait: its turn at the
// host's rate (or rate, for a host no Source named, such as a CDN one
// allows), which it takes.
func (h *hostLimiter) reserve(host string, rate float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.rates[host]; ok && r > 0 && (rate == 0 || r < rate) {
		rate = r
	}
	if rate <= 0 {
		return 0
	}
	now := h.clock.Now()
	t := h.next[host]
	if t.Before(now) {
		t = now
	}
	h.next[host] = t.Add(time.Duration(float64(time.Second) / rate))
	return t.Sub(now)
}

// politeTransport waits for the host's turn before each request of one
// crawl (retries and redirects included: each is a round trip).
type politeTransport struct {
	next  http.RoundTripper
	hosts *hostLimiter
	rate  float64
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if wait := t.hosts.reserve(req.URL.Host, t.rate); wait > 0 {
		if err := t.hosts.clock.Sleep(req.Context(), wait); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	return t.next.RoundTrip(req)
}
