package crawler

import (
	"net/http"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// maxLinked bounds the describedby targets a crawl asks for: they are
// asked whether they answer, one request each, whatever the Source lists.
const maxLinked = 100

// describedBy schedules the targets of the describedby links among ls, of
// the document at u (rules/graph RS-DESCRIBEDBY-TARGET judges them).
func (c *crawl) describedBy(u string, ls []*rs.Ln) {
	for _, l := range ls {
		if l.Is("describedby") && strings.TrimSpace(l.Href) != "" {
			c.enqueue(task{url: rs.Resolve(u, l.Href), role: graph.RoleLinked, edge: graph.Edge{From: u, Rel: "describedby", Pos: l.Pos}})
		}
	}
}

// processLinked asks whether the target of a describedby link answers.
func (c *crawl) processLinked(t task) {
	rec, _ := c.fetchOnce(opLinked, t, func() *record { return c.fetchLinked(t.url) },
		func(rec *record) bool { return rec.Err != "" })
	if rec == nil {
		return
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		n.StatusCode, n.Header, n.Redirects, n.FetchError = rec.Status, rec.Header, rec.Redirects, rec.Err
		n.Method, n.EarlierStatus = rec.Method, rec.Earlier
	})
}

// fetchLinked asks with HEAD, and with GET when the server does not
// implement HEAD for the URL (405, 501); a GET's body is not read.
func (c *crawl) fetchLinked(u string) *record {
	r := c.f.Get(c.ctx, u, sourcehttp.Request{Method: http.MethodHead})
	r.Close()
	if r.Err != nil || r.Status != http.StatusMethodNotAllowed && r.Status != http.StatusNotImplemented {
		rec := recordOf(opLinked, u, r)
		rec.Method, rec.Earlier = http.MethodHead, r.Earlier
		return rec
	}
	g := c.f.Get(c.ctx, u, sourcehttp.Request{})
	g.Close()
	rec := recordOf(opLinked, u, g)
	rec.Requests += r.Requests
	rec.Earlier = append(append(append([]int(nil), r.Earlier...), r.Status), g.Earlier...)
	return rec
}
