// Package graph is the crawl graph and the cross-document rules: what a
// crawl learnt about a Source (a Node per URL, the Edges that led to it,
// the HTTP facts observed, discovery, the Source's own history of its
// resources, what was sampled) and the rules that judge relations between
// documents once the crawl is done (Check, run by Run).
//
// The crawler only fetches, records and schedules: it hands each document
// it read to SetDocument (a second reading to SetRevisit) with the HTTP
// facts of its fetch, and the graph computes what the rules compare
// (record.go). A cross-document rule is an engine.Rule whose CheckGraph is
// a Check, in the file of its subject (nav.go: up and index links, http.go:
// HTTP, resources.go: sampled resources, packages.go: dump
// packages, revisit.go: --revisit, history.go and snapshot.go: the
// Source's history; the rules of discovery, section 6.3, are in
// rules/crawldiscovery, on the exported facts); its fixture Source is a folder of
// fixtures/sites/RULE-ID/ (pass-*, fail-*), crawled by crawler/sites_test.go.
package graph

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"sort"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Graph is what a crawl learnt about a Source: one Node per fetched URL.
// Cross-document rules (engine.Rule.CheckGraph, a Check) read it after the
// crawl.
//
// To keep memory bounded by the largest document, a Node does not keep the
// entries of lists and manifests (they can hold 50,000 each); it keeps the
// document's top level, and the entries only of documents that point at
// other documents (Source Descriptions, Capability Lists, indexes, archives,
// dumps), which are small. Fingerprints of the <loc>s of resource lists and
// dump manifests are kept for the coverage rules.
type Graph struct {
	Nodes map[string]*Node
	// Order is the URLs in the order they were fetched, until SortByLinks
	// puts them in the order of the links that lead to them.
	Order []string
	// Entry is the URL the crawl started from.
	Entry string
	// Discovery lists what the crawl tried to find the Source's documents
	// from its entry point (section 6.3), in order (see facts.go).
	Discovery []Discovery
	// History is what the Source's Change Lists record of its resources
	// (history.go): sampled resources are judged against it.
	History History
}

// New returns an empty graph.
func New() *Graph { return &Graph{Nodes: map[string]*Node{}} }

// Add records a node (replacing one with the same URL).
func (g *Graph) Add(n *Node) {
	if _, ok := g.Nodes[n.URL]; !ok {
		g.Order = append(g.Order, n.URL)
	}
	g.Nodes[n.URL] = n
}

// Node returns the node for url, or nil.
func (g *Graph) Node(url string) *Node { return g.Nodes[url] }

// SortByLinks puts Order in an order that does not depend on when the
// fetches completed (with several requests in flight, or a crawl resumed
// from its state, that order varies from run to run): breadth first from
// Entry, each document's links in the order it gives them (line, column,
// then how), and the URLs no link leads to last, by URL. A crawl calls it
// once every fetch is done, before the graph's rules run: they, and the
// report, then take the documents in the same order in every crawl of a
// Source.
func (g *Graph) SortByLinks() {
	type link struct {
		to  string
		pos rs.Pos
		rel string
	}
	from := map[string][]link{}
	for u, n := range g.Nodes {
		for _, e := range n.In {
			if e.From != "" && e.From != u {
				from[e.From] = append(from[e.From], link{u, e.Pos, e.Rel})
			}
		}
	}
	for _, ls := range from {
		sort.Slice(ls, func(i, j int) bool {
			a, b := ls[i], ls[j]
			switch {
			case a.pos.Line != b.pos.Line:
				return a.pos.Line < b.pos.Line
			case a.pos.Column != b.pos.Column:
				return a.pos.Column < b.pos.Column
			case a.rel != b.rel:
				return a.rel < b.rel
			}
			return a.to < b.to
		})
	}
	out := make([]string, 0, len(g.Nodes))
	seen := map[string]bool{}
	if _, ok := g.Nodes[g.Entry]; ok {
		out = append(out, g.Entry)
		seen[g.Entry] = true
	}
	for i := 0; i < len(out); i++ {
		for _, l := range from[out[i]] {
			if !seen[l.to] {
				seen[l.to] = true
				out = append(out, l.to)
			}
		}
	}
	var rest []string
	for u := range g.Nodes {
		if !seen[u] {
			rest = append(rest, u)
		}
	}
	sort.Strings(rest)
	g.Order = append(out, rest...)
}

