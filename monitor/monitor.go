// Package monitor watches many ResourceSync Sources over time: each is
// crawled on its own schedule by the crawler, every run is recorded in a
// SQLite database (store.go) with its findings and full reports, the
// findings new and fixed since the Source's last complete run are worked
// out (a finding is the same finding across runs by its fingerprint, the
// one --baseline uses), new errors raise alerts (alert.go), and a
// dashboard shows it all (dashboard.go). The Sources it watches are read
// from a Sources file (sourcesfile.go).
//
// The package prints nothing; it reports through Config.Logf.
package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Source is one Source the monitor watches.
type Source struct {
	// Name identifies the Source in the database, the dashboard and
	// alerts: letters, digits, '.', '_' and '-'.
	Name string
	// URL is the crawl's entry point.
	URL string
	// Every is the time between two runs in service mode.
	Every time.Duration
	// Rate is the most requests per second to one host; the monitor
	// keeps it across every Source on that host (0: no limit).
	Rate float64
	// Spec is the specification profile, for the reports ("1.1").
	Spec string
	// Options are the crawl's options, Validator included; Rate and
	// Transport are the monitor's.
	Options crawler.Options
}

// Config configures a Monitor.
type Config struct {
	Sources []Source
	Store   *Store
	// Clock tells the time and waits (schedules, politeness, webhook
	// retries); nil is the wall clock.
	Clock sourcehttp.Clock
	// MaxCrawls caps the crawls running at once (default 4).
	MaxCrawls int
	// KeepReports is how many of each Source's last runs keep their full
	// reports (default 10); findings are kept for all runs.
	KeepReports int
	// Jitter is the fraction of a Source's period by which its runs are
	// spread at random (default 0.1), so that Sources with the same
	// period do not all start at once.
	Jitter float64
	// Grace is how long a run in progress may go on after a stop
	// (service mode) before it is cut and recorded as interrupted.
	Grace time.Duration
	// Alerts deliver regressions; nil sends none.
	Alerts *Alerter
	// Version is the tool's version, for the reports.
	Version string
	// Transport is the HTTP transport every crawl shares (default
	// sourcehttp.NewTransport); politeness is added on top.
	Transport http.RoundTripper
	// Logf, when set, hears what the monitor does.
	Logf func(format string, args ...any)
	// BaseURL is the dashboard's address, for permalinks in alerts.
	BaseURL string
}

// Monitor runs Sources and records their runs.
type Monitor struct {
	cfg    Config
	clock  sourcehttp.Clock
	hosts  *hostLimiter
	base   http.RoundTripper
	sem    chan struct{}
	mu     sync.Mutex
	active map[string]bool
}

// New returns a Monitor.
func New(cfg Config) (*Monitor, error) {
	if cfg.Store == nil {
		return nil, errors.New("monitor: no Store")
	}
	if cfg.Clock == nil {
		cfg.Clock = sourcehttp.RealClock{}
	}
	if cfg.MaxCrawls <= 0 {
		cfg.MaxCrawls = 4
	}
	if cfg.KeepReports <= 0 {
		cfg.KeepReports = 10
	}
	if cfg.Jitter <= 0 || cfg.Jitter > 1 {
		cfg.Jitter = 0.1
	}
	if cfg.Transport == nil {
		cfg.Transport = sourcehttp.NewTransport(cfg.MaxCrawls*4, 30*time.Second)
	}
	seen := map[string]bool{}
	for _, s := range cfg.Sources {
		if seen[s.Name] {
			return nil, fmt.Errorf("monitor: two Sources named %q", s.Name)
		}
		seen[s.Name] = true
		if s.Options.Validator == nil {
			return nil, fmt.Errorf("monitor: Source %q: no Validator", s.Name)
		}
	}
	m := &Monitor{
		cfg: cfg, clock: cfg.Clock, base: cfg.Transport,
		hosts:  newHostLimiter(cfg.Clock),
		sem:    make(chan struct{}, cfg.MaxCrawls),
		active: map[string]bool{},
	}
	for _, s := range cfg.Sources {
		if u, err := url.Parse(s.URL); err == nil {
			m.hosts.declare(u.Host, s.Rate)
		}
	}
	return m, nil
}

// Declare records the monitor's Sources in the store (Store.Declare).
func (m *Monitor) Declare(ctx context.Context) error {
	return m.cfg.Store.Declare(ctx, m.cfg.Sources)
}

func (m *Monitor) logf(format string, args ...any) {
	if m.cfg.Logf != nil {
		m.cfg.Logf(format, args...)
	}
}

