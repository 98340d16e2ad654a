package crawler

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/rsconform/rsconform/discovery"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

const acceptDocument = "application/xml, text/xml;q=0.9, */*;q=0.1"

// start fetches the entry point, decides what it is, and starts the walk.
func (c *crawl) start() {
	entry := c.entry.String()
	c.mu.Lock()
	n := &graph.Node{URL: entry, Kind: rs.KindUnknown, Role: graph.RoleDocument,
		In: []graph.Edge{{Rel: "entry"}}}
	c.graph.Add(n)
	c.documents++
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.sem <- struct{}{}
		defer func() { <-c.sem }()
		c.processDocument(task{url: entry, role: graph.RoleDocument, edge: graph.Edge{Rel: "entry"}})
	}()
}

// isSiteRoot reports whether the entry point is a site root, where
// nothing but discovery is expected.
func (c *crawl) isSiteRoot() bool { return discovery.IsSiteRoot(c.entry) }

func (c *crawl) wellKnown() string { return discovery.WellKnown(c.entry) }

// finish decides whether the entry point was usable.
func (c *crawl) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entryErr != nil {
		return
	}
	for _, n := range c.graph.Nodes {
		if n.Role == graph.RoleDocument && n.Doc != nil && n.Kind != rs.KindUnknown {
			return
		}
	}
	en := c.graph.Node(c.graph.Entry)
	switch {
	case en != nil && en.FetchError != "":
		c.entryErr = fmt.Errorf("%s: %s", c.graph.Entry, en.FetchError)
	default:
		c.entryErr = fmt.Errorf("%s: no ResourceSync document found at or from the entry point (tried %s)", c.graph.Entry, c.triedMethods())
	}
}

func (c *crawl) triedMethods() string {
	var m []string
	seen := map[string]bool{}
	for _, d := range c.graph.Discovery {
		if !seen[d.Method] {
			seen[d.Method] = true
			m = append(m, d.Method)
		}
	}
	if len(m) == 0 {
		return "the entry point itself"
	}
	return "the entry point itself, " + strings.Join(m, ", ")
}

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	}
	return strings.ToLower(mt)
}

// processDocument fetches a document (or a discovery probe), validates it
// and schedules what it leads to.
func (c *crawl) processDocument(t task) {
	// A document's 404 is asked once more (a probe's is an answer): a
	// Change List just published may not be served yet (RS-HTTP-FLAKY).
	r := c.get(opGet, t.url, sourcehttp.Request{Accept: acceptDocument, Decode: true, RetryNotFound: !t.probe})
	defer r.Close()
	facts := func(n *graph.Node) {
		n.StatusCode, n.Header, n.Redirects, n.EarlierStatus = r.Status, r.Header, r.Redirects, r.Earlier
	}
	if fail := r.Failure(); fail != "" {
		c.fetchFailed(t, r, facts, fail)
		return
	}
	if t.isEntry() && c.entryIsPage(t, r, facts) {
		return
	}
	res, doc, ok := c.readDocument(t, r, facts)
	if !ok || !c.recordDocument(t, r.Header, facts, res, doc) {
		return
	}
	if t.isEntry() && doc != nil && doc.Kind() != rs.KindUnknown && t.url != c.wellKnown() {
		// Whatever the entry point, the Source Description should be at
		// the well-known URI (6.3.2): probe it, and walk it if it is one.
		c.probeWellKnown("")
	}
	if doc != nil {
		c.walk(t.url, doc)
	}
}

// fetchFailed records a document that could not be fetched (fail says
// why). A site root that answers an HTTP error is looked at for discovery
// only.
func (c *crawl) fetchFailed(t task, r *sourcehttp.Response, facts func(*graph.Node), fail string) {
	isEntry := t.isEntry()
	c.update(func() {
		n := c.graph.Node(t.url)
		facts(n)
		n.FetchError = strings.TrimPrefix(fail, "fetch failed: ")
		if t.probe {
			n.Role = graph.RoleDiscovery
			return
		}
		c.stats.Documents++
		if isEntry {
			if r.Err != nil {
				c.entryErr = fmt.Errorf("%s: %v", t.url, r.Err)
			} else if !c.isSiteRoot() {
				c.entryErr = fmt.Errorf("%s: HTTP %d %s", t.url, r.Status, http.StatusText(r.Status))
			}
			if c.isSiteRoot() && r.Err == nil {
				n.Role = graph.RoleDiscovery
				c.setResult(&engine.Result{Location: t.url, Kind: rs.KindUnknown, Status: engine.StatusSkipped,
					Error: fmt.Sprintf("the site root answers HTTP %d; looked for ResourceSync by discovery only", r.Status)})
				return
			}
		}
		c.setResult(ptr(engine.ErrorResult(t.url, fail)))
	})
	if isEntry && c.isSiteRoot() && r.Err == nil {
		c.discoverFromPage(t.url, r.Header, nil)
	}
}

