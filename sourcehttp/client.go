package sourcehttp

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// The defaults of Config: the HTTP settings of every command that fetches
// (validate, crawl, sync, the suites, the web validator), decided here
// once and documented in the README ("HTTP settings").
const (
	// DefaultTimeout bounds one attempt, the body included. A 50 MB
	// document (the Sitemap limit) or a large resource takes 40 s at
	// 10 Mbit/s: a slow but working Source must not fail.
	DefaultTimeout = 60 * time.Second
	// DefaultRetries: a request is tried three times in all.
	DefaultRetries = 2
	// DefaultBackoff is the first wait before a retry, doubled each time.
	DefaultBackoff = 500 * time.Millisecond
	// DefaultMaxRetryWait is the longest wait before a retry. A Source
	// whose Retry-After asks for more is not asked again: its answer
	// (a 429 or 503) is the request's outcome.
	DefaultMaxRetryWait = 2 * time.Minute
	// DefaultConcurrency is the number of requests awaiting their answer
	// at once.
	DefaultConcurrency = 4
	// DefaultMaxRedirects bounds the redirects of one request.
	DefaultMaxRedirects = 5
	// DefaultRate is the commands' --rate: requests per second to one
	// host. A Config's zero Rate means no limit (tests, the mock).
	DefaultRate = 10
	// DefaultUserAgent is sent when Config.UserAgent is empty.
	DefaultUserAgent = "rsconform"
)

// NoRetries is the Retries of a Config that tries each request once.
const NoRetries = -1

// Config holds the HTTP settings of a run; the crawler's and the
// Destination's options embed it. Zero values take the defaults above.
type Config struct {
	// UserAgent goes with every request (default DefaultUserAgent).
	UserAgent string
	// Timeout bounds one attempt, the body included (default
	// DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times a request is tried again after a network
	// failure, a 408, 429, 500, 502, 503 or 504, or a body cut short
	// (default DefaultRetries; NoRetries, or any negative number, none).
	Retries int
	// Backoff is the first wait before a retry, doubled each time
	// (default DefaultBackoff); a Retry-After replaces it.
	Backoff time.Duration
	// MaxRetryWait bounds every wait before a retry (default
	// DefaultMaxRetryWait). A Source whose Retry-After asks for more is
	// not asked again: the answer stands, with Response.RetryAfter set,
	// and Read fails with a StatusError that says so.
	MaxRetryWait time.Duration
	// Rate is the most requests per second to one host; 0 means no limit.
	Rate float64
	// Concurrency bounds the requests waiting for their answer at once
	// (default DefaultConcurrency).
	Concurrency int
	// MaxRedirects bounds the redirects of one request (default
	// DefaultMaxRedirects).
	MaxRedirects int
	// MaxBytes is a budget for all bodies together; 0 means none.
	MaxBytes int64
	// Origins is the origin policy; nil allows every origin and sends
	// Header nowhere. The crawler and the Destination set it from their
	// entry point and AllowHosts.
	Origins *Origins
	// Header holds the user's extra headers, sent to the origins Origins
	// trusts only, redirects included.
	Header http.Header
	// Transport replaces the default transport (tests, --map:
	// NewMapTransport).
	Transport http.RoundTripper
	// Clock replaces the wall clock (tests).
	Clock Clock
	// OnRetry, when set, hears of each retry: the URL and why (a status
	// or an error; never a header).
	OnRetry func(url, why string)
}

// Client makes the requests of one run. It is safe for concurrent use.
type Client struct {
	cfg      Config
	hc       *http.Client
	clock    Clock
	inflight chan struct{}

	mu    sync.Mutex
	hosts map[string]*hostState

	bytes    atomic.Int64
	requests atomic.Int64
}

// hostState is what the Client remembers of one host: its rate and the
// time before which it asked not to be asked (Retry-After).
type hostState struct {
	lim   *rate.Limiter
	pause time.Time
}

// WithDefaults is cfg with every unset field at its default: the one place
// that says how long a request may take, how often it is retried, how many
// redirects it follows and how many run at once, for every command.
func (cfg Config) WithDefaults() Config {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultRetries
	case cfg.Retries < 0:
		cfg.Retries = NoRetries
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.Rate < 0 {
		cfg.Rate = 0
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	return cfg
}

// New returns a Client.
func New(cfg Config) *Client {
	cfg = cfg.WithDefaults()
	tr := cfg.Transport
	if tr == nil {
		tr = NewTransport(cfg.Concurrency, cfg.Timeout)
	}
	return &Client{
		cfg: cfg, hc: &http.Client{Transport: tr}, clock: cfg.Clock,
		inflight: make(chan struct{}, cfg.Concurrency),
		hosts:    map[string]*hostState{},
	}
}

// NewTransport is the transport a Client uses unless told otherwise:
// connections kept for concurrency requests, an answer awaited timeout.
func NewTransport(concurrency int, timeout time.Duration) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Content coding is ours to ask for and to decode: a crawl reports
	// it, fixity is checked on the coding an entry names.
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = concurrency + 2
	if timeout > 0 {
		t.ResponseHeaderTimeout = timeout
	}
	return t
}

