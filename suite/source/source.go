// Package source is the Ginkgo conformance suite for ResourceSync Sources.
//
// It crawls a Source once (crawler.Crawl, with every rule of the
// catalogue), then presents one Describe per section of the specification
// and one It per rule: the It fails with the rule's findings (document,
// line, message), is skipped when nothing in the Source was subject to the
// rule, and passes otherwise. Labels: Section:12.1, Level:MUST,
// Kind:changelist, Scope:document|crawl.
//
// Run it with `go test ./suite/source -args -source URL` (or
// RSCONFORM_SOURCE=URL; without either, the suite checks rsconform's own
// mock Source), or `rsconform suite source URL`.
package source

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
	"github.com/rsconform/rsconform/suite"
)

// Config says what to crawl and how.
type Config struct {
	// Entry is the URL the crawl starts from.
	Entry string
	// Maps serve URL prefixes from local folders (crawl --map).
	Maps []sourcehttp.Map
	Spec engine.Spec
	// FrontEnd reads the documents (rules/frontend.New: libxml2); required.
	FrontEnd engine.FrontEnd
	// Sample is the number of resources checked per list (crawler.SampleAll, SampleNone).
	Sample    int
	SampleSet bool
	Packages  bool
	// HTTP and AllowHosts are crawler.Options': the HTTP settings (extra
	// request headers for the Source's origins, a token, included) and
	// the other origins to fetch from.
	HTTP       sourcehttp.Config
	AllowHosts []string
	// Setup, when set, runs before the crawl and may change the config
	// (the self-test starts the mock Source there).
	Setup func(*Config) error
	// FailLevel is the least severe finding that fails a spec (--fail-level):
	// empty means warning, so a MUST or SHOULD finding fails its spec and an
	// informative one (INFO) is shown but never fails by default.
	FailLevel engine.Severity
	// Outcome, when set, is a crawl already done: the suite does not crawl.
	Outcome *Outcome
}

// Outcome is the crawl the specs read.
type Outcome struct {
	Report *crawler.Report
	// findings by rule ID; applied says which rules ran on something.
	findings  map[string][]engine.Diagnostic
	applied   map[string]bool
	failLevel engine.Severity
}

// Crawl crawls the Source once with every rule of the catalogue.
func Crawl(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.Setup != nil {
		if err := cfg.Setup(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Entry == "" {
		return nil, fmt.Errorf("no Source: give a URL (-source, RSCONFORM_SOURCE or the command's argument)")
	}
	if cfg.FrontEnd == nil {
		return nil, fmt.Errorf("no XML front end (source.Config.FrontEnd)")
	}
	v := &engine.Validator{Config: engine.Config{Spec: cfg.Spec}, Schema: cfg.FrontEnd}
	opts := crawler.Options{Validator: v, Maps: cfg.Maps, Sample: cfg.Sample, SampleSet: cfg.SampleSet,
		Packages: cfg.Packages, HTTP: cfg.HTTP, AllowHosts: cfg.AllowHosts}
	rep, err := crawler.Crawl(ctx, cfg.Entry, opts)
	if err != nil {
		return nil, err
	}
	if rep.EntryError != nil {
		return nil, fmt.Errorf("the entry point %s could not be used: %v", cfg.Entry, rep.EntryError)
	}
	o := &Outcome{Report: rep, findings: map[string][]engine.Diagnostic{}, applied: map[string]bool{}, failLevel: cfg.FailLevel}
	for _, res := range rep.Results {
		for _, id := range res.Applied {
			o.applied[id] = true
		}
		for _, d := range res.Diagnostics {
			o.findings[d.Rule] = append(o.findings[d.Rule], d)
		}
	}
	return o, nil
}

// Verdict of one rule on a crawl.
type Verdict int

const (
	VerdictPass Verdict = iota
	VerdictFail
	VerdictSkip // nothing in the Source was subject to the rule
)

// Judge gives the verdict of a rule and, for Fail and Skip, the message;
// a Pass has one when the rule found something less severe than the fail
// level (Config.FailLevel), which is shown and does not fail.
func (o *Outcome) Judge(r *engine.Rule) (Verdict, string) {
	var failing, below []engine.Diagnostic
	for _, d := range o.findings[r.ID] {
		if fails(d.Severity, o.failLevel) {
			failing = append(failing, d)
		} else {
			below = append(below, d)
		}
	}
	switch {
	case len(failing) > 0:
		return VerdictFail, FormatFindings(r, failing)
	case len(below) > 0:
		return VerdictPass, FormatFindings(r, below) + fmt.Sprintf("(less severe than --fail-level %s: not failing)\n", failLevelOr(o.failLevel))
	case !o.applied[r.ID]:
		return VerdictSkip, fmt.Sprintf("nothing in this Source is subject to %s (no %s)", r.ID, kindsOf(r))
	}
	return VerdictPass, ""
}

// failLevelOr is the fail level, warning when unset.
func failLevelOr(l engine.Severity) engine.Severity {
	if l == "" {
		return engine.SeverityWarning
	}
	return l
}

// fails says whether a finding of severity sev fails a spec at level.
func fails(sev, level engine.Severity) bool {
	return sev.AtLeast(failLevelOr(level))
}

// FormatFindings says what the rule requires, where it does not hold and
// what was found, one finding a line.
func FormatFindings(r *engine.Rule, fs []engine.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s, %s]: %s\n", r.ID, r.Section, r.Level, r.Title)
	if r.Quote != "" {
		q := r.Quote
		if len(q) > 300 {
			q = q[:297] + "..."
		}
		fmt.Fprintf(&b, "required: %s\n", q)
	}
	fmt.Fprintf(&b, "%s:\n", words.Count(len(fs), "finding"))
	for i, d := range fs {
		if i == 50 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(fs)-50)
			break
		}
		fmt.Fprintf(&b, "  %s: %s: %s\n", d.Location, d.Severity, d.Message)
	}
	return b.String()
}

