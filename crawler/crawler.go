// Package crawler walks a live ResourceSync Source from any entry point: a
// site root (discovery by the well-known URI, robots.txt, HTML and HTTP
// links, section 6.3), a Source Description, a Capability List or any
// capability document (it follows up links to the top, then walks down).
//
// Every fetched document goes through the same pipeline as 'rsconform
// validate' (engine.Validator) and yields one engine.Result; what the crawl
// learns about the relations between documents is kept in a graph.Graph,
// on which the cross-document rules (rules/graph_*.go) run at the end.
//
// The crawl is bounded: a number of documents, a number of bytes, a
// time-out per request, redirects, a rate per host; each URL is fetched
// once, so cycles end. Memory is bounded by the largest single document:
// the Graph keeps no entries of lists and manifests, resources are
// streamed through hashes, packages are spilled to a temporary file.
//
// The package prints nothing; progress is reported through a callback.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"time"

	"golang.org/x/sync/semaphore"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Sample values of Options.Sample besides a positive count.
const (
	SampleAll  = -1 // every resource of every list
	SampleNone = 0  // no resource
)

// Options configure a crawl. The zero value of a field means its default.
type Options struct {
	// Validator checks each document; required.
	Validator *engine.Validator
	// MaxDocuments caps the ResourceSync documents fetched (default 1000).
	MaxDocuments int
	// MaxBytes caps the bytes downloaded in all (default 1 GiB).
	MaxBytes int64
	// HTTP holds the HTTP settings (sourcehttp's defaults: time-out,
	// retries, back-off, Retry-After cap, rate, requests in flight,
	// redirects, user agent, headers, transport, clock). Its Origins and
	// MaxBytes are the crawl's own: AllowHosts and MaxBytes set them.
	// Concurrency also bounds the fetches the crawl runs at once.
	HTTP sourcehttp.Config
	// AllowHosts lists the origins besides the entry point's that may be
	// fetched: HOST (its default ports), HOST:PORT, or "*" for any (see
	// sourcehttp.Origins). Another port of the entry host is another
	// origin.
	AllowHosts []string
	// Maps serve URL prefixes from local folders (--map URL=DIR,
	// sourcehttp.NewMapTransport), in front of HTTP.Transport.
	Maps []sourcehttp.Map
	// Sample is the number of resources fetched per Resource List or
	// Change List: a count, SampleAll or SampleNone. Default 10; set
	// SampleSet to ask for SampleNone.
	Sample    int
	SampleSet bool
	// Packages makes the crawl download and open dump packages.
	Packages bool
	// PackageLimits bound a package before it is read, as in rsconform
	// sync (zero values: resourcesync's defaults).
	PackageLimits rs.PackageLimits
	// TempDir is where packages are spilled (default os.TempDir()).
	TempDir string
	// Revisit, when positive, makes the crawl read the lists, dumps and
	// closed documents once more after a pause of Revisit, to observe
	// how the Source changes them (rules/graph/revisit.go).
	Revisit time.Duration
	// Pause waits; nil waits in real time. Tests inject one.
	Pause func(ctx context.Context, d time.Duration) error
	// Progress, when set, is called after each fetch with the totals.
	Progress func(Stats)
	// State, when set, is the path of the crawl's state file (state.go):
	// each completed fetch is recorded there, and a crawl given the file
	// of an earlier run of the same crawl (interrupted or not) replays
	// what it recorded instead of fetching it again.
	State string
	// MaxStateBytes bounds the state file (default: defaultMaxStateBytes,
	// what the records can hold): a larger file is refused before it is
	// read, and a crawl whose records would take the file beyond it
	// records no more (StateInfo.Err), so a resumed crawl fetches again
	// what was not recorded.
	MaxStateBytes int64
}

func (o Options) withDefaults() Options {
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = 1000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 1 << 30
	}
	if o.MaxStateBytes <= 0 {
		o.MaxStateBytes = defaultMaxStateBytes(o)
	}
	o.HTTP = o.HTTP.WithDefaults()
	if o.Sample == 0 && !o.SampleSet {
		o.Sample = 10
	}
	o.PackageLimits = o.PackageLimits.WithDefaults()
	return o
}