// Origins returns the client's origin policy (nil: every origin).
func (c *Client) Origins() *Origins { return c.cfg.Origins }

// Requests is the number of requests made, retries and redirects counted
// once per attempt.
func (c *Client) Requests() int64 { return c.requests.Load() }

// Bytes is the number of body bytes read (as received, before gzip).
func (c *Client) Bytes() int64 { return c.bytes.Load() }

// BudgetLeft reports whether the byte budget still allows reading.
func (c *Client) BudgetLeft() bool {
	return c.cfg.MaxBytes <= 0 || c.bytes.Load() < c.cfg.MaxBytes
}

// ErrBudget is returned by a body's Read once Config.MaxBytes is spent.
var ErrBudget = errors.New("the byte budget (--max-bytes) is spent")

// ErrTooManyRedirects ends a request that redirects too often or in a loop.
var ErrTooManyRedirects = errors.New("too many redirects")

// ErrNotHTTP refuses a URL that is not an absolute http(s) URL.
var ErrNotHTTP = errors.New("not an http(s) URL")

// Request says how to ask for a URL.
type Request struct {
	// Method is the request method; "" is GET. HEAD asks whether a URL
	// answers without its body (Response.Body is then empty).
	Method string
	// Accept is sent when not empty.
	Accept string
	// Decode asks for gzip (Accept-Encoding: gzip) and hands the body
	// decoded; the Content-Encoding header stays in Response.Header.
	Decode bool
	// AcceptEncoding is sent as given when not Decode and not empty; the
	// body is then the bytes as sent.
	AcceptEncoding string
	// IfNoneMatch and IfModifiedSince make the GET conditional.
	IfNoneMatch, IfModifiedSince string
	// RetryNotFound asks once more after a 404 (within Config.Retries):
	// a document just published may not be served yet everywhere, as a
	// Source seen in the wild answered 404 for a moment after writing its
	// Change List. Response.Earlier then shows the 404.
	RetryNotFound bool
}

func (r Request) conditional() bool { return r.IfNoneMatch != "" || r.IfModifiedSince != "" }

// Response is the outcome of a request.
type Response struct {
	// URL is the URL asked for; Final the one that answered.
	URL, Final string
	Status     int
	Header     http.Header
	// Redirects lists the URLs gone through (URL first) when there was a
	// redirect.
	Redirects []string
	// Body is the body, read within the attempt's time-out and the byte
	// budget; nil when Err is set. The caller closes it (Close).
	Body io.ReadCloser
	// Err is why no answer came: the network, the origin policy, too many
	// redirects, the context.
	Err error
	// RetryAfter is set when the Source asked to wait longer than
	// Config.MaxRetryWait (MaxWait): it was not asked again.
	RetryAfter, MaxWait time.Duration
	// Requests is the number of requests this Get sent (its attempts).
	Requests int64
	// Earlier are the statuses of the attempts before this answer that
	// had one (a 503 retried, a 404 asked again), oldest first.
	Earlier []int
}

// Received is the number of body bytes read so far (as received, before
// gzip), as the Client counts them against its budget.
func (r *Response) Received() int64 {
	if b, ok := r.Body.(*body); ok {
		return b.n
	}
	return 0
}

// Count adds requests made and body bytes read in an earlier run (a
// crawl resumed from its state) to the totals and the byte budget.
func (c *Client) Count(requests, bytes int64) {
	c.requests.Add(requests)
	c.bytes.Add(bytes)
}

// Close closes the body, if any.
func (r *Response) Close() {
	if r.Body != nil {
		r.Body.Close()
	}
}

// Unanswered reports a request left without an answer by the transport:
// the connection failed (refused, reset, no such host), no answer came
// within the time-out, or the context ended. A refusal of ours (refused,
// below), a server certificate the client does not trust and an answer
// of any status are outcomes a new request would meet again; this is not.
func (r *Response) Unanswered() bool {
	var cert *tls.CertificateVerificationError
	return r.Err != nil && !refused(r.Err) && !errors.As(r.Err, &cert)
}