// Result is the outcome of one run of one Source.
type Result struct {
	Source string
	Run    Run
	// Changes are the findings new since the Source's last complete run
	// and those fixed; none on its first complete run (FirstRun).
	Changes Regression
	// FirstRun is set on the Source's first complete run: its findings
	// are recorded as the baseline the later runs are compared with, and
	// none is new (nor alerted on).
	FirstRun bool
	// NewlyUnreachable is set when the entry point failed and the last
	// finished run had reached it. A Source unreachable from its first
	// run on is reported unreachable (Run.Status) but is not a new error.
	NewlyUnreachable bool
	// NeverReached is set when the entry point failed and no earlier run
	// of the Source was complete: there is nothing to watch yet.
	NeverReached bool
	// Err is set when the run could not be made or recorded.
	Err error
}

// Failing says whether the run has a new error: a new error finding, or
// an entry point that stopped working.
func (r *Result) Failing() bool { return r.Run.NewErrors > 0 || r.NewlyUnreachable }

// RunOnce runs every Source once, at most MaxCrawls at a time, and
// returns their results in the order of the Sources.
func (m *Monitor) RunOnce(ctx context.Context) []Result {
	out := make([]Result, len(m.cfg.Sources))
	var wg sync.WaitGroup
	for i := range m.cfg.Sources {
		select {
		case m.sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < len(m.cfg.Sources); j++ {
				out[j] = Result{Source: m.cfg.Sources[j].Name, Err: ctx.Err()}
			}
			wg.Wait()
			return out
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-m.sem }()
			out[i] = m.RunSource(ctx, &m.cfg.Sources[i])
		}()
	}
	wg.Wait()
	return out
}

// RunSource crawls src once and records the run: its start first (so
// that a monitor killed during the crawl leaves the run interrupted, not
// lost), then its outcome in one transaction.
func (m *Monitor) RunSource(ctx context.Context, src *Source) Result {
	res := Result{Source: src.Name}
	store := m.cfg.Store
	started := m.clock.Now()
	// Recorded even when a stop comes now: the crawl then records the
	// run as interrupted.
	id, err := store.StartRun(context.WithoutCancel(ctx), src.Name, src.URL, started)
	if err != nil {
		res.Err = fmt.Errorf("recording the start of the run: %w", err)
		return res
	}
	m.logf("%s: run %d started", src.Name, id)
	o := &Outcome{Run: Run{ID: id, Source: src.Name, URL: src.URL, Started: started}}
	report, kept, err := m.crawl(ctx, src)
	o.Run.Duration = m.clock.Now().Sub(started)
	switch {
	case err != nil:
		o.Run.Status, o.Run.Error = StatusFailed, err.Error()
		res.Err = err
	case ctx.Err() != nil:
		o.Run.Status, o.Run.Error = StatusInterrupted, "stopped before the end of the crawl; no verdict"
	case report.EntryError != nil:
		o.Run.Status, o.Run.Error = StatusUnreachable, report.EntryError.Error()
	default:
		o.Run.Status = StatusOK
	}
	if report != nil {
		o.Run.Requests = report.Stats.Requests
		o.Run.Documents = report.Stats.Documents
		o.Run.Resources = report.Stats.Resources
		o.Run.Bytes = report.Stats.Bytes
	}
	if report != nil && o.Run.Status != StatusInterrupted {
		if err := m.judge(ctx, src, o, report, kept); err != nil {
			o.Run.Status, o.Run.Error = StatusFailed, err.Error()
			res.Err = err
		}
	}
	if o.Run.Status == StatusUnreachable {
		last, reached, err := store.LastStatus(ctx, src.Name, id)
		if err != nil {
			res.Err = err
		}
		res.NewlyUnreachable = last == StatusOK
		res.NeverReached = err == nil && !reached
	}
	if err := store.FinishRun(ctx, o, m.cfg.KeepReports); err != nil {
		res.Err = errors.Join(res.Err, fmt.Errorf("recording the run: %w", err))
		return res
	}
	res.Run, res.Changes = o.Run, o.Changes
	res.FirstRun = o.Run.Status == StatusOK && o.Run.Baseline == 0
	m.logf("%s: run %d %s in %s: %d requests, %d errors, %d new, %d fixed", src.Name, id, o.Run.Status,
		o.Run.Duration.Round(time.Millisecond), o.Run.Requests, o.Run.Errors, o.Run.New, o.Run.Fixed)
	if o.Run.ReportNote != "" {
		m.logf("%s: run %d: its full report is not kept: %s", src.Name, id, o.Run.ReportNote)
	}
	if res.Failing() && m.cfg.Alerts != nil {
		m.cfg.Alerts.Send(ctx, m.regressionOf(&res, src))
	}
	return res
}