// Sorted returns the nodes in Order.
func (g *Graph) Sorted() []*Node {
	out := make([]*Node, 0, len(g.Order))
	for _, u := range g.Order {
		out = append(out, g.Nodes[u])
	}
	return out
}

// Edge says how a document was reached from another.
type Edge struct {
	From string
	// Rel is how: "loc" (an entry of the parent), "up", "index",
	// "contents", "archives", "discovery", "manifest" (the manifest.xml
	// of a package), "describedby", "entry" (the crawl's entry point).
	Rel string
	// Pos is where in From the link stands.
	Pos rs.Pos
	// Capability is what the parent said the target is (capability
	// attribute of the entry's rs:md), when it said.
	Capability string
	// Md and Lastmod are what the parent's entry said of the target (its
	// <rs:md> and <lastmod>), kept for sampled resources and packages so
	// that length, hash, type and lastmod can be compared with what the
	// Source serves. Nil and "" otherwise.
	Md      *rs.Md
	Lastmod string
}

// Node is one fetched URL.
type Node struct {
	URL string
	// Doc is the document with entries dropped for lists and manifests
	// (see Graph); nil when the URL did not yield a parsed document.
	Doc  *rs.Document
	Kind rs.Kind
	// Entries is the number of entries the document had.
	Entries int
	// LocFingerprints holds the LocFingerprint of every <loc> of a
	// Resource List or dump manifest; nil for other kinds.
	LocFingerprints map[uint64]struct{}
	// HTTP facts; StatusCode 0 when the URL was not fetched over HTTP.
	StatusCode int
	Header     http.Header
	// Method is the request method of the answer recorded, when it was
	// not GET (HEAD for the target of a describedby link).
	Method string `json:",omitempty"`
	// FetchError says why the document could not be had.
	FetchError string
	// In lists how the crawl reached this URL (first one first).
	In []Edge
	// Role is what the URL is to the crawl (see facts.go): a
	// ResourceSync document, a sampled resource, a package, a discovery page.
	Role Role
	// Redirects lists the URLs the fetch went through before URL's
	// response (URL itself first); nil when there was no redirect.
	Redirects []string
	// EarlierStatus are the statuses the URL answered before StatusCode
	// when the crawl asked again (a 503 retried, a document's 404 asked
	// once more), oldest first.
	EarlierStatus []int
	// Skipped says why the URL was not fetched (host not allowed, budget
	// spent); the rules treat such a node as unknown.
	Skipped string
	// AllowHost is set when the crawl's origin policy refused the URL:
	// the --allow-host value that would let the crawl fetch it.
	AllowHost string
	// Body holds what was measured of the body of a resource or package.
	Body *BodyFacts
	// Package holds what was found in a dump package (--packages).
	Package *PackageFacts
	// Canonical is the hex sha-256 of the document as resourcesync.Write
	// re-serialises it: documents that say the same thing have the same
	// Canonical whatever their white space, attribute order or comments.
	Canonical string
	// EntriesDigest is the EntriesDigest of a Change List's entries (for
	// --revisit); "" for other kinds.
	EntriesDigest string
	// LastDatetime is the datetime of a Change List's last entry.
	LastDatetime string
	// Revisit is what a second visit found (--revisit); nil when the
	// document was not visited again.
	Revisit *Revisit
	// Claims are the <lastmod> and hash of a Resource List's entries at
	// the first visit, kept for the second (--revisit); nil otherwise.
	Claims *EntryClaims
}