// Incomplete reports a fetch the transport left incomplete: Unanswered,
// or an answer whose body did not arrive whole: any error reading it off
// the wire (the connection reset or closed before the body's end,
// io.ErrUnexpectedEOF short of Content-Length or of the last chunk; an
// HTTP/2 stream reset or GOAWAY; the time-out or the context's end
// partway through). It judges the body as read so far: ask once it is
// read. An answer read to its end, or as far as the client wanted (a size
// limit of the caller's, the byte budget: ErrBudget), is complete,
// whatever its status; so is one whose whole body is encoded wrongly (a
// gzip cut short inside it). A server's malformed chunk counts as
// incomplete too: nothing on the wire tells it from a cut, and a new
// request costs less than replaying a cut forever. A new request may
// complete what this did not; the others it would meet again.
func (r *Response) Incomplete() bool {
	if r.Unanswered() {
		return true
	}
	b, ok := r.Body.(*body)
	return ok && b.cut
}

// refused reports the client's own refusals of a request: an origin the
// policy does not allow, too many redirects, not an http(s) URL.
func refused(err error) bool {
	var na *NotAllowedError
	return errors.As(err, &na) || errors.Is(err, ErrTooManyRedirects) || errors.Is(err, ErrNotHTTP)
}

// OK reports a 2xx answer.
func (r *Response) OK() bool { return r.Err == nil && r.Status >= 200 && r.Status <= 299 }

// Failure says why the response gives no usable body ("fetch failed:
// ..."), or "" for a 2xx.
func (r *Response) Failure() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("fetch failed: %v", r.Err)
	case r.Status < 200 || r.Status > 299:
		return "fetch failed: " + r.statusText()
	}
	return ""
}

func (r *Response) statusText() string {
	s := fmt.Sprintf("HTTP %d %s", r.Status, http.StatusText(r.Status))
	if r.RetryAfter > 0 {
		s += fmt.Sprintf(" with Retry-After %v, more than the %v we wait", r.RetryAfter, r.MaxWait)
	}
	return s
}

// Get fetches rawURL, retrying network failures and the transient
// statuses. The last answer is returned whatever its status.
func (c *Client) Get(ctx context.Context, rawURL string, req Request) *Response {
	r, _ := c.do(ctx, rawURL, req, nil)
	return r
}

