package reporter

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/rsconform/rsconform/internal/digits"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// The html format: one self-contained page (no network, no external asset;
// it works from file://) with the documents as a collapsible tree (a
// crawl's hierarchy, from Result.Parent), each with its status and counts,
// and under each its findings: rule (linked to the rule's page), level,
// section, line:column, message and, when Options.Sources kept the
// document's text, the lines around the finding. Filters by level and rule
// run in a small inline script; a glossary at the end quotes the
// specification for every rule that has a finding.
//
// Everything that comes from a Source (locations, messages, document text)
// goes through html/template's contextual escaping, and the page carries a
// Content-Security-Policy that only lets its own style and script run (by
// hash): a document cannot make the page run anything.

//go:embed html/*.tmpl
var htmlFiles embed.FS

// HTML assets, shared with the web validator (webui), which renders its
// pages in the same style. Embedded as strings, they cost the start of a
// command nothing (read from an embed.FS into strings, 17 KB at each).
var (
	//go:embed html/report.css
	htmlStyle string
	//go:embed html/report.js
	htmlScript string
)

// HTMLStyle is the stylesheet of the html format, for pages that embed it
// in a <style> element.
func HTMLStyle() template.CSS { return template.CSS(htmlStyle) }

// HTMLScript is the script of the html format (filters, expand and collapse).
func HTMLScript() template.JS { return template.JS(htmlScript) }

// HTMLPolicy is the Content-Security-Policy of the html format's pages:
// nothing may load, and only the page's own style and script may run.
// formAction is the form-action source list ("'none'" for a report).
func HTMLPolicy(formAction string) string {
	return "default-src 'none'; base-uri 'none'; img-src data:; form-action " + formAction +
		"; style-src '" + sha256Source(htmlStyle) + "'; script-src '" + sha256Source(htmlScript) + "'"
}

func sha256Source(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// HTMLTemplates parses the html format's templates: "page" (the frame:
// head, style, script, header), "report" (a report's body), "summary",
// "tree" and "glossary". The web validator adds its own pages to a clone.
func HTMLTemplates() *template.Template {
	return template.Must(template.New("").Funcs(htmlFuncs).ParseFS(htmlFiles, "html/*.tmpl"))
}

var htmlFuncs = template.FuncMap{
	"lower":  strings.ToLower,
	"plural": words.Count,
}

// DefaultRuleURL is where a rule links when Options.RuleURL is not set:
// its entry in the catalogue, docs/rules.md of rsconform's repository.
func DefaultRuleURL(id string) string {
	return "https://github.com/rsconform/rsconform/blob/main/docs/rules.md#" + strings.ToLower(id)
}

// HTMLPage is the frame every page of the html format shares.
type HTMLPage struct {
	Title string
	// Home, when set, is a link back to where the report came from (the
	// web validator's form).
	Home   string
	Tool   string
	Policy string
	Style  template.CSS
	Script template.JS
}

// NewHTMLPage is the frame of a page titled title.
func NewHTMLPage(title, home, tool, formAction string) HTMLPage {
	return HTMLPage{Title: title, Home: home, Tool: tool, Policy: HTMLPolicy(formAction),
		Style: HTMLStyle(), Script: HTMLScript()}
}

// htmlReport is what the "report" template renders.
type htmlReport struct {
	HTMLPage
	Version, Spec string
	Strict        bool
	Notes         []string
	Summary       Summary
	// Sampling is the text format's sampling line ("" when the crawl
	// sampled nothing or this is not a crawl).
	Sampling string
	Roots    []*htmlNode
	Rules    []htmlRule
}

// htmlNode is one document in the tree.
type htmlNode struct {
	ID                      string
	Location, Href          string
	Kind, Status, Mark      string
	Error                   string
	Errors, Warnings, Infos int
	Findings                []htmlFinding
	Children                []*htmlNode
	Open                    bool
	SourceNote              string
	OmittedNote             string // findings not shown (Options.MaxFindings)
	parent                  string
}

// htmlFinding is one finding of a document.
type htmlFinding struct {
	// ID is the finding's anchor (#ID), its source lines' is ID-src.
	ID                        string
	Rule, RuleHref, RuleTitle string
	Severity                  string
	Section, SectionTitle     string
	Message                   string
	Pos                       string
	Related                   []string
	Excerpt                   []excerptLine
}

// htmlRule is a rule of the glossary (and of the rule filter).
type htmlRule struct {
	ID, Href, Title, Level, Section, SectionTitle, Quote string
	Count                                                int
}

type htmlReporter struct {
	once
	w        io.Writer
	o        Options
	sum      Summary
	sampling *graph.Sampling
	nodes    []*htmlNode
	rules    map[string]*htmlRule
	tmpl     *template.Template
}

func newHTML(w io.Writer, o Options) *htmlReporter {
	return &htmlReporter{w: w, o: o, rules: map[string]*htmlRule{}, tmpl: HTMLTemplates()}
}

// SetSampling makes the summary say what a crawl sampled.
func (h *htmlReporter) SetSampling(s *graph.Sampling) { h.sampling = s }

func (h *htmlReporter) ruleURL(id string) string {
	if h.o.RuleURL != nil {
		return h.o.RuleURL(id)
	}
	return DefaultRuleURL(id)
}

func (h *htmlReporter) Write(r engine.Result) error {
	if err := h.lock(false); err != nil {
		return err
	}
	defer h.unlock()
	h.sum.Add(r)
	h.nodes = append(h.nodes, h.node(r))
	return nil
}

// node converts a Result, cutting the excerpts out of the document's text
// (which Sources then forgets).
func (h *htmlReporter) node(r engine.Result) *htmlNode {
	st := shownStatus(r, h.o)
	n := &htmlNode{
		ID:       "doc-" + strconv.Itoa(len(h.nodes)+1),
		Location: r.Location, Kind: kindOf(r), Status: string(st), Error: r.Error,
		parent: r.Parent,
	}
	if u, err := url.Parse(r.Location); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		n.Href = r.Location
	}
	switch st {
	case engine.StatusValid:
		n.Mark = "✓"
	case engine.StatusInvalid, StatusFails:
		n.Mark = "✗"
	case engine.StatusError:
		n.Mark = "!"
	default:
		n.Mark = "–"
	}
	n.Errors, n.Warnings, n.Infos = r.Count()
	text, kept, tooLarge := h.o.Sources.take(r.Location)
	if tooLarge && len(r.Diagnostics) > 0 {
		n.SourceNote = "The document's text was not kept (too large for the report), so no lines are shown."
	}
	idx := &lineIndex{data: text}
	omitted := 0
	for i, d := range r.Diagnostics {
		if h.o.MaxFindings > 0 && i >= h.o.MaxFindings {
			omitted++
			if gr := h.rules[d.Rule]; gr != nil {
				gr.Count++
			}
			continue
		}
		sev := string(severityOf(d.Severity))
		// A finding's rule links to the page's own glossary, which links
		// on to the rule's page.
		f := htmlFinding{
			ID:   n.ID + "-f" + strconv.Itoa(i+1),
			Rule: d.Rule, RuleHref: "#rule-" + d.Rule, Severity: sev,
			Section: d.Section, Message: d.Message, Pos: position(d.Location, r.Location),
		}
		if s := rules.Section(d.Section); s != nil {
			f.SectionTitle = s.Title
		}
		gr := h.rules[d.Rule]
		if gr == nil {
			gr = &htmlRule{ID: d.Rule, Href: h.ruleURL(d.Rule), Section: d.Section, SectionTitle: f.SectionTitle}
			if rule := engine.Lookup(d.Rule); rule != nil {
				gr.Title, gr.Level, gr.Quote = rule.Title, rule.Level.String(), rule.Quote
			}
			h.rules[d.Rule] = gr
		}
		gr.Count++
		f.RuleTitle = gr.Title
		for _, rel := range d.Related {
			f.Related = append(f.Related, position(rel, r.Location))
		}
		if kept && i < excerptFindings && sameDocument(d.Location, r) {
			f.Excerpt = idx.excerpt(d.Location.Line, d.Location.Column)
		}
		n.Findings = append(n.Findings, f)
	}
	var notes []string
	if omitted > 0 {
		notes = append(notes, strings.TrimSpace(fmt.Sprintf("%s more findings of this document are not shown: the page shows the first %s. %s",
			digits.Grouped(int64(omitted)), digits.Grouped(int64(h.o.MaxFindings)), h.o.OmittedHint)))
	}
	// Findings the check did not keep (beyond --max-findings-per-rule).
	for _, o := range r.Omitted {
		if gr := h.rules[o.Rule]; gr != nil {
			gr.Count += o.Count
		}
		note := omittedNote(o)
		notes = append(notes, strings.ToUpper(note[:1])+note[1:]+".")
	}
	n.OmittedNote = strings.Join(notes, " ")
	return n
}