// crawl crawls src with the monitor's transport and politeness.
func (m *Monitor) crawl(ctx context.Context, src *Source) (*crawler.Report, *reporter.Sources, error) {
	opts := src.Options
	v := *opts.Validator
	// The html report quotes the lines of each finding; a smaller budget
	// than a single crawl's, as several run at once.
	kept := reporter.NewSources(8 << 20)
	v.Source = kept.Keep
	opts.Validator = &v
	opts.HTTP.Rate = 0 // the hosts' rates are kept across Sources, by the transport
	opts.HTTP.Transport = &politeTransport{next: m.base, hosts: m.hosts, rate: src.Rate}
	if opts.HTTP.Clock == nil {
		opts.HTTP.Clock = m.clock
	}
	report, err := crawler.Crawl(ctx, src.URL, opts)
	return report, kept, err
}

// judge fills o from a finished crawl: counts, findings, what changed
// since the baseline run, and the full reports.
func (m *Monitor) judge(ctx context.Context, src *Source, o *Outcome, report *crawler.Report, kept *reporter.Sources) error {
	var tally reporter.Tally
	// Each fingerprint's first finding says, for people, where it is and
	// what it says in full (a sampled finding's key has no URL); Count is
	// how many findings have the fingerprint, counted in the same walk.
	first := map[fingerprint.Key]*Finding{}
	for i := range report.Results {
		r := &report.Results[i]
		tally.Add(*r)
		for _, d := range r.Diagnostics {
			k := fingerprint.Of(r, d)
			f := first[k]
			if f == nil {
				f = &Finding{Key: k, Severity: string(d.Severity), Location: r.Location, Example: d.Message}
				first[k] = f
			}
			f.Count++
		}
	}
	sum := tally.Summary()
	o.Run.Errors, o.Run.Warnings, o.Run.Infos = sum.ErrorFindings, sum.Warnings, sum.Infos
	if report.Sampling != nil {
		o.Run.Resources = report.Sampling.Resources
	}
	o.Omitted = omittedOf(report.Results)
	for _, f := range first {
		o.Findings = append(o.Findings, *f)
	}
	sortFindings(o.Findings)
	title := fmt.Sprintf("%s, run %d (%s)", src.Name, o.Run.ID, o.Run.Started.UTC().Format(time.RFC3339))
	var err error
	if o.JSON, err = m.render(reporter.FormatJSON, src, report, nil, title); err != nil {
		return err
	}
	if o.HTML, err = m.render(reporter.FormatHTML, src, report, kept, title); err != nil {
		return err
	}
	if o.Run.Status != StatusOK {
		return nil
	}
	base, before, err := m.cfg.Store.Baseline(ctx, src.Name, o.Run.ID)
	if err != nil {
		return err
	}
	if base == 0 {
		// The first complete run: its findings are the baseline.
		return nil
	}
	o.Run.Baseline = base
	beforeOmitted, err := m.cfg.Store.OmittedOf(ctx, base)
	if err != nil {
		return err
	}
	o.Changes = diff(before, beforeOmitted, o.Findings, o.Omitted)
	for _, f := range o.Changes.New {
		o.Run.New += f.Count
		if f.Severity == string(engine.SeverityError) {
			o.Run.NewErrors += f.Count
		}
	}
	for _, f := range o.Changes.Fixed {
		o.Run.Fixed += f.Count
	}
	return nil
}