// StatusError is an unsuccessful final status.
type StatusError struct {
	URL    string
	Status int
	Msg    string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Gone reports whether the resource does not exist (404, 410).
func (e *StatusError) Gone() bool {
	return e.Status == http.StatusNotFound || e.Status == http.StatusGone
}

// Read fetches rawURL and hands a 200's body to read. An error of read
// that Retry marks, or a body cut short, leads to a new request (within
// Config.Retries); any other ends the Read. A 304 to a conditional request
// is returned without calling read. Other statuses are *StatusError.
func (c *Client) Read(ctx context.Context, rawURL string, req Request, read func(io.Reader) error) (*Response, error) {
	r, err := c.do(ctx, rawURL, req, func(r *Response) error { return read(r.Body) })
	if ctx.Err() != nil {
		r.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	switch {
	case r.Err != nil:
		return nil, fmt.Errorf("%s: %w", rawURL, r.Err)
	case r.Status == http.StatusOK:
		return r, nil
	case r.Status == http.StatusNotModified && req.conditional():
		r.Close()
		return r, nil
	}
	r.Close()
	e := &StatusError{URL: rawURL, Status: r.Status}
	if r.RetryAfter > 0 {
		e.Msg = fmt.Sprintf("the Source asks to wait %v (Retry-After), more than the %v allowed", r.RetryAfter, c.cfg.MaxRetryWait)
	}
	return nil, e
}

// retryError marks an error met while reading a body that is worth a new
// request.
type retryError struct{ err error }

func (r retryError) Error() string { return r.err.Error() }
func (r retryError) Unwrap() error { return r.err }

// Retry marks err, returned by a Read callback, as worth a new request
// (a body that did not parse, say).
func Retry(err error) error { return retryError{err} }

// transient reports whether an error a Read callback returned may go away
// with a new request, besides a body the transport cut
// (Response.Incomplete): the callback asked for one (Retry), or the body
// ended inside its own encoding (a gzip stream cut short).
func transient(err error) bool {
	var re retryError
	return errors.As(err, &re) || errors.Is(err, io.ErrUnexpectedEOF)
}

// retryableErr reports whether a failed attempt is worth another.
func retryableErr(err error) bool {
	return !refused(err) && !errors.Is(err, context.Canceled)
}

// retryableStatus: overload and the transient server errors.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// do is the one request loop: rate, attempt, retry. read, when set, reads
// a 200's body; its error is returned as readErr.
func (c *Client) do(ctx context.Context, rawURL string, req Request, read func(*Response) error) (res *Response, readErr error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Response{URL: rawURL, Err: fmt.Errorf("%w: %q", ErrNotHTTP, rawURL)}, nil
	}
	if err := c.cfg.Origins.Check(u); err != nil {
		return &Response{URL: rawURL, Err: err}, nil
	}
	backoff := c.cfg.Backoff
	var sent int64
	var earlier []int
	defer func() {
		if res != nil && len(earlier) > 0 {
			res.Earlier = earlier
		}
	}()
	for attempt := 0; ; attempt++ {
		readErr = nil
		if err := c.wait(ctx, u.Host); err != nil {
			return &Response{URL: rawURL, Err: err, Requests: sent}, nil
		}
		r := c.once(ctx, u, req)
		sent += r.Requests
		r.Requests = sent
		last := attempt >= max(c.cfg.Retries, 0) || ctx.Err() != nil
		wait := backoff
		switch {
		case r.Err != nil:
			if last || !retryableErr(r.Err) {
				return r, nil
			}
		case retryableStatus(r.Status):
			if d, ok := ParseRetryAfter(r.Header.Get("Retry-After"), c.clock.Now()); ok {
				if d > c.cfg.MaxRetryWait {
					r.RetryAfter, r.MaxWait = d, c.cfg.MaxRetryWait
					return r, nil
				}
				// The host as a whole is busy, not this request: every
				// request to it waits.
				c.pauseHost(u.Host, d)
				wait = 0
			}
			if last {
				return r, nil
			}
			r.Close()
		case req.RetryNotFound && r.Status == http.StatusNotFound && !last && !slices.Contains(earlier, http.StatusNotFound):
			r.Close()
		case read != nil && r.Status == http.StatusOK:
			readErr = read(r)
			r.Close()
			if readErr == nil || last || !(r.Incomplete() || transient(readErr)) {
				return r, readErr
			}
		default:
			return r, nil
		}
		if wait > c.cfg.MaxRetryWait {
			wait = c.cfg.MaxRetryWait
		}
		if r.Err == nil && r.Status != 0 {
			earlier = append(earlier, r.Status)
		}
		if c.cfg.OnRetry != nil {
			why := r.statusText()
			switch {
			case r.Err != nil:
				why = r.Err.Error()
			case readErr != nil:
				why = readErr.Error()
			}
			c.cfg.OnRetry(rawURL, why)
		}
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return &Response{URL: rawURL, Err: err, Requests: sent}, nil
		}
		backoff *= 2
	}
}

func (c *Client) host(h string) *hostState {
	hs := c.hosts[h]
	if hs == nil {
		hs = &hostState{}
		if c.cfg.Rate > 0 {
			hs.lim = rate.NewLimiter(rate.Limit(c.cfg.Rate), 1)
		}
		c.hosts[h] = hs
	}
	return hs
}

// wait blocks until host may be asked again: after its pause, then at its
// rate.
func (c *Client) wait(ctx context.Context, host string) error {
	for {
		c.mu.Lock()
		hs := c.host(host)
		now := c.clock.Now()
		if hs.pause.After(now) {
			d := hs.pause.Sub(now)
			c.mu.Unlock()
			if err := c.clock.Sleep(ctx, d); err != nil {
				return err
			}
			continue
		}
		var d time.Duration
		if hs.lim != nil {
			d = hs.lim.ReserveN(now, 1).DelayFrom(now)
		}
		c.mu.Unlock()
		return c.clock.Sleep(ctx, d)
	}
}

func (c *Client) pauseHost(host string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hs := c.host(host)
	if t := c.clock.Now().Add(d); t.After(hs.pause) {
		hs.pause = t
	}
}

// setUserHeaders puts the user's headers on h when u's origin is trusted,
// and takes them off otherwise.
func (c *Client) setUserHeaders(h http.Header, u *url.URL) {
	if len(c.cfg.Header) == 0 {
		return
	}
	trusted := c.cfg.Origins.Trusted(u)
	for k, vs := range c.cfg.Header {
		h.Del(k)
		if trusted {
			h[k] = append([]string(nil), vs...)
		}
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", c.cfg.UserAgent)
	}
}