func (h *htmlReporter) Flush() error {
	if err := h.lock(true); err != nil {
		return err
	}
	defer h.unlock()
	title := h.o.Title
	if title == "" {
		title = h.o.Tool + " report"
	}
	rep := htmlReport{
		HTMLPage: NewHTMLPage(title, h.o.Home, h.o.Tool, "'none'"),
		Version:  h.o.Version, Spec: specOf(h.o), Strict: h.o.Strict, Summary: h.sum, Notes: h.o.Notes,
		Roots: buildTree(h.nodes), Sampling: samplingText(h.sampling),
	}
	for _, r := range h.rules {
		rep.Rules = append(rep.Rules, *r)
	}
	sort.Slice(rep.Rules, func(i, j int) bool { return rep.Rules[i].ID < rep.Rules[j].ID })
	return h.tmpl.ExecuteTemplate(h.w, "report", rep)
}

// openDepth is how deep the tree starts unfolded; below, a document is
// open when it or a descendant has a failing finding.
const openDepth = 2

// buildTree hangs each document under its parent (the first document of
// that location), in the order written; a document whose parent is not in
// the report, or that would close a cycle, is a root.
func buildTree(nodes []*htmlNode) []*htmlNode {
	byLoc := map[string]*htmlNode{}
	for _, n := range nodes {
		if _, ok := byLoc[n.Location]; !ok {
			byLoc[n.Location] = n
		}
	}
	var roots []*htmlNode
	// A document is placed under its parent only when the chain of parents
	// reaches a root without a cycle.
	var reachesRoot func(n *htmlNode, seen map[*htmlNode]bool) bool
	reachesRoot = func(n *htmlNode, seen map[*htmlNode]bool) bool {
		p := byLoc[n.parent]
		if n.parent == "" || p == nil || p == n {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		return reachesRoot(p, seen)
	}
	for _, n := range nodes {
		p := byLoc[n.parent]
		if n.parent != "" && p != nil && p != n && reachesRoot(n, map[*htmlNode]bool{}) {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	var mark func(n *htmlNode, depth int) bool
	mark = func(n *htmlNode, depth int) bool {
		failing := n.Errors > 0 || n.Status == string(engine.StatusError) || n.Status == string(StatusFails)
		for _, c := range n.Children {
			if mark(c, depth+1) {
				failing = true
			}
		}
		n.Open = depth < openDepth || failing
		return failing
	}
	for _, r := range roots {
		mark(r, 0)
	}
	return roots
}
