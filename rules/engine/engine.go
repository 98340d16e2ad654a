// Package engine is rsconform's rule engine: the Rule value, the Pass a
// rule's Check reads a document through, Scopes and the streaming pipeline
// that checks a document while it is read, rule selection, the Registry of
// the catalogue, the values of an entry several rules share (EntryTimes,
// EntryHashes: EntryValue), and the Diagnostic and Result every reporter
// consumes. It holds no rule and no XML parser, and builds without cgo.
//
// A Rule is a value: an ID that never changes, the section of the
// specification it enforces, the sentence it quotes, a level taken from the
// spec's keyword (MUST is an error, SHOULD a warning, informative notes
// info), the document kinds and spec versions it applies to, and a Check
// that reports findings through a Pass. The catalogue packages register
// their rules (Register) from init functions: rules/document (the rules on
// one document) and rules/graph (the rules on a crawl); package rules
// imports both and is the catalogue.
//
// Run applies the selected rules to one parsed document; a Validator
// chains reading, well-formedness, schema validation (through a FrontEnd:
// rules/frontend gives libxml2's) and Run into the Result of one document,
// the unit every reporter consumes.
package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Level is the strength of a requirement, from the spec's keyword.
type Level int

const (
	Must   Level = iota + 1 // MUST, mandatory, required: an error
	Should                  // SHOULD, recommended: a warning
	Info                    // informative: a hint that can still help
)

func (l Level) String() string {
	switch l {
	case Must:
		return "MUST"
	case Should:
		return "SHOULD"
	case Info:
		return "INFO"
	}
	return "invalid"
}

// Severity is the severity of findings of a rule of this level.
func (l Level) Severity() Severity {
	switch l {
	case Must:
		return SeverityError
	case Should:
		return SeverityWarning
	}
	return SeverityInfo
}

// Severity of a finding; the strings are part of the JSON contract.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// AtLeast reports whether s is as severe as level or more: error, then
// warning, then info. A severity that is none of the three ranks as info,
// as Result.Count counts it.
func (s Severity) AtLeast(level Severity) bool { return s.rank() >= level.rank() }

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// Spec is a version of the ResourceSync specification; each is a profile.
type Spec string

const (
	Spec11 Spec = "1.1" // ANSI/NISO Z39.99-2017, the default
	Spec10 Spec = "1.0" // ANSI/NISO Z39.99-2014
)

// Specs are the supported profiles.
var Specs = []Spec{Spec11, Spec10}