// entryIsPage reads an entry point that is a page rather than a document
// for discovery, and reports whether it was one.
func (c *crawl) entryIsPage(t task, r *sourcehttp.Response, facts func(*graph.Node)) bool {
	// An HTML page at the entry point is read for discovery links.
	mt := mediaType(r.Header)
	if mt == "text/html" || mt == "application/xhtml+xml" {
		page, _ := io.ReadAll(io.LimitReader(r.Body, discovery.MaxPageBytes))
		c.discoveryPage(t, facts, r.Header, page)
		return true
	}
	// 6.3.3: a Link header "may be included with a representation of a
	// resource of any content-type". An entry point that is neither XML
	// nor HTML (JSON, plain text...) and links to ResourceSync by its Link
	// header is read for discovery, not parsed as a document.
	if mt != "" && !xmlMediaType(mt) && linksResourceSync(t.url, r.Header) {
		io.Copy(io.Discard, io.LimitReader(r.Body, discovery.MaxPageBytes))
		c.discoveryPage(t, facts, r.Header, nil)
		return true
	}
	return false
}

// readDocument reads the body (gzip decoded by the client) and validates
// it, within the validation budget: reading and validating a document
// both hold it in memory. It reports false when it recorded the document
// itself: unreadable, or an entry point that is an HTML page after all.
func (c *crawl) readDocument(t task, r *sourcehttp.Response, facts func(*graph.Node)) (engine.Result, *rs.Document, bool) {
	length := int64(-1)
	if n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64); err == nil {
		length = n
	}
	w := budgetWeight(length)
	if r.Header.Get("Content-Encoding") != "" {
		w = validatingBytes // compressed: the length says little
	}
	if err := c.validating.Acquire(c.ctx, w); err != nil {
		c.docError(t, facts, err.Error())
		return engine.Result{}, nil, false
	}
	data, err := rs.ReadAll(r.Body, c.opts.maxSize())
	var res engine.Result
	var doc *rs.Document
	var le *rs.LimitError
	switch {
	case errors.As(err, &le):
		res = engine.Run(t.url, engine.Input{TooLarge: le}, c.v.Config)
	case err != nil:
		c.validating.Release(w)
		c.docError(t, facts, fmt.Sprintf("reading the body: %v", err))
		return res, nil, false
	case t.isEntry() && discovery.LooksHTML(data):
		c.validating.Release(w)
		c.discoveryPage(t, facts, r.Header, data)
		return res, nil, false
	default:
		// The walk reads the model the Validator built: one parse.
		res, doc = c.v.ValidateDoc(c.ctx, t.url, data)
	}
	c.validating.Release(w)
	return res, doc, true
}

// recordDocument records a document read and validated in the graph and
// the results, and reports whether the walk goes on from it: a probe
// that found no ResourceSync document, a plain Sitemap of robots.txt and
// a site root that is neither HTML nor XML stop there.
func (c *crawl) recordDocument(t task, h http.Header, facts func(*graph.Node), res engine.Result, doc *rs.Document) bool {
	kind := rs.KindUnknown
	if doc != nil {
		kind = doc.Kind()
	}
	if t.probe && kind == rs.KindUnknown {
		c.update(func() {
			n := c.graph.Node(t.url)
			facts(n)
			n.Role = graph.RoleDiscovery
			n.FetchError = "not a ResourceSync document"
		})
		return false
	}
	c.mu.Lock()
	plain := c.plain[t.url]
	c.mu.Unlock()
	if plain && (doc == nil || doc.Md == nil) {
		c.update(func() {
			n := c.graph.Node(t.url)
			facts(n)
			n.Role = graph.RoleDiscovery
			c.setResult(&engine.Result{Location: t.url, Kind: rs.KindUnknown, Status: engine.StatusSkipped,
				Error: "a plain Sitemap named by robots.txt, not a ResourceSync document (section 6.3.4 lets them stand side by side)"})
		})
		return false
	}
	if t.isEntry() && kind == rs.KindUnknown && doc == nil && res.Status == engine.StatusError && c.isSiteRoot() {
		// A site root that is neither HTML nor XML: discovery only.
		c.discoveryPage(t, facts, h, nil)
		return false
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		facts(n)
		n.Role = graph.RoleDocument
		c.graph.SetDocument(n, doc, c.opts.Revisit > 0)
		if doc != nil {
			c.stats.Entries += len(doc.Entries)
		}
		c.stats.Documents++
		e, w, i := res.Count()
		c.stats.Findings += e + w + i
		c.setResult(&res)
	})
	return true
}

