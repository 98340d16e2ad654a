package crawler

import (
	"io"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// bodyFacts are the length and digests a Digester measured.
func bodyFacts(d *rs.Digester, truncated bool) *graph.BodyFacts {
	return &graph.BodyFacts{Length: d.N, Truncated: truncated, Digests: d.Sums()}
}

// acceptEncodingFor asks for the content coding the entry says the
// resource has, and for none otherwise, so that length and hash are
// compared with the representation the entry describes.
func acceptEncodingFor(md *rs.Md) string {
	if md != nil && strings.TrimSpace(md.Encoding) != "" {
		return strings.TrimSpace(md.Encoding)
	}
	return "identity"
}

// processResource fetches a sampled resource and measures its body; the
// body is never held. With a state file, what was measured is recorded,
// and replayed by a resumed crawl.
func (c *crawl) processResource(t task) {
	rec, _ := c.fetchOnce(opResource, t, func() *record { return c.fetchResource(t) },
		func(rec *record) bool { return rec.Err != "" || (rec.Facts != nil && rec.Facts.Truncated) })
	if rec == nil {
		return // cancelled: the resource counts as not fetched
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		n.StatusCode, n.Header, n.Redirects, n.Body = rec.Status, rec.Header, rec.Redirects, rec.Facts
		n.FetchError = rec.Err
		c.stats.Resources++
	})
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	max int
	b   []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if n := h.max - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// fetchResource fetches a resource and measures its body.
func (c *crawl) fetchResource(t task) *record {
	r := c.f.Get(c.ctx, t.url, sourcehttp.Request{AcceptEncoding: acceptEncodingFor(t.edge.Md)})
	defer r.Close()
	if r.Err == nil {
		d := rs.NewDigester(rs.KnownAlgorithms(t.edge.Md.Hashes())...)
		head := &headBuffer{max: graph.SniffBytes}
		_, err := io.Copy(io.MultiWriter(d, head), r.Body)
		rec := recordOf(opResource, t.url, r)
		rec.Facts = bodyFacts(d, err != nil)
		rec.Facts.Document = graph.SniffDocument(head.b)
		return rec
	}
	return recordOf(opResource, t.url, r)
}