// ParseSpec validates a --spec value.
func ParseSpec(s string) (Spec, error) {
	for _, v := range Specs {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown spec version %q (supported: 1.1, 1.0)", s)
}

// Rule is one requirement of the specification.
type Rule struct {
	// ID is stable and readable: RS-<AREA>-<NAME>. Never renumbered or reused.
	ID string
	// Section of the specification ("12.1", "A" for Appendix A, "Archives 5").
	Section string
	Level   Level
	// Title says what holds when the rule passes.
	Title string
	// Quote is the sentence of the specification the rule enforces.
	Quote string
	// English renders Quote in English when the specification's text is
	// in another language (the Archives draft is in Japanese); reports
	// show it first, then the original.
	English string
	// Doc explains how the rule reads the specification where it is
	// ambiguous, and any decision taken.
	Doc string
	// Applies lists the kinds the rule checks; nil means every document,
	// including documents whose kind is unknown.
	Applies []rs.Kind
	// Specs lists the spec versions the rule belongs to; nil means all.
	Specs []Spec
	// Input marks rules that check facts about the input (size,
	// well-formedness, schema) and run even when no document was parsed.
	Input bool
	// Scope says what of the document Check reads, and so whether it can
	// run while the document is read (see Scope).
	Scope Scope
	// Requires lists the values of each entry the rule reads (with
	// EntryValue.Of): computed once per entry for every rule that requires
	// them.
	Requires []Value
	// Check reports findings through the Pass. It returns an error only
	// when the rule itself could not run.
	Check func(*Pass) error
	// CheckGraph checks relations between documents of a crawl, once the
	// crawl is done: a graph.Check, which package rules/graph runs on the
	// crawl graph (the engine only tells such rules apart). A rule has
	// either Check or CheckGraph.
	CheckGraph GraphCheck
}

// GraphCheck is the check of a cross-document rule. Its one
// implementation is graph.Check (package rules/graph), which defines the
// graph the check reads; the engine never runs it.
type GraphCheck interface {
	// CrossDocument marks the check of a cross-document rule.
	CrossDocument()
}

// IsGraph reports whether the rule checks relations between documents
// (it runs in crawls only).
func (r *Rule) IsGraph() bool { return r.CheckGraph != nil }

// AppliesTo reports whether the rule checks documents of kind k under spec.
func (r *Rule) AppliesTo(k rs.Kind, spec Spec) bool {
	if len(r.Specs) > 0 && !slices.Contains(r.Specs, spec) {
		return false
	}
	if len(r.Applies) == 0 {
		return true
	}
	for _, a := range r.Applies {
		if a == k {
			return true
		}
	}
	return false
}

// Location is where a finding is: a URL or a file, and a line and column.
type Location struct {
	URL    string `json:"url,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// NewLocation makes a Location for a document name: URLs (with a scheme
// and host) go to URL, anything else to File.
func NewLocation(name string, pos rs.Pos) Location {
	l := Location{Line: pos.Line, Column: pos.Column}
	if IsURL(name) {
		l.URL = name
	} else {
		l.File = name
	}
	return l
}

// Name is the URL or file of the location.
func (l Location) Name() string {
	if l.URL != "" {
		return l.URL
	}
	return l.File
}

func (l Location) String() string {
	s := l.Name()
	if l.Line > 0 {
		s += fmt.Sprintf(":%d", l.Line)
		if l.Column > 0 {
			s += fmt.Sprintf(":%d", l.Column)
		}
	}
	return s
}

// IsURL reports whether s is an http(s) URL rather than a file name.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Diagnostic is one finding.
type Diagnostic struct {
	Rule     string     `json:"rule"`
	Severity Severity   `json:"severity"`
	Section  string     `json:"section"`
	Message  string     `json:"message"`
	Location Location   `json:"location"`
	Related  []Location `json:"related,omitempty"`
}

// Status of one document.
type Status string

const (
	StatusValid   Status = "valid"   // no error-level finding
	StatusInvalid Status = "invalid" // at least one error-level finding
	StatusError   Status = "error"   // could not be processed (unreadable, not XML, fetch failed)
	StatusSkipped Status = "skipped" // deliberately not processed
)

// Result is what rsconform says of one document.
type Result struct {
	Location    string
	Kind        rs.Kind
	Status      Status
	Diagnostics []Diagnostic
	// Omitted counts, by rule, the findings not kept in Diagnostics beyond
	// Config.MaxFindingsPerRule; Count counts them too.
	Omitted []Omitted
	// Applied lists the IDs of the rules that ran on the document, sorted.
	Applied []string
	// Error says why the document could not be processed (StatusError).
	Error string
	// Parent and Children are filled by the crawler: the document that led
	// to this one and the documents this one leads to.
	Parent   string
	Children []string
}

// Count returns the number of findings of each severity, those omitted
// (Result.Omitted) included.
func (r *Result) Count() (errors, warnings, infos int) {
	add := func(s Severity, n int) {
		switch s {
		case SeverityError:
			errors += n
		case SeverityWarning:
			warnings += n
		default:
			infos += n
		}
	}
	for _, d := range r.Diagnostics {
		add(d.Severity, 1)
	}
	for _, o := range r.Omitted {
		add(o.Severity, o.Count)
	}
	return
}

// Finish sorts the findings by position and the omitted counts by rule
// then severity, and sets the status from them, unless the status is already error or skipped.
func (r *Result) Finish() {
	sort.SliceStable(r.Diagnostics, func(i, j int) bool {
		a, b := r.Diagnostics[i].Location, r.Diagnostics[j].Location
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return r.Diagnostics[i].Rule < r.Diagnostics[j].Rule
	})
	sortOmitted(r.Omitted)
	sort.Strings(r.Applied)
	if r.Status == StatusError || r.Status == StatusSkipped {
		return
	}
	if e, _, _ := r.Count(); e > 0 {
		r.Status = StatusInvalid
	} else {
		r.Status = StatusValid
	}
}

// Limits are the community limits of section 7, as flags.
type Limits struct {
	MaxEntries int   // default 50,000
	MaxBytes   int64 // default 50 MB, uncompressed
}

// WithDefaults fills zero limits with the Sitemap protocol's.
func (l Limits) WithDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = rs.DefaultMaxEntries
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = rs.DefaultMaxBytes
	}
	return l
}

// Pass is what a rule's Check sees: one document and a way to report.
type Pass struct {
	Rule     *Rule
	Doc      *rs.Document
	Kind     rs.Kind
	Spec     Spec
	Limits   Limits
	Location string
	// Input holds the facts gathered before the rules ran (size, syntax,
	// schema findings). Doc is nil for Input rules when parsing failed.
	Input  *Input
	report func(Diagnostic)
	values *values // the values of the window being checked (streaming only)
	own    *values // the values the rule computed itself (see EntryValue.Of)
	at     int     // the index in its window of the entry Entries last yielded
	// required is the set of the IDs of the values the rule requires
	// (requiredSet).
	required uint64
	feed     *feed // the entries as they are read (ScopeEntries rules while streaming)
	// ctx is the run's: Entries on the whole model stops once it is done.
	ctx context.Context
}

// Reportf reports a finding of the pass's rule at pos.
func (p *Pass) Reportf(pos rs.Pos, format string, args ...any) {
	p.ReportRelated(pos, nil, format, args...)
}

// ReportRelated reports a finding at pos with related positions in the
// same document (for example the earlier entry an entry is out of order with).
func (p *Pass) ReportRelated(pos rs.Pos, related []rs.Pos, format string, args ...any) {
	d := Diagnostic{
		Rule:     p.Rule.ID,
		Severity: p.Rule.Level.Severity(),
		Section:  p.Rule.Section,
		Message:  fmt.Sprintf(format, args...),
		Location: NewLocation(p.Location, pos),
	}
	for _, r := range related {
		d.Related = append(d.Related, NewLocation(p.Location, r))
	}
	p.report(d)
}

// WellFormedID reports whether id is prefix, then one or more parts of
// upper-case ASCII letters and digits, each after a hyphen: RS-CL-ORDER
// for prefix RS (the regular expression ^RS-[A-Z0-9]+(-[A-Z0-9]+)*$, which
// took 40 µs and 5 KB to compile at the start of every command).
func WellFormedID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"-")
	if !ok {
		return false
	}
	for part := range strings.SplitSeq(rest, "-") {
		if part == "" {
			return false
		}
		for _, c := range []byte(part) {
			if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// Registry holds a catalogue of rules.
type Registry struct {
	rules []*Rule // ordered by ID: Rules is called for every document checked
	byID  map[string]*Rule
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byID: map[string]*Rule{}} }

// Add registers rules, refusing malformed or duplicate ones.
func (reg *Registry) Add(rules ...*Rule) error {
	for _, r := range rules {
		if err := CheckRule(r); err != nil {
			return err
		}
		if _, dup := reg.byID[r.ID]; dup {
			return fmt.Errorf("rule %s registered twice", r.ID)
		}
		reg.byID[r.ID] = r
		i, _ := slices.BinarySearchFunc(reg.rules, r.ID, func(r *Rule, id string) int { return strings.Compare(r.ID, id) })
		reg.rules = slices.Insert(reg.rules, i, r)
	}
	return nil
}

// CheckRule reports what is wrong with a rule value, if anything.
func CheckRule(r *Rule) error {
	switch {
	case r == nil:
		return fmt.Errorf("nil rule")
	case !WellFormedID(r.ID, "RS"):
		return fmt.Errorf("rule ID %q is malformed (want RS-AREA-NAME, upper case)", r.ID)
	case strings.TrimSpace(r.Title) == "":
		return fmt.Errorf("rule %s has no Title", r.ID)
	case strings.TrimSpace(r.Section) == "":
		return fmt.Errorf("rule %s has no Section", r.ID)
	case r.Level < Must || r.Level > Info:
		return fmt.Errorf("rule %s has no Level", r.ID)
	case r.Check == nil && r.CheckGraph == nil:
		return fmt.Errorf("rule %s has a nil Check", r.ID)
	case r.Check != nil && r.CheckGraph != nil:
		return fmt.Errorf("rule %s has both Check and CheckGraph", r.ID)
	}
	return nil
}

// Rules returns the registered rules ordered by ID.
func (reg *Registry) Rules() []*Rule { return slices.Clone(reg.rules) }

// Lookup finds a rule by ID.
func (reg *Registry) Lookup(id string) *Rule { return reg.byID[id] }

// catalogue is the registry of every rule of rsconform; the one piece of
// global state, filled by init functions.
var catalogue = NewRegistry()

// Register adds rules to the catalogue; the catalogue packages call it from
// their init functions. A malformed or duplicate rule is a programming
// error: it panics.
func Register(rules ...*Rule) {
	if err := catalogue.Add(rules...); err != nil {
		panic("rules: " + err.Error())
	}
}

// All returns the catalogue, ordered by ID: the rules registered by the
// packages linked in (import package rules for all of them).
func All() []*Rule { return catalogue.Rules() }

// Lookup finds a rule of the catalogue by ID.
func Lookup(id string) *Rule { return catalogue.Lookup(id) }
