package crawler

import (
	"io"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/sourcehttp"
)

// bodyFacts are the length and digests a Digester measured.
func bodyFacts(d *rs.Digester, truncated bool) *rules.BodyFacts {
	return &rules.BodyFacts{Length: d.N, Truncated: truncated, Digests: d.Sums()}
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
// body is never held.
func (c *crawl) processResource(t task) {
	r := c.f.Get(c.ctx, t.url, sourcehttp.Request{AcceptEncoding: acceptEncodingFor(t.edge.Md)})
	defer r.Close()
	var body *rules.BodyFacts
	if r.Err == nil {
		d := rs.NewDigester(rs.KnownAlgorithms(t.edge.Md.Hashes())...)
		_, err := io.Copy(d, r.Body)
		body = bodyFacts(d, err != nil)
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		n.StatusCode, n.Header, n.Redirects, n.Body = r.Status, r.Header, r.Redirects, body
		if r.Err != nil {
			n.FetchError = r.Err.Error()
		}
		c.stats.Resources++
	})
}