func kindsOf(r *engine.Rule) string {
	if len(r.Applies) == 0 {
		return "document"
	}
	var ks []string
	for _, k := range r.Applies {
		ks = append(ks, string(k))
	}
	if len(ks) > 4 {
		return strings.Join(ks[:4], ", ") + ", ..."
	}
	return strings.Join(ks, ", ")
}

// DefineSpecs registers the suite's specs in Ginkgo's global suite: a
// BeforeSuite that crawls, then one Describe per section and one It per
// rule. It returns an error when a label is not a known typed label or two
// specs would share a name. Call it before RunSpecs.
func DefineSpecs(cfg Config) error {
	type section struct {
		info  rules.SectionInfo
		rules []*engine.Rule
	}
	var sections []section
	seen := map[string]bool{}
	for _, s := range rules.Sections {
		sec := section{info: s}
		for _, r := range engine.All() {
			if r.Section == s.ID {
				sec.rules = append(sec.rules, r)
			}
		}
		if len(sec.rules) == 0 {
			continue
		}
		for _, r := range sec.rules {
			if err := suite.CheckLabels(suite.RuleLabels(r), nil); err != nil {
				return fmt.Errorf("%s: %w", r.ID, err)
			}
			name := specName(r)
			if seen[name] {
				return fmt.Errorf("two specs named %q", name)
			}
			seen[name] = true
		}
		sections = append(sections, sec)
	}

	var once sync.Once
	var outcome *Outcome
	var crawlErr error
	BeforeSuite(func(ctx SpecContext) {
		once.Do(func() {
			if cfg.Outcome != nil {
				outcome = cfg.Outcome
				return
			}
			outcome, crawlErr = Crawl(ctx, cfg)
		})
		if crawlErr != nil {
			Fail("the Source could not be crawled: " + crawlErr.Error())
		}
		for _, d := range outcome.Report.Discovered() {
			GinkgoWriter.Println("discovered", d)
		}
		for _, n := range outcome.Report.Notes {
			GinkgoWriter.Println("note:", n)
		}
		GinkgoWriter.Printf("crawled %d documents, %d resources, %d requests\n",
			outcome.Report.Stats.Documents, outcome.Report.Stats.Resources, outcome.Report.Stats.Requests)
	}, NodeTimeout(30*time.Minute))

	for _, sec := range sections {
		sec := sec
		Describe(fmt.Sprintf("Section %s %s", sec.info.ID, sec.info.Title), func() {
			for _, r := range sec.rules {
				r := r
				It(specName(r), suite.RuleLabels(r), func() {
					v, msg := outcome.Judge(r)
					switch v {
					case VerdictFail:
						Fail(msg)
					case VerdictSkip:
						Skip(msg)
					case VerdictPass:
						if msg != "" {
							AddReportEntry("findings", msg)
						}
					}
				})
			}
		})
	}
	return nil
}

func specName(r *engine.Rule) string { return r.ID + ": " + r.Title }