// Stats are the running totals of a crawl.
type Stats struct {
	Documents int // ResourceSync documents fetched (or tried)
	// Entries counts the entries (<url> and <sitemap>) of the documents
	// read so far, packages' manifests included, each document once (not
	// its re-reads): on lists of a million entries the other counts stand
	// still for long.
	Entries   int
	Resources int // resources sampled
	Packages  int // packages downloaded
	// MembersRead counts the package members read to check them against
	// their manifest entries (each at most once per package).
	MembersRead int
	Skipped     int // URLs not fetched (host, budget)
	// Refetched counts the open Change Lists fetched once more after the
	// resources, to judge them against the Source's latest record.
	Refetched int
	// Revisited counts the documents read again by --revisit.
	Revisited int
	Bytes     int64 // bytes downloaded
	Requests  int64 // HTTP requests made, retries included
	Findings  int   // findings of the per-document rules so far
}

// Report is the outcome of a crawl.
type Report struct {
	// Results holds one Result per document (and per package, and per
	// discovery page), the cross-document findings merged in, in the order
	// of the hierarchy: each document is followed by its children.
	Results []engine.Result
	Graph   *graph.Graph
	// EntryError is set when the entry point itself could not be fetched
	// or led to no ResourceSync document: the crawl could not do its job.
	EntryError error
	// GraphErrors holds the cross-document rules that could not run.
	GraphErrors map[string]error
	Stats       Stats
	// Sampling says which listed resources were fetched, from which lists,
	// and why the others were not; nil when the crawl sampled none
	// (--sample 0).
	Sampling *graph.Sampling
	// UncheckedPackages lists the packages (with --packages) that could
	// not be downloaded, opened or checked: their Results have status
	// error and say why (a ZIP bomb, not a ZIP file, over a limit).
	UncheckedPackages []string
	// State says what the crawl did with its state file (Options.State);
	// nil without one.
	State *StateInfo
	// Notes say, once each, what the crawl did not judge and why (the
	// dates --map does not serve: sourcehttp.MapNote).
	Notes []string
}

// Discovered says which discovery methods gave a document, for people.
func (r *Report) Discovered() []string {
	var out []string
	for _, d := range r.Graph.Discovery {
		if d.Target == "" {
			continue
		}
		if n := r.Graph.Node(d.Target); n != nil && n.Doc != nil && n.Kind != rs.KindUnknown {
			out = append(out, fmt.Sprintf("%s: %s (%s)", d.Method, d.Target, n.Kind.Title()))
		}
	}
	return out
}

// maxSize is --max-size, the bound of one document as the crawl reads it
// (decoded): the Validator's limit, or its default. The documents are read
// within it and the state file's bounds are sized by it.
func (o Options) maxSize() int64 {
	var limits engine.Limits
	if o.Validator != nil {
		limits = o.Validator.Config.Limits
	}
	return limits.WithDefaults().MaxBytes
}

// Crawl walks the Source from entry and returns what it found. An error is
// returned only for bad options; everything the Source does wrong, down
// to an unreachable entry point, is in the Report.
func Crawl(ctx context.Context, entry string, opts Options) (*Report, error) {
	if opts.Validator == nil {
		return nil, errors.New("crawler: no Validator")
	}
	opts = opts.withDefaults()
	eu, err := url.Parse(strings.TrimSpace(entry))
	if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
		return nil, fmt.Errorf("crawler: the entry point %q is not an http(s) URL", entry)
	}
	eu.Fragment = ""
	c, err := newCrawl(ctx, eu, opts)
	if err != nil {
		return nil, err
	}
	if opts.State != "" {
		if c.state, err = openJournal(opts.State, eu.String(), opts); err != nil {
			return nil, err
		}
	}
	c.run()
	r := c.report()
	if c.state != nil {
		r.State = c.state.close(ctx.Err() == nil)
	}
	return r, nil
}

// crawl is the state of one crawl.
type crawl struct {
	ctx   context.Context
	opts  Options
	entry *url.URL
	f     *sourcehttp.Client
	v     *engine.Validator

	mu        sync.Mutex
	graph     *graph.Graph
	results   map[string]*engine.Result
	documents int
	// linked counts the describedby targets scheduled (maxLinked).
	linked   int
	stats    Stats
	wg       sync.WaitGroup
	sem      chan struct{}
	entryErr error
	// validating bounds the bytes of the documents being validated at
	// once: validating a document takes several times its size, and a
	// crawl's memory must stay bounded by its largest document.
	validating *semaphore.Weighted
	// plain marks URLs found only through robots.txt, which may be plain
	// Sitemaps rather than ResourceSync documents (section 6.3.4).
	plain map[string]bool
	// pending holds the sampled resources until every document is
	// fetched (run).
	pending []task
	// sampled says what was sampled of each list, in fetch order; lists
	// holds their picks until every document is fetched (sampleLists).
	sampled []*graph.SampledList
	lists   []listSample
	// state is the crawl's state file; nil without one.
	state *journal
}