// once makes one attempt.
func (c *Client) once(ctx context.Context, u *url.URL, req Request) *Response {
	res := &Response{URL: u.String()}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(actx, method, u.String(), nil)
	if err != nil {
		cancel()
		res.Err = err
		return res
	}
	hreq.Header.Set("User-Agent", c.cfg.UserAgent)
	if req.Accept != "" {
		hreq.Header.Set("Accept", req.Accept)
	}
	switch {
	case req.Decode:
		hreq.Header.Set("Accept-Encoding", "gzip")
	case req.AcceptEncoding != "":
		hreq.Header.Set("Accept-Encoding", req.AcceptEncoding)
	}
	if req.IfNoneMatch != "" {
		hreq.Header.Set("If-None-Match", req.IfNoneMatch)
	}
	if req.IfModifiedSince != "" {
		hreq.Header.Set("If-Modified-Since", req.IfModifiedSince)
	}
	c.setUserHeaders(hreq.Header, u)
	var chain []string
	client := *c.hc
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(chain) == 0 {
			chain = append(chain, via[0].URL.String())
		}
		chain = append(chain, r.URL.String())
		if len(via) > c.cfg.MaxRedirects {
			return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, c.cfg.MaxRedirects)
		}
		if err := c.cfg.Origins.Check(r.URL); err != nil {
			return fmt.Errorf("redirected to %s: %w", r.URL.Redacted(), err)
		}
		for _, v := range via {
			if v.URL.String() == r.URL.String() {
				return fmt.Errorf("%w: a redirect loop back to %s", ErrTooManyRedirects, r.URL)
			}
		}
		c.setUserHeaders(r.Header, r.URL)
		return nil
	}
	select {
	case c.inflight <- struct{}{}:
	case <-ctx.Done():
		cancel()
		res.Err = ctx.Err()
		return res
	}
	c.requests.Add(1)
	res.Requests = 1
	resp, err := client.Do(hreq)
	<-c.inflight
	res.Redirects = chain
	if err != nil {
		cancel()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = &timeoutError{what: "no answer", d: c.cfg.Timeout}
		}
		res.Err = err
		return res
	}
	res.Final = resp.Request.URL.String()
	res.Status = resp.StatusCode
	res.Header = resp.Header
	b := &body{raw: resp.Body, c: c, cancel: cancel, ctx: actx}
	if req.Decode {
		switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
		case "gzip", "x-gzip":
			b.gunzip = true
		}
	}
	res.Body = b
	return res
}

// timeoutError is an attempt that ran out of time; it is a
// context.DeadlineExceeded for errors.Is.
type timeoutError struct {
	what string
	d    time.Duration
}

func (e *timeoutError) Error() string { return fmt.Sprintf("%s within %s (--timeout)", e.what, e.d) }
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// body counts the bytes read against the budget, decodes gzip when asked,
// and turns the attempt's time-out into a readable error.
type body struct {
	raw    io.ReadCloser
	c      *Client
	cancel context.CancelFunc
	ctx    context.Context
	gunzip bool
	zr     *gzip.Reader
	n      int64 // raw bytes read
	// cut is set when the transport ended the body before its end
	// (Response.Incomplete).
	cut bool
}

func (b *body) readRaw(p []byte) (int, error) {
	if !b.c.BudgetLeft() {
		return 0, ErrBudget
	}
	n, err := b.raw.Read(p)
	b.c.bytes.Add(int64(n))
	b.n += int64(n)
	if err != nil && err != io.EOF {
		if b.ctx.Err() == context.DeadlineExceeded {
			err = &timeoutError{what: "the body did not arrive", d: b.c.cfg.Timeout}
		}
		// The raw body is the wire's (before gzip): any error of it
		// (an HTTP/2 stream error is neither a net.Error nor an
		// unexpected EOF) leaves the body short (Incomplete).
		b.cut = true
	}
	return n, err
}

type rawReader struct{ b *body }

func (r rawReader) Read(p []byte) (int, error) { return r.b.readRaw(p) }

func (b *body) Read(p []byte) (int, error) {
	if !b.gunzip {
		return b.readRaw(p)
	}
	if b.zr == nil {
		zr, err := gzip.NewReader(rawReader{b})
		if err != nil {
			return 0, fmt.Errorf("the body is not the gzip its Content-Encoding says: %w", err)
		}
		b.zr = zr
	}
	return b.zr.Read(p)
}

func (b *body) Close() error {
	err := b.raw.Close()
	b.cancel()
	return err
}
