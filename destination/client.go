package destination

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// limiter spaces requests (at most one per interval) and holds every
// request back while the Source asked us to wait (Retry-After): a 503
// means the Source as a whole is busy, not one worker.
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
	pause    time.Time
}

func newLimiter(rate float64) *limiter {
	l := &limiter{}
	if rate > 0 {
		l.interval = time.Duration(float64(time.Second) / rate)
	}
	return l
}

// wait blocks until the next request may go.
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	at := now
	if l.pause.After(at) {
		at = l.pause
	}
	if l.interval > 0 {
		if l.next.After(at) {
			at = l.next
		}
		l.next = at.Add(l.interval)
	}
	l.mu.Unlock()
	return sleep(ctx, time.Until(at))
}

// pauseFor holds every request back for d.
func (l *limiter) pauseFor(d time.Duration) {
	l.mu.Lock()
	if t := time.Now().Add(d); t.After(l.pause) {
		l.pause = t
	}
	l.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HTTPError is a final, unsuccessful HTTP status.
type HTTPError struct {
	URL    string
	Status int
	Msg    string
}

func (e *HTTPError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.URL, e.Status, http.StatusText(e.Status), e.Msg)
	}
	return fmt.Sprintf("%s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// Gone reports whether the resource does not exist (404, 410).
func (e *HTTPError) Gone() bool {
	return e.Status == http.StatusNotFound || e.Status == http.StatusGone
}

// retryable marks an error met while reading a body that is worth a new
// request (a truncated body, a reset connection).
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// conditional holds the validators of a conditional GET; identity asks
// for the representation without content coding, whose hash and length
// the Source describes (a download checked for fixity).
type conditional struct {
	etag         string
	lastModified string
	identity     bool
}

// fetcher makes requests politely: User-Agent, a rate limit, a timeout
// per request, retries with exponential back-off, and Retry-After
// honoured (up to a bound) on 429 and 503.
type fetcher struct {
	client  *http.Client
	o       *Options
	lim     *limiter
	mu      sync.Mutex
	reqs    int
	bytesIn int64
}

func newFetcher(o *Options) *fetcher {
	c := o.Client
	if c == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = o.Concurrency + 2
		tr.ResponseHeaderTimeout = o.Timeout
		c = &http.Client{Transport: tr}
	}
	return &fetcher{client: c, o: o, lim: newLimiter(o.Rate)}
}

// response is what a successful get returns.
type response struct {
	status       int // 200 or 304
	url          string
	etag         string
	lastModified string
	contentType  string
	link         []string
}