// omittedOf is what results counted but did not keep, by the document
// of the fingerprints and rule.
func omittedOf(results []engine.Result) []Omitted {
	type group struct{ doc, rule string }
	counts := map[group]int{}
	for i := range results {
		r := &results[i]
		for _, om := range r.Omitted {
			k := fingerprint.Of(r, engine.Diagnostic{Rule: om.Rule, Severity: om.Severity})
			counts[group{k.Document, k.Rule}] += om.Count
		}
	}
	out := make([]Omitted, 0, len(counts))
	for g, n := range counts {
		out = append(out, Omitted{Document: g.doc, Rule: g.rule, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Document != out[j].Document {
			return out[i].Document < out[j].Document
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// diff is what changed from before (the findings of the baseline run,
// and those it counted without keeping them) to now: a fingerprint
// counted more often now is new that many times, one counted less often
// fixed. A sampled finding's count says nothing (each crawl samples other
// resources, as --baseline knows): it is new when its fingerprint is,
// fixed when its fingerprint is gone.
//
// Where either run omitted findings of a rule in a document (beyond the
// cap on findings per rule), which of them are kept differs from run to
// run: a finding kept in one run may be among the omitted of the other.
// There the rule's findings in the document are new only as far as
// their total (kept and omitted) grew, and fixed only as far as it fell.
func diff(before map[fingerprint.Key]Finding, beforeOmitted []Omitted, now []Finding, nowOmitted []Omitted) Regression {
	r := diffKept(before, now)
	type group struct{ doc, rule string }
	delta := map[group]int{} // the total now minus the total before
	for _, om := range beforeOmitted {
		delta[group{om.Document, om.Rule}] -= om.Count
	}
	for _, om := range nowOmitted {
		delta[group{om.Document, om.Rule}] += om.Count
	}
	if len(delta) == 0 {
		return r
	}
	for _, f := range before {
		if g := (group{f.Document, f.Rule}); !f.Sampled {
			if _, capped := delta[g]; capped {
				delta[g] -= f.Count
			}
		}
	}
	for _, f := range now {
		if g := (group{f.Document, f.Rule}); !f.Sampled {
			if _, capped := delta[g]; capped {
				delta[g] += f.Count
			}
		}
	}
	// left[g] is how many more findings of g may still be called new
	// (fixed: -delta).
	trim := func(list []Finding, sign int) []Finding {
		left := map[group]int{}
		for g, d := range delta {
			left[g] = max(0, sign*d)
		}
		var out []Finding
		for _, f := range list {
			g := group{f.Document, f.Rule}
			if n, capped := left[g]; capped && !f.Sampled {
				if n == 0 {
					continue
				}
				f.Count = min(f.Count, n)
				left[g] = n - f.Count
			}
			out = append(out, f)
		}
		return out
	}
	r.New, r.Fixed = trim(r.New, 1), trim(r.Fixed, -1)
	return r
}

// diffKept is diff of the findings kept, finding by finding.
func diffKept(before map[fingerprint.Key]Finding, now []Finding) Regression {
	var r Regression
	seen := map[fingerprint.Key]bool{}
	for _, f := range now {
		seen[f.Key] = true
		b, had := before[f.Key]
		switch {
		case f.Sampled && !had:
			r.New = append(r.New, f)
		case f.Sampled:
		case f.Count > b.Count:
			f.Count -= b.Count
			r.New = append(r.New, f)
		case had && b.Count > f.Count:
			b.Count -= f.Count
			r.Fixed = append(r.Fixed, b)
		}
	}
	for k, f := range before {
		if !seen[k] {
			r.Fixed = append(r.Fixed, f)
		}
	}
	sortFindings(r.New)
	sortFindings(r.Fixed)
	return r
}

// render writes report in format.
func (m *Monitor) render(format string, src *Source, report *crawler.Report, kept *reporter.Sources, title string) ([]byte, error) {
	var buf bytes.Buffer
	o := reporter.Options{Tool: "rsconform", Version: m.cfg.Version, Spec: src.Spec, Sources: kept, Title: title}
	if report.EntryError != nil {
		o.Notes = append(o.Notes, "The entry point is unusable: "+report.EntryError.Error())
	}
	rep, err := reporter.New(format, &buf, o)
	if err != nil {
		return nil, err
	}
	for _, r := range report.Results {
		if err := rep.Write(r); err != nil {
			return nil, err
		}
	}
	if sr, ok := rep.(reporter.SamplingReporter); ok && report.Sampling != nil {
		sr.SetSampling(report.Sampling)
	}
	if err := rep.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// regressionOf is the alert of a failing run.
func (m *Monitor) regressionOf(res *Result, src *Source) *Alert {
	a := &Alert{
		Source: src.Name, URL: src.URL, Run: res.Run.ID, Started: res.Run.Started, Status: res.Run.Status,
		New: []Finding{}, Fixed: []Finding{},
	}
	if res.NewlyUnreachable {
		a.Unreachable = res.Run.Error
	}
	for _, f := range res.Changes.New {
		if f.Severity == string(engine.SeverityError) {
			a.New = append(a.New, f)
		}
	}
	a.Fixed = append(a.Fixed, res.Changes.Fixed...)
	if m.cfg.BaseURL != "" {
		a.Report = fmt.Sprintf("%s/runs/%d/report.html", m.cfg.BaseURL, res.Run.ID)
	}
	return a
}