// validatingBytes is how many bytes of documents are validated at once:
// small documents go side by side, a large one (up to the 50 MB limit)
// alone.
const validatingBytes = 8 << 20

// budgetSpent is why a fetch was not made once the crawl's byte budget is
// spent, for a target met while crawling and for one held for later.
const budgetSpent = "not fetched: the crawl's byte budget (--max-bytes) is spent"

// budgetWeight is what a document of n bytes takes of the validation
// budget (n < 0: unknown length).
func budgetWeight(n int64) int64 {
	switch {
	case n < 0:
		return validatingBytes / 2
	case n < 1:
		return 1
	case n > validatingBytes:
		return validatingBytes
	}
	return n
}

// validate runs the Validator on one document within the validation budget.
func (c *crawl) validate(loc string, data []byte) (engine.Result, *rs.Document) {
	w := budgetWeight(int64(len(data)))
	if err := c.validating.Acquire(c.ctx, w); err != nil {
		return engine.ErrorResult(loc, err.Error()), nil
	}
	defer c.validating.Release(w)
	return c.v.ValidateDoc(c.ctx, loc, data)
}

func newCrawl(ctx context.Context, entry *url.URL, opts Options) (*crawl, error) {
	origins, err := sourcehttp.NewOrigins(entry, opts.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	for _, m := range opts.Maps {
		origins.AddOrigin(m.Prefix.Origin)
	}
	hc := opts.HTTP
	hc.Origins, hc.MaxBytes = origins, opts.MaxBytes
	if len(opts.Maps) > 0 {
		next := hc.Transport
		if next == nil {
			next = sourcehttp.NewTransport(hc.Concurrency, hc.Timeout)
		}
		if hc.Transport, err = sourcehttp.NewMapTransport(opts.Maps, next); err != nil {
			return nil, fmt.Errorf("crawler: %w", err)
		}
	}
	f := sourcehttp.New(hc)
	g := graph.New()
	g.Entry = entry.String()
	g.History.Spec = opts.Validator.Config.WithDefaults().Spec
	return &crawl{
		ctx: ctx, opts: opts, entry: entry, f: f, v: opts.Validator,
		graph: g, results: map[string]*engine.Result{},
		sem: make(chan struct{}, opts.HTTP.Concurrency), plain: map[string]bool{},
		validating: semaphore.NewWeighted(validatingBytes),
	}, nil
}

// task is one URL to fetch.
type task struct {
	url  string
	role graph.Role
	edge graph.Edge
	// probe marks discovery probes (the well-known URI, robots.txt): a
	// failure is a fact for the rules, not a document in error.
	probe bool
}

// isEntry reports whether t fetches the entry point.
func (t task) isEntry() bool { return t.edge.Rel == "entry" }

// enqueue schedules t unless its URL was seen; either way it records the
// edge. It returns whether the task was scheduled.
func (c *crawl) enqueue(t task) bool {
	if t.url == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.graph.Node(t.url); n != nil {
		if t.edge.Rel != "" {
			n.In = append(n.In, t.edge)
		}
		// A document that links to a URL robots.txt named makes it a
		// ResourceSync document, not a plain Sitemap.
		if t.edge.Rel != "discovery" {
			delete(c.plain, t.url)
		}
		return false
	}
	n := &graph.Node{URL: t.url, Kind: rs.KindUnknown, Role: t.role}
	if t.edge.Rel != "" {
		n.In = append(n.In, t.edge)
	}
	c.graph.Add(n)
	if t.role == graph.RoleDocument && !t.probe {
		c.documents++
		if c.documents > c.opts.MaxDocuments {
			n.Skipped = fmt.Sprintf("not fetched: the crawl reached --max-documents (%d)", c.opts.MaxDocuments)
			c.stats.Skipped++
			c.setResult(skippedResult(t.url, n.Skipped))
			return false
		}
	}
	if t.role == graph.RoleLinked {
		c.linked++
		if c.linked > maxLinked {
			n.Skipped = fmt.Sprintf("not fetched: the crawl asks for at most %d describedby targets", maxLinked)
			c.stats.Skipped++
			return false
		}
	}
	if !c.f.BudgetLeft() {
		n.Skipped = budgetSpent
		c.stats.Skipped++
		if t.role == graph.RoleDocument && !t.probe {
			c.setResult(skippedResult(t.url, n.Skipped))
		}
		return false
	}
	if u, err := url.Parse(t.url); err == nil {
		if err := c.f.Origins().Check(u); err != nil {
			n.Skipped = err.Error()
			if refused, ok := err.(*sourcehttp.NotAllowedError); ok {
				n.AllowHost = refused.AllowHost()
			}
			c.stats.Skipped++
			if t.role == graph.RoleDocument && !t.probe {
				c.setResult(skippedResult(t.url, "not fetched: "+n.Skipped))
			}
			return false
		}
	}
	if t.role == graph.RoleResource {
		// Resources are fetched once every document is (run).
		c.pending = append(c.pending, t)
		return true
	}
	c.spawn(t, n)
	return true
}

// spawn processes t in a goroutine within the crawl's concurrency.
func (c *crawl) spawn(t task, n *graph.Node) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			c.mu.Lock()
			n.Skipped = notFetched
			c.mu.Unlock()
			return
		}
		defer func() { <-c.sem }()
		c.process(t)
	}()
}