func ptr[T any](v T) *T { return &v }

func (c *crawl) docError(t task, facts func(*graph.Node), msg string) {
	c.update(func() {
		n := c.graph.Node(t.url)
		facts(n)
		n.FetchError = msg
		if t.probe {
			n.Role = graph.RoleDiscovery
			return
		}
		c.stats.Documents++
		c.setResult(ptr(engine.ErrorResult(t.url, msg)))
	})
}

// discoveryPage handles an entry point that is a page rather than a
// ResourceSync document.
func (c *crawl) discoveryPage(t task, facts func(*graph.Node), h http.Header, page []byte) {
	c.update(func() {
		n := c.graph.Node(t.url)
		facts(n)
		n.Role = graph.RoleDiscovery
		c.stats.Documents++
		c.setResult(&engine.Result{Location: t.url, Kind: rs.KindUnknown, Status: engine.StatusSkipped,
			Error: "not a ResourceSync document: read for discovery (section 6.3)"})
	})
	c.discoverFromPage(t.url, h, page)
}

// discoverFromPage tries every discovery method from a page: its Link
// header and HTML links (6.3.3), the well-known URI (6.3.2) and robots.txt
// (6.3.4).
func (c *crawl) discoverFromPage(page string, h http.Header, body []byte) {
	for _, t := range discovery.FromPage(page, h, body) {
		c.addDiscovery(graph.Discovery{Method: t.Method, From: t.From, Target: t.URL, Line: t.Line})
		c.enqueue(task{url: t.URL, role: graph.RoleDocument, edge: graph.Edge{From: page, Rel: "discovery", Pos: rs.Pos{Line: t.Line}}})
	}
	c.probeWellKnown(page)
	c.probeRobots(page)
}

func (c *crawl) addDiscovery(d graph.Discovery) {
	c.mu.Lock()
	c.graph.Discovery = append(c.graph.Discovery, d)
	c.mu.Unlock()
}

// probeWellKnown fetches /.well-known/resourcesync of the entry's host.
// from is the page that leads to it for the hierarchy ("" for none).
func (c *crawl) probeWellKnown(from string) {
	wk := c.wellKnown()
	c.addDiscovery(graph.Discovery{Method: discovery.MethodWellKnown, From: wk, Target: wk})
	c.enqueue(task{url: wk, role: graph.RoleDocument, probe: true, edge: graph.Edge{From: from, Rel: "discovery"}})
}

// probeRobots reads robots.txt for Sitemap directives.
func (c *crawl) probeRobots(from string) {
	robots := discovery.RobotsTxt(c.entry)
	c.mu.Lock()
	if c.graph.Node(robots) != nil {
		c.mu.Unlock()
		return
	}
	c.graph.Add(&graph.Node{URL: robots, Kind: rs.KindUnknown, Role: graph.RoleDiscovery})
	c.mu.Unlock()
	r := c.get(opGet, robots, sourcehttp.Request{Accept: "text/plain, */*;q=0.1"})
	defer r.Close()
	d := graph.Discovery{Method: discovery.MethodRobots, From: robots}
	var data []byte
	switch {
	case r.Err != nil:
		d.Note = r.Err.Error()
	case r.Status != http.StatusOK:
		d.Note = fmt.Sprintf("HTTP %d", r.Status)
	default:
		data, _ = io.ReadAll(io.LimitReader(r.Body, discovery.MaxPageBytes))
	}
	c.update(func() {
		n := c.graph.Node(robots)
		n.StatusCode, n.Header, n.Redirects = r.Status, r.Header, r.Redirects
		if d.Note != "" {
			n.FetchError = d.Note
		}
	})
	sitemaps := discovery.FromRobots(robots, data)
	if len(sitemaps) == 0 {
		if d.Note == "" {
			d.Note = "no Sitemap directive"
		}
		c.addDiscovery(d)
		return
	}
	for _, s := range sitemaps {
		dd := d
		dd.Target, dd.Line = s.URL, s.Line
		c.addDiscovery(dd)
		c.mu.Lock()
		if c.graph.Node(s.URL) == nil {
			c.plain[s.URL] = true
		}
		c.mu.Unlock()
		c.enqueue(task{url: s.URL, role: graph.RoleDocument, edge: graph.Edge{From: from, Rel: "discovery", Pos: rs.Pos{Line: s.Line}}})
	}
}

