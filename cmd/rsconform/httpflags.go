package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"

	"github.com/rsconform/rsconform/sourcehttp"
)

// httpFlags are the HTTP settings of every command that fetches
// (validate, crawl, sync, suite): one group of flags, registered once,
// with sourcehttp's defaults (documented in the README, "HTTP settings").
type httpFlags struct {
	cfg     sourcehttp.Config
	retries int
	hosts   multiValue
	headers headerFlags
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&h.cfg.Timeout, "timeout", sourcehttp.DefaultTimeout, "time-out of one request, body included")
	fs.IntVar(&h.retries, "retries", sourcehttp.DefaultRetries,
		"retries of a request that failed on the network, got 408/429/500/502/503/504 or a body cut short (back-off from "+
			sourcehttp.DefaultBackoff.String()+", doubled each time; Retry-After honoured)")
	fs.DurationVar(&h.cfg.MaxRetryWait, "max-retry-after", sourcehttp.DefaultMaxRetryWait,
		"longest wait before a retry: a Source whose Retry-After asks more is not asked again, its answer (429, 503) is the request's outcome")
	fs.Float64Var(&h.cfg.Rate, "rate", sourcehttp.DefaultRate, "requests per second to one host (0: no limit)")
	fs.IntVar(&h.cfg.Concurrency, "concurrency", sourcehttp.DefaultConcurrency, "requests in flight at once")
	fs.IntVar(&h.cfg.MaxRedirects, "max-redirects", sourcehttp.DefaultMaxRedirects, "redirects followed per request")
	fs.Var(&h.hosts, "allow-host", allowHostUsage)
	h.headers.register(fs)
}

// config is the settings given, with rsconform's User-Agent and the
// --header values; an error names the flag, never a header value.
func (h *httpFlags) config() (sourcehttp.Config, error) {
	c := h.cfg
	if c.Timeout <= 0 || c.MaxRetryWait <= 0 || c.Concurrency <= 0 || c.MaxRedirects <= 0 || c.Rate < 0 || h.retries < 0 {
		return c, errors.New("--timeout, --max-retry-after, --concurrency and --max-redirects must be positive, --rate and --retries not negative")
	}
	c.Retries = h.retries
	if c.Retries == 0 {
		c.Retries = sourcehttp.NoRetries // zero is the default to the library
	}
	c.UserAgent = userAgent()
	var err error
	if c.Header, err = h.headers.header(); err != nil {
		return c, err
	}
	return c, nil
}

// mapValue collects --map URL=DIR (a comma may be in a path: no
// splitting): one parser for crawl, suite and sync, which decide what DIR
// means.
type mapValue []sourcehttp.Map

func (m *mapValue) String() string { return fmt.Sprint(len(*m)) }
func (m *mapValue) Set(v string) error {
	mp, err := sourcehttp.ParseMap(v)
	if err != nil {
		return err
	}
	*m = append(*m, mp)
	return nil
}

// allowHostUsage is the --allow-host help of every command that fetches.
const allowHostUsage = "also fetch from `HOST` (its default ports 80 and 443) or HOST:PORT (that port only); repeatable, * for any origin. " +
	"By default only the entry point's origin (scheme, host, port; and its https upgrade): another port of the same host is refused"

// headerFlags are --header and --header-file, for Sources behind a token.
// The values go to the Source's origins only and are never printed.
type headerFlags struct {
	headers sourcehttp.Headers
	file    string
}

func (h *headerFlags) register(fs *flag.FlagSet) {
	fs.Var(&h.headers, "header", "send `'Name: value'` with every request to the Source's origins (repeatable; never printed)")
	fs.StringVar(&h.file, "header-file", "", "read headers from `FILE`, one 'Name: value' a line, # comments")
}

// header returns the headers given, or an error that names none of the
// values.
func (h *headerFlags) header() (http.Header, error) {
	if h.file != "" {
		if err := h.headers.ReadFile(h.file); err != nil {
			return nil, err
		}
	}
	if err := h.headers.Err(); err != nil {
		return nil, err
	}
	return h.headers.Header(), nil
}