func skippedResult(u, why string) *engine.Result {
	return &engine.Result{Location: u, Kind: rs.KindUnknown, Status: engine.StatusSkipped, Error: why}
}

// setResult records the Result of a URL; c.mu must be held.
func (c *crawl) setResult(r *engine.Result) {
	c.results[r.Location] = r
}

// update runs fn under the lock, then reports progress.
func (c *crawl) update(fn func()) {
	c.mu.Lock()
	fn()
	c.stats.Bytes = c.f.Bytes()
	c.stats.Requests = c.f.Requests()
	st := c.stats
	c.mu.Unlock()
	if c.opts.Progress != nil {
		c.opts.Progress(st)
	}
}

func (c *crawl) process(t task) {
	switch t.role {
	case graph.RoleResource:
		c.processResource(t)
	case graph.RolePackage:
		c.processPackage(t)
	case graph.RoleLinked:
		c.processLinked(t)
	default:
		c.processDocument(t)
	}
}

// run crawls in three phases. The documents first; then the sampled
// resources, so that every claim about a resource was made before the
// resource is fetched; then the open Change Lists once more, so that the
// History holds every change the Source recorded up to those fetches. A
// resource that changes during the crawl is then judged against what the
// Source itself says of it (rules/graph/history.go).
func (c *crawl) run() {
	c.start()
	c.wg.Wait()
	c.sampleLists()
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, t := range pending {
		c.mu.Lock()
		n := c.graph.Node(t.url)
		if !c.f.BudgetLeft() {
			n.Skipped = budgetSpent
			c.stats.Skipped++
			c.mu.Unlock()
			continue
		}
		c.mu.Unlock()
		c.spawn(t, n)
	}
	c.wg.Wait()
	if len(pending) > 0 {
		c.refreshHistory()
	}
	if c.opts.Revisit > 0 {
		c.revisit()
	}
	c.finish()
}

// report assembles the Report once the crawl is done.
func (c *crawl) report() *Report {
	// From here on, the documents are taken in the order of the links,
	// not of the fetches: the graph's rules and the report's order are the
	// same in every crawl of the Source.
	c.graph.SortByLinks()
	r := &Report{Graph: c.graph, EntryError: c.entryErr, Stats: c.stats}
	if len(c.opts.Maps) > 0 {
		r.Notes = append(r.Notes, sourcehttp.MapNote)
	}
	if c.opts.Sample != SampleNone {
		r.Sampling = c.sampling()
	}
	findings, applied, errs, err := graph.Run(c.ctx, c.graph, c.v.Config)
	if err != nil {
		// Interrupted: the rules that ran judged part of the crawl.
		r.Notes = append(r.Notes, err.Error()+": none of their findings is reported")
	}
	r.GraphErrors = errs
	for u, ds := range findings {
		res := c.results[u]
		if res == nil {
			res = &engine.Result{Location: u, Kind: rs.KindUnknown}
			if n := c.graph.Node(u); n != nil {
				res.Kind = n.Kind
				switch n.Role {
				case graph.RolePackage:
					res.Kind = rs.KindPackage
				case graph.RoleResource:
					res.Kind = rs.KindResource
				}
			}
			c.results[u] = res
		}
		res.AddFindings(c.v.Config, ds)
	}
	for _, res := range c.results {
		if n := c.graph.Node(res.Location); n != nil && n.Role == graph.RoleDocument && n.Doc != nil {
			res.Applied = append(res.Applied, applied...)
		}
		if res.Status == engine.StatusSkipped && len(res.Diagnostics) > 0 && res.Error == "" {
			res.Status = ""
		}
		res.Finish()
	}
	r.Results = c.ordered()
	if r.Sampling != nil {
		// The lists in the order of the report's documents, not in the
		// order the fetches happened to complete: two crawls of the same
		// Source report the same.
		at := make(map[string]int, len(r.Results))
		for i, res := range r.Results {
			at[res.Location] = i
		}
		sort.SliceStable(r.Sampling.Lists, func(i, j int) bool {
			return orderOf(at, r.Sampling.Lists[i].Location) < orderOf(at, r.Sampling.Lists[j].Location)
		})
	}
	r.Stats.Findings = 0
	for _, res := range r.Results {
		r.Stats.Findings += len(res.Diagnostics)
		if n := c.graph.Node(res.Location); n != nil && n.Role == graph.RolePackage && res.Status == engine.StatusError {
			r.UncheckedPackages = append(r.UncheckedPackages, res.Location)
		}
	}
	return r
}

