package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// errBudget is returned by reads once the crawl's byte budget is spent.
var errBudget = errors.New("the crawl's byte budget (--max-bytes) is spent")

// errHostNotAllowed refuses URLs on hosts the crawl may not visit.
type errHostNotAllowed struct{ host string }

func (e *errHostNotAllowed) Error() string {
	return fmt.Sprintf("host %s is not the entry point's host and not allowed with --allow-host", e.host)
}

// fetcher does every HTTP request of a crawl: one User-Agent, a rate per
// host, retries with back-off, bounded redirects, allowed hosts only, and
// a byte budget shared by all bodies.
type fetcher struct {
	client       *http.Client
	userAgent    string
	timeout      time.Duration
	retries      int
	maxRedirects int
	backoff      time.Duration
	maxWait      time.Duration
	allowed      func(host string) bool

	rateMu   sync.Mutex
	interval time.Duration
	next     map[string]time.Time

	maxBytes int64
	bytes    atomic.Int64
	requests atomic.Int64
}

// response is the outcome of one fetch.
// failure says why a fetch gave no usable body ("fetch failed: ..."), or "".
func (r *response) failure() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("fetch failed: %v", r.Err)
	case r.Status < 200 || r.Status > 299:
		return fmt.Sprintf("fetch failed: HTTP %d %s", r.Status, http.StatusText(r.Status))
	}
	return ""
}

type response struct {
	// URL is the URL asked for; Final the one that answered.
	URL, Final string
	Status     int
	Header     http.Header
	// Redirects lists the URLs went through (URL first) when there was a
	// redirect.
	Redirects []string
	// Body is the body, read within the time-out and the byte budget;
	// nil when Err is set. The caller closes it.
	Body io.ReadCloser
	Err  error
}

func (r *response) close() {
	if r.Body != nil {
		r.Body.Close()
	}
}

// wait blocks until the host may be asked again.
func (f *fetcher) wait(ctx context.Context, host string) error {
	if f.interval <= 0 {
		return ctx.Err()
	}
	f.rateMu.Lock()
	now := time.Now()
	t := f.next[host]
	if t.Before(now) {
		t = now
	}
	f.next[host] = t.Add(f.interval)
	f.rateMu.Unlock()
	return sleep(ctx, time.Until(t))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// retryable reports whether a status is worth asking again: overload and
// the transient server errors (a 500 is often one).
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter reads a Retry-After header (seconds or an HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t), true
	}
	return 0, false
}

// get fetches rawURL with GET. accept and acceptEncoding set the request's
// headers when not empty. Every attempt has its own time-out, which also
// bounds the reading of the body.
func (f *fetcher) get(ctx context.Context, rawURL, accept, acceptEncoding string) *response {
	res := &response{URL: rawURL}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		res.Err = fmt.Errorf("not an http(s) URL: %q", rawURL)
		return res
	}
	if !f.allowed(u.Hostname()) {
		res.Err = &errHostNotAllowed{host: u.Host}
		return res
	}
	delay := f.backoff
	for attempt := 0; ; attempt++ {
		if err := f.wait(ctx, u.Host); err != nil {
			res.Err = err
			return res
		}
		r := f.once(ctx, rawURL, accept, acceptEncoding)
		last := attempt >= f.retries || ctx.Err() != nil
		var hna *errHostNotAllowed
		switch {
		case r.Err != nil && !last && !errors.As(r.Err, &hna) && !errors.Is(r.Err, errTooManyRedirects):
		case r.Err == nil && retryable(r.Status) && !last:
		default:
			return r
		}
		wait := delay
		if r.Err == nil {
			if d, ok := retryAfter(r.Header); ok {
				wait = d
			}
		}
		if wait > f.maxWait {
			wait = f.maxWait
		}
		r.close()
		if err := sleep(ctx, wait); err != nil {
			res.Err = err
			return res
		}
		delay *= 2
	}
}

var errTooManyRedirects = errors.New("too many redirects")

// once makes one attempt.
func (f *fetcher) once(ctx context.Context, rawURL, accept, acceptEncoding string) *response {
	res := &response{URL: rawURL}
	actx, cancel := context.WithTimeout(ctx, f.timeout)
	req, err := http.NewRequestWithContext(actx, http.MethodGet, rawURL, nil)
	if err != nil {
		cancel()
		res.Err = err
		return res
	}
	req.Header.Set("User-Agent", f.userAgent)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	var chain []string
	client := *f.client
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(chain) == 0 {
			chain = append(chain, via[0].URL.String())
		}
		chain = append(chain, r.URL.String())
		if len(via) > f.maxRedirects {
			return fmt.Errorf("%w: more than %d", errTooManyRedirects, f.maxRedirects)
		}
		if !f.allowed(r.URL.Hostname()) {
			return &errHostNotAllowed{host: r.URL.Host}
		}
		for _, v := range via {
			if v.URL.String() == r.URL.String() {
				return fmt.Errorf("%w: a redirect loop back to %s", errTooManyRedirects, r.URL)
			}
		}
		return nil
	}
	f.requests.Add(1)
	resp, err := client.Do(req)
	res.Redirects = chain
	if err != nil {
		cancel()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s (--timeout)", f.timeout)
		}
		res.Err = err
		return res
	}
	res.Final = resp.Request.URL.String()
	res.Status = resp.StatusCode
	res.Header = resp.Header
	res.Body = &budgetBody{rc: resp.Body, f: f, cancel: cancel, timeout: f.timeout, ctx: actx}
	return res
}

// budgetBody counts the bytes read against the crawl's budget, and turns
// the attempt's time-out into a readable error.
type budgetBody struct {
	rc      io.ReadCloser
	f       *fetcher
	cancel  context.CancelFunc
	ctx     context.Context
	timeout time.Duration
}

func (b *budgetBody) Read(p []byte) (int, error) {
	if b.f.maxBytes > 0 && b.f.bytes.Load() >= b.f.maxBytes {
		return 0, errBudget
	}
	n, err := b.rc.Read(p)
	b.f.bytes.Add(int64(n))
	if err != nil && err != io.EOF && b.ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("the body did not arrive within %s (--timeout)", b.timeout)
	}
	return n, err
}

func (b *budgetBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// budgetLeft reports whether the byte budget still allows reading.
func (f *fetcher) budgetLeft() bool {
	return f.maxBytes <= 0 || f.bytes.Load() < f.maxBytes
}