// get requests url, retrying as configured. For a 200, body is called with
// the response body; an error it returns that wraps retryable (or an
// unexpected EOF) leads to a new request, any other ends the get. A 304
// (only possible with cond) is returned without calling body.
func (f *fetcher) get(ctx context.Context, url string, cond conditional, body func(io.Reader) error) (*response, error) {
	var last error
	for attempt := 0; attempt <= f.o.Retries; attempt++ {
		if attempt > 0 {
			back := f.o.RetryBase << (attempt - 1)
			back = back/2 + time.Duration(rand.Int64N(int64(back)))
			if back > 30*time.Second {
				back = 30 * time.Second
			}
			var ra *retryAfterError
			if errors.As(last, &ra) {
				back = 0 // the limiter holds the request back
			}
			if err := sleep(ctx, back); err != nil {
				return nil, err
			}
		}
		resp, err, again := f.once(ctx, url, cond, body)
		if err == nil {
			return resp, nil
		}
		last = err
		if !again || ctx.Err() != nil {
			break
		}
		f.o.logf("retrying %s: %v", url, err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, last
}

type retryAfterError struct {
	url    string
	status int
	wait   time.Duration
}

func (e *retryAfterError) Error() string {
	return fmt.Sprintf("%s: HTTP %d, Retry-After %v", e.url, e.status, e.wait)
}

// once makes one request; again says whether a failure is worth a retry.
func (f *fetcher) once(ctx context.Context, url string, cond conditional, body func(io.Reader) error) (resp *response, err error, again bool) {
	if err := f.lim.wait(ctx); err != nil {
		return nil, err, false
	}
	rctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err, false
	}
	req.Header.Set("User-Agent", f.o.UserAgent)
	if cond.etag != "" {
		req.Header.Set("If-None-Match", cond.etag)
	}
	if cond.lastModified != "" {
		req.Header.Set("If-Modified-Since", cond.lastModified)
	}
	if cond.identity {
		req.Header.Set("Accept-Encoding", "identity")
	}
	f.mu.Lock()
	f.reqs++
	f.mu.Unlock()
	hr, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err(), false
		}
		return nil, fmt.Errorf("%s: %w", url, err), transient(err)
	}
	defer func() {
		// Drain a little so the connection can be reused.
		io.CopyN(io.Discard, hr.Body, 4096)
		hr.Body.Close()
	}()
	r := &response{status: hr.StatusCode, url: hr.Request.URL.String(), etag: hr.Header.Get("ETag"),
		lastModified: hr.Header.Get("Last-Modified"), contentType: hr.Header.Get("Content-Type"),
		link: hr.Header.Values("Link")}
	switch {
	case hr.StatusCode == http.StatusOK:
		cr := &countingReader{r: hr.Body}
		err := body(cr)
		f.mu.Lock()
		f.bytesIn += cr.n
		f.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err(), false
			}
			var rt retryable
			if errors.As(err, &rt) || errors.Is(err, io.ErrUnexpectedEOF) || transient(err) {
				return nil, err, true
			}
			return nil, err, false
		}
		return r, nil, false
	case hr.StatusCode == http.StatusNotModified && (cond.etag != "" || cond.lastModified != ""):
		return r, nil, false
	case hr.StatusCode == http.StatusTooManyRequests || hr.StatusCode == http.StatusServiceUnavailable:
		if wait, ok := parseRetryAfter(hr.Header.Get("Retry-After")); ok {
			if wait > f.o.MaxRetryAfter {
				return nil, &HTTPError{URL: url, Status: hr.StatusCode,
					Msg: fmt.Sprintf("the Source asks to wait %v (Retry-After), more than the %v allowed", wait, f.o.MaxRetryAfter)}, false
			}
			f.lim.pauseFor(wait)
			return nil, &retryAfterError{url: url, status: hr.StatusCode, wait: wait}, true
		}
		return nil, &HTTPError{URL: url, Status: hr.StatusCode}, true
	case hr.StatusCode >= 500 || hr.StatusCode == http.StatusRequestTimeout:
		return nil, &HTTPError{URL: url, Status: hr.StatusCode}, true
	default:
		return nil, &HTTPError{URL: url, Status: hr.StatusCode}, false
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// transient reports whether a transport error may go away on its own.
func transient(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe") ||
		strings.Contains(s, "server closed") || strings.Contains(s, "EOF")
}

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110, 10.2.3).
func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := time.Until(t)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// document fetches and parses a ResourceSync document. A body that does
// not parse is fetched once more before giving up: a truncated or garbled
// response is more often the network's fault than the Source's.
func (f *fetcher) document(ctx context.Context, url string) (*rs.Document, error) {
	var last error
	for try := 0; try < 2; try++ {
		var data []byte
		_, err := f.get(ctx, url, conditional{}, func(r io.Reader) error {
			b, err := rs.ReadAll(r, f.o.MaxDocumentBytes)
			if err != nil {
				var le *rs.LimitError
				if errors.As(err, &le) {
					return err
				}
				return retryable{err}
			}
			data = b
			return nil
		})
		if err != nil {
			return nil, err
		}
		doc, err := readDocument(data)
		if err == nil {
			return doc, nil
		}
		last = fmt.Errorf("%s: %w", url, err)
		f.o.logf("%v (fetching it again)", last)
	}
	return nil, last
}

// stats returns the number of requests made and bytes received.
func (f *fetcher) stats() (int, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs, f.bytesIn
}