// downward tells the edges that go down the hierarchy (or in from
// discovery), which make a parent, from those that go up or sideways.
func downward(rel string) bool {
	switch rel {
	case "up", "index", "entry":
		return false
	}
	return true
}

// parentOf picks the parent of a node: the first document that leads down
// to it, in the graph's (link) order; "" for a top.
func (c *crawl) parentOf(n *graph.Node, order map[string]int) string {
	// A document that lists this one wins over a page that led to it by
	// discovery.
	best, bestRank := "", 2*(len(order)+1)
	for _, e := range n.In {
		if e.From == "" || e.From == n.URL || !downward(e.Rel) {
			continue
		}
		if c.results[e.From] == nil {
			continue
		}
		o, ok := order[e.From]
		if !ok {
			continue
		}
		rank := o
		if e.Rel == "discovery" {
			rank += len(order) + 1
		}
		if rank < bestRank {
			best, bestRank = e.From, rank
		}
	}
	return best
}

// ordered fills Parent and Children and returns the Results depth first
// from the tops, children in the order their parent names them.
func (c *crawl) ordered() []engine.Result {
	order := map[string]int{}
	for i, u := range c.graph.Order { // in link order: see report
		order[u] = i
	}
	children := map[string][]string{}
	var tops []string
	urls := make([]string, 0, len(c.results))
	for u := range c.results {
		urls = append(urls, u)
	}
	sort.Slice(urls, func(i, j int) bool {
		if a, b := orderOf(order, urls[i]), orderOf(order, urls[j]); a != b {
			return a < b
		}
		return urls[i] < urls[j]
	})
	for _, u := range urls {
		res := c.results[u]
		n := c.graph.Node(u)
		p := ""
		if n != nil {
			p = c.parentOf(n, order)
		}
		// A parent must not be a descendant: break cycles at the entry.
		if p != "" && c.descends(p, u, order) {
			p = ""
		}
		res.Parent = p
		if p == "" {
			tops = append(tops, u)
		} else {
			children[p] = append(children[p], u)
		}
	}
	posOf := func(parent, child string) rs.Pos {
		if n := c.graph.Node(child); n != nil {
			for _, e := range n.In {
				if e.From == parent {
					return e.Pos
				}
			}
		}
		return rs.Pos{}
	}
	for p, cs := range children {
		sort.SliceStable(cs, func(i, j int) bool {
			a, b := posOf(p, cs[i]), posOf(p, cs[j])
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return orderOf(order, cs[i]) < orderOf(order, cs[j])
		})
		c.results[p].Children = cs
	}
	// Tops: the Source Descriptions first, then in the graph's (link) order.
	sort.SliceStable(tops, func(i, j int) bool {
		return topRank(c.graph.Node(tops[i])) < topRank(c.graph.Node(tops[j]))
	})
	var out []engine.Result
	seen := map[string]bool{}
	var walk func(u string)
	walk = func(u string) {
		if seen[u] {
			return
		}
		seen[u] = true
		out = append(out, *c.results[u])
		for _, ch := range children[u] {
			walk(ch)
		}
	}
	for _, t := range tops {
		walk(t)
	}
	for _, u := range urls {
		walk(u)
	}
	return out
}

func orderOf(order map[string]int, u string) int {
	if o, ok := order[u]; ok {
		return o
	}
	return len(order)
}

func topRank(n *graph.Node) int {
	if n == nil {
		return 3
	}
	switch {
	case n.Role == graph.RoleDiscovery:
		return 0
	case n.Kind.Base() == rs.SourceDescription:
		return 1
	}
	return 2
}

// descends reports whether candidate has u as an ancestor through the
// parents chosen so far (which are those of nodes earlier in the graph's order).
func (c *crawl) descends(candidate, u string, order map[string]int) bool {
	seen := map[string]bool{}
	for p := candidate; p != ""; {
		if p == u {
			return true
		}
		if seen[p] {
			return true
		}
		seen[p] = true
		res := c.results[p]
		if res == nil {
			return false
		}
		p = res.Parent
	}
	return false
}
