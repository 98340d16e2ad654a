package engine

import (
	"slices"
	"sort"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// DefaultMaxFindingsPerRule is the number of findings of one rule a
// document's Result keeps with their locations under the command line's
// default (--max-findings-per-rule): one fault repeated on every entry of
// a 50,000-entry list would otherwise keep 50,000 findings per rule, and
// a report of a document breaking a dozen rules on every entry would hold
// hundreds of thousands (1.35 GB for 650,000 findings, issue "bounds").
const DefaultMaxFindingsPerRule = 1000

// Omitted counts the findings of one rule (at one severity) a Result does
// not keep beyond Config.MaxFindingsPerRule: they count in Result.Count
// like the findings kept.
type Omitted struct {
	Rule     string
	Severity Severity
	Section  string
	Count    int
}

// findings collects the findings of one document, as the rules report
// them (from several goroutines): at most max of each rule are kept, the
// others counted by rule. A finding keep says to keep (one a baseline
// knows, removed afterwards) is kept and does not count towards max.
type findings struct {
	mu      sync.Mutex
	max     int // <= 0: keep all
	keep    func(Diagnostic) bool
	kept    []Diagnostic
	perRule map[string]int
	omitted map[omittedKey]*Omitted
}

type omittedKey struct {
	rule string
	sev  Severity
}

// newFindings is the collector of the document at location, of kind k,
// under cfg.
func newFindings(location string, k rs.Kind, cfg Config) *findings {
	f := &findings{max: cfg.MaxFindingsPerRule}
	if cfg.Keep != nil {
		f.keep = func(d Diagnostic) bool { return cfg.Keep(location, k, d) }
	}
	return f
}

func (f *findings) add(d Diagnostic) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.max <= 0 || (f.keep != nil && f.keep(d)) {
		f.kept = append(f.kept, d)
		return
	}
	if f.perRule == nil {
		f.perRule = map[string]int{}
	}
	if f.perRule[d.Rule] < f.max {
		f.perRule[d.Rule]++
		f.kept = append(f.kept, d)
		return
	}
	if f.omitted == nil {
		f.omitted = map[omittedKey]*Omitted{}
	}
	k := omittedKey{d.Rule, d.Severity}
	o := f.omitted[k]
	if o == nil {
		o = &Omitted{Rule: d.Rule, Severity: d.Severity, Section: d.Section}
		f.omitted[k] = o
	}
	o.Count++
}

// AddFindings adds to r findings of rules that ran after the document's
// own (the crawl's cross-document rules) under the same cap as the
// document's: at most cfg.MaxFindingsPerRule of one rule kept (those a
// rule already has in r count), the others counted in r.Omitted (in no
// order until r.Finish sorts them).
func (r *Result) AddFindings(cfg Config, ds []Diagnostic) {
	f := newFindings(r.Location, r.Kind, cfg)
	if f.max > 0 {
		f.perRule = map[string]int{}
		for _, d := range r.Diagnostics {
			if f.keep == nil || !f.keep(d) {
				f.perRule[d.Rule]++
			}
		}
		for _, o := range r.Omitted {
			// A rule already over the cap keeps no more.
			f.perRule[o.Rule] = max(f.perRule[o.Rule], f.max)
		}
	}
	for _, d := range ds {
		f.add(d)
	}
	r.Diagnostics = append(r.Diagnostics, f.kept...)
	for _, o := range f.omittedList() {
		i := slices.IndexFunc(r.Omitted, func(x Omitted) bool { return x.Rule == o.Rule && x.Severity == o.Severity })
		if i < 0 {
			r.Omitted = append(r.Omitted, o)
			continue
		}
		r.Omitted[i].Count += o.Count
	}
}

// omittedList is what was counted and not kept, in no order: both
// callers add it to a Result, which Result.Finish sorts (by rule then
// severity).
func (f *findings) omittedList() []Omitted {
	out := make([]Omitted, 0, len(f.omitted))
	for _, o := range f.omitted {
		out = append(out, *o)
	}
	return out
}

func sortOmitted(os []Omitted) {
	sort.Slice(os, func(i, j int) bool {
		if os[i].Rule != os[j].Rule {
			return os[i].Rule < os[j].Rule
		}
		return os[i].Severity < os[j].Severity
	})
}

// OmittedOf is the number of findings of rule that r does not keep.
func (r *Result) OmittedOf(rule string) int {
	n := 0
	for _, o := range r.Omitted {
		if o.Rule == rule {
			n += o.Count
		}
	}
	return n
}