// Check is the check of a cross-document rule (engine.Rule.CheckGraph):
// it reads the crawl's Graph and reports through the Pass.
type Check func(*Pass) error

// CrossDocument marks Check as an engine.GraphCheck.
func (Check) CrossDocument() {}

// Pass is what a cross-document rule sees.
type Pass struct {
	Rule   *engine.Rule
	Graph  *Graph
	Spec   engine.Spec
	report func(url string, d engine.Diagnostic)
}

// Reportf reports a finding on the document at url, at pos.
func (p *Pass) Reportf(url string, pos rs.Pos, format string, args ...any) {
	p.ReportRelated(url, pos, nil, format, args...)
}

// ReportRelated reports a finding on the document at url with related
// locations in other documents.
func (p *Pass) ReportRelated(url string, pos rs.Pos, related []engine.Location, format string, args ...any) {
	p.reportAt(p.Rule.Level.Severity(), url, pos, related, format, args...)
}

func (p *Pass) reportAt(sev engine.Severity, url string, pos rs.Pos, related []engine.Location, format string, args ...any) {
	p.report(url, engine.Diagnostic{
		Rule: p.Rule.ID, Severity: sev, Section: p.Rule.Section,
		Message: fmt.Sprintf(format, args...), Location: engine.NewLocation(url, pos), Related: related,
	})
}

// ReportSeverity reports a finding on the document at url, at pos, at a
// severity below the rule's level: what the crawl saw is a hint, not the
// evidence the rule's sentence asks for.
func (p *Pass) ReportSeverity(sev engine.Severity, url string, pos rs.Pos, format string, args ...any) {
	p.reportAt(sev, url, pos, nil, format, args...)
}

// Run applies the selected cross-document rules of the catalogue to a
// graph and returns their findings by document URL. A rule that could not
// run is returned as an error per rule ID. Once ctx is done no further
// rule starts and Run returns ctx's error with no findings: a verdict on
// part of the rules would pass a Source the others fail.
func Run(ctx context.Context, g *Graph, cfg engine.Config) (findings map[string][]engine.Diagnostic, applied []string, errs map[string]error, err error) {
	cfg = cfg.WithDefaults()
	var rules []*engine.Rule
	for _, r := range engine.All() {
		if r.IsGraph() && cfg.Select.Selects(r.ID) && (len(r.Specs) == 0 || slices.Contains(r.Specs, cfg.Spec)) {
			rules = append(rules, r)
		}
	}
	return runRules(ctx, g, cfg, rules)
}

// runRules runs rules on g, in turn, while ctx is not done.
func runRules(ctx context.Context, g *Graph, cfg engine.Config, rules []*engine.Rule) (findings map[string][]engine.Diagnostic, applied []string, errs map[string]error, err error) {
	findings = map[string][]engine.Diagnostic{}
	errs = map[string]error{}
	for _, r := range rules {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, fmt.Errorf("the cross-document rules were stopped: %w", err)
		}
		p := &Pass{Rule: r, Graph: g, Spec: cfg.Spec, report: func(url string, d engine.Diagnostic) {
			findings[url] = append(findings[url], d)
		}}
		applied = append(applied, r.ID)
		if err := safeCheck(r, p); err != nil {
			errs[r.ID] = err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("the cross-document rules were stopped: %w", err)
	}
	sort.Strings(applied)
	return findings, applied, errs, nil
}

func safeCheck(r *engine.Rule, p *Pass) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	check, ok := r.CheckGraph.(Check)
	if !ok {
		return fmt.Errorf("its CheckGraph is a %T, not a graph.Check", r.CheckGraph)
	}
	return check(p)
}

// LocFingerprint is the 64-bit fingerprint of a <loc> (FNV-1a of the URI
// without surrounding white space) that Node.LocFingerprints keeps.
func LocFingerprint(loc string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(loc)))
	return h.Sum64()
}