// walk schedules what a document leads to.
func (c *crawl) walk(u string, d *rs.Document) {
	resolve := func(href string) string { return rs.Resolve(u, href) }
	for _, l := range d.Links {
		for _, rel := range []string{"up", "index", "archives"} {
			if l.Is(rel) {
				c.enqueue(task{url: resolve(l.Href), role: graph.RoleDocument, edge: graph.Edge{From: u, Rel: rel, Pos: l.Pos}})
			}
		}
	}
	c.describedBy(u, d.Links)
	k := d.Kind()
	switch {
	case k == rs.KindUnknown:
	case k.IsIndex() || k.IsArchive() || k == rs.SourceDescription || k == rs.CapabilityList:
		for _, e := range d.Entries {
			if !e.HasLoc() {
				continue
			}
			edge := graph.Edge{From: u, Rel: "loc", Pos: locPos(e)}
			if e.Md != nil {
				edge.Capability = strings.Clone(e.Md.Capability)
			}
			c.enqueue(task{url: resolve(e.Loc), role: graph.RoleDocument, edge: edge})
		}
		for _, e := range d.Entries {
			c.describedBy(u, e.Links)
		}
	case k == rs.ResourceDump || k == rs.ChangeDump:
		for _, e := range d.Entries {
			c.describedBy(u, e.Links)
			for _, l := range e.LinksByRel("contents") {
				c.enqueue(task{url: resolve(l.Href), role: graph.RoleDocument, edge: graph.Edge{From: u, Rel: "contents", Pos: l.Pos}})
			}
			if c.opts.Packages && e.HasLoc() {
				c.enqueue(task{url: resolve(e.Loc), role: graph.RolePackage,
					edge: graph.Edge{From: u, Rel: "loc", Pos: locPos(e), Md: e.Md.Clone(), Lastmod: strings.Clone(e.Lastmod)}})
			}
		}
	case k == rs.ResourceList || k == rs.ChangeList:
		if c.opts.Sample == SampleNone {
			break
		}
		sl, entries := c.sample(u, d)
		l := listSample{sl: sl}
		for _, e := range entries {
			l.tasks = append(l.tasks, task{url: resolve(e.Loc), role: graph.RoleResource,
				edge: graph.Edge{From: u, Rel: "loc", Pos: locPos(e), Md: e.Md.Clone(), Lastmod: strings.Clone(e.Lastmod)}})
		}
		c.mu.Lock()
		c.lists = append(c.lists, l)
		c.mu.Unlock()
	}
}

// archived reports whether the document at u was reached from an archive
// (directly, or through an index an archive lists).
func (c *crawl) archived(u string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var walk func(u string, depth int) bool
	walk = func(u string, depth int) bool {
		n := c.graph.Node(u)
		if n == nil || depth > 3 || seen[u] {
			return false
		}
		seen[u] = true
		for _, e := range n.In {
			if e.Rel != "loc" {
				continue
			}
			from := c.graph.Node(e.From)
			if from == nil {
				continue
			}
			if from.Kind.IsArchive() || (from.Kind.IsIndex() && walk(e.From, depth+1)) {
				return true
			}
		}
		return false
	}
	return walk(u, 0)
}

func locPos(e *rs.Entry) rs.Pos {
	if e.LocPos.IsValid() {
		return e.LocPos
	}
	return e.Pos
}

// xmlMediaType reports whether a media type is XML's (application/xml,
// text/xml, or a +xml suffix).
func xmlMediaType(mt string) bool {
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}

// linksResourceSync reports whether a response's Link header has a
// rel="resourcesync" link (6.3.3).
func linksResourceSync(page string, h http.Header) bool {
	for _, t := range discovery.FromPage(page, h, nil) {
		if t.Method == discovery.MethodHTTPLink {
			return true
		}
	}
	return false
}
