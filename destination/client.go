package destination

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// HTTPError is a final, unsuccessful HTTP status.
type HTTPError = sourcehttp.StatusError

// conditional holds the validators of a conditional GET; identity asks
// for the representation without content coding, whose hash and length
// the Source describes (a download checked for fixity).
type conditional struct {
	etag         string
	lastModified string
	identity     bool
}

// fetcher makes the requests of a run through the one Source client
// (sourcehttp): User-Agent, rate, time-outs, retries, Retry-After,
// origins, the user's headers.
type fetcher struct {
	c *sourcehttp.Client
	o *Options
}

func newFetcher(o *Options) (*fetcher, error) {
	u, err := url.Parse(o.Source)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("source %q is not an http or https URI", o.Source)
	}
	origins, err := sourcehttp.NewOrigins(u, o.AllowHosts)
	if err != nil {
		return nil, err
	}
	// A --map names an origin whose resources are to be kept: they may be
	// fetched (the user's headers still go only where --allow-host says).
	for _, m := range o.Maps {
		origins.AddOrigin(m.Prefix.Origin)
	}
	hc := o.HTTP
	hc.Origins = origins
	hc.OnRetry = func(url, why string) { o.logf("retrying %s: %s", url, why) }
	c := sourcehttp.New(hc)
	return &fetcher{c: c, o: o}, nil
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

// get requests url. For a 200, body is called with the response body; an
// error it returns that sourcehttp.Retry marks (or a body cut short) leads
// to a new request, any other ends the get. A 304 (only possible with
// cond) is returned without calling body.
func (f *fetcher) get(ctx context.Context, url string, cond conditional, body func(io.Reader) error) (*response, error) {
	req := sourcehttp.Request{IfNoneMatch: cond.etag, IfModifiedSince: cond.lastModified, Decode: !cond.identity}
	if cond.identity {
		req.AcceptEncoding = "identity"
	}
	hr, err := f.c.Read(ctx, url, req, body)
	if err != nil {
		return nil, err
	}
	final := hr.Final
	if final == "" {
		final = url
	}
	return &response{status: hr.Status, url: final, etag: hr.Header.Get("ETag"),
		lastModified: hr.Header.Get("Last-Modified"), contentType: hr.Header.Get("Content-Type"),
		link: hr.Header.Values("Link")}, nil
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
				return sourcehttp.Retry(err)
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
		var ae *rs.AttrLimitError
		if errors.As(err, &ae) {
			return nil, last // refused before parsing: the document, not the network
		}
		f.o.logf("%v (fetching it again)", last)
	}
	return nil, last
}

// stats returns the number of requests made and bytes received.
func (f *fetcher) stats() (int, int64) {
	return int(f.c.Requests()), f.c.Bytes()
}
