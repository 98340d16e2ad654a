package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/monitor"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
)

func init() {
	register("monitor", "watch many Sources over time: history, regressions, alerts, a dashboard", runMonitor)
}

const monitorUsage = `Usage: rsconform monitor --sources FILE [flags]

Crawls every Source of FILE on its own schedule (or once, with --once),
records each run in a SQLite database (--db): its start, duration, requests,
documents and resources checked, its findings and its full reports; works
out the findings new since the Source's last complete run and those fixed
(a finding is the same finding across runs by the fingerprint --baseline
uses: document, rule, message with its line numbers left out); alerts on
new errors, once per regression; and serves a dashboard (--addr).

FILE is YAML:

  sources:
    - name: demo                 # required: letters, digits, . _ -
      url: https://example.org/.well-known/resourcesync   # required
      every: 6h                  # time between runs (default 6h, at least 1m)
      sample: all                # resources per list, as crawl --sample (default 10)
      rate: 2                    # requests/s to one host, shared by the Sources
                                 # on that host (default 10; 0 no limit)
      header_file: token.txt     # as crawl --header-file (relative to FILE)
      allow_host: [cdn.example.org]   # as crawl --allow-host
      spec: "1.1"                # 1.1 or 1.0
      packages: true             # as crawl --packages
      revisit: 1m                # as crawl --revisit
      max_findings_per_rule: 100 # as --max-findings-per-rule (default: the flag's)

With --once every Source is crawled once and, per Source, what is new and
what was fixed is printed. A Source's first complete run records its
findings as the baseline: none is new, none is alerted on. A Source whose
entry point stops answering is a new error too; one unreachable from its
first run on is reported unreachable, not as a new error, and makes --once
exit 2 (nothing of it is watched).

Each document keeps its first --max-findings-per-rule findings of a rule
(as validate and crawl do) and counts the rest: where a run counted some
without keeping them, a rule's findings in that document are new only as
far as their total grew, and fixed only as far as it fell.

Service mode (no --once): each Source runs every 'every', spread by a
random jitter, at most --max-crawls at once; SIGTERM or Ctrl-C stops it:
the runs in progress get --grace to end, then are recorded as interrupted.
A monitor killed outright loses the run in progress only: the next start
marks it interrupted. Two monitors on one database are refused.

Alerts (a run with new errors, or an entry point that stopped answering;
not the runs that still have them): --alert-command runs CMD with sh -c,
the regression as JSON on its standard input; --webhook POSTs the same
JSON, retried on failure.

Dashboard (--addr): / the Sources with their status, last run and trend;
/sources/NAME the runs of one; /runs/ID/report.html a run's report (kept
for the last --keep-reports runs of each Source unless too large, which
the run then says; findings for all);
/badge/NAME.svg a badge; /api/sources and /api/sources/NAME/runs JSON.

Examples:
  rsconform monitor --sources sources.yaml --once            (cron, CI)
  rsconform monitor --sources sources.yaml --db /var/lib/rsconform/monitor.db \
      --addr 127.0.0.1:8090 \
      --alert-command 'mail -s "ResourceSync regression" ops@example.org'

Exit codes (--once): 0 no Source has a new error; 1 a Source has a new
error; 2 the monitor could not run (bad Sources file, database in use, a
Source that could not be crawled or recorded, interrupted).

Flags:
`

// monitorConfig is what 'rsconform monitor' was asked to do.
type monitorConfig struct {
	sources []monitor.Listed // read from --sources
	// monitor is the monitor's config, all but its Sources, Store,
	// Alerts, BaseURL and Logf, which run wires.
	monitor      monitor.Config
	db           string
	once         bool
	addr         string // the dashboard's; "" none
	alertCommand string
	webhook      string
	// maxFindingsPerRule is the Sources' cap on the findings of one rule
	// a document keeps, unless their entry sets max_findings_per_rule.
	maxFindingsPerRule int
}

// monitorConfigFromFlags reads monitor's flags and its Sources file.
func monitorConfigFromFlags(args []string, stderr io.Writer) (*monitorConfig, error) {
	c := &monitorConfig{monitor: monitor.Config{Version: toolVersion()}}
	m := &c.monitor
	fset := flag.NewFlagSet("monitor", flag.ContinueOnError)
	fset.SetOutput(stderr)
	sourcesFile := fset.String("sources", "", "the Sources to watch, YAML `FILE` (see above)")
	fset.StringVar(&c.db, "db", "monitor.db", "the history, a SQLite `FILE` (created when missing)")
	fset.BoolVar(&c.once, "once", false, "crawl every Source once, print what is new and fixed, and exit (0, 1 a new error, 2)")
	fset.StringVar(&c.addr, "addr", "", "serve the dashboard on `HOST:PORT` (service mode)")
	fset.StringVar(&c.alertCommand, "alert-command", "", "run `CMD` (sh -c) with each regression as JSON on its standard input")
	fset.StringVar(&c.webhook, "webhook", "", "POST each regression as JSON to `URL` (retried)")
	fset.IntVar(&m.MaxCrawls, "max-crawls", 4, "crawls running at once")
	fset.IntVar(&m.KeepReports, "keep-reports", 10, "full reports kept per Source (its last `N` runs); findings are kept for every run")
	maxFindingsPerRuleFlag(fset, &c.maxFindingsPerRule)
	fset.DurationVar(&m.Grace, "grace", 30*time.Second, "on SIGTERM, how long the runs in progress may go on before they are recorded as interrupted")
	args, err := parseCommandLine(fset, args, monitorUsage, seeHelp("rsconform monitor: see --help"))
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*monitorConfig, error) {
		return nil, fmt.Errorf("rsconform monitor: "+format, a...)
	}
	switch {
	case len(args) != 0:
		return fail("takes no arguments: the Sources are in --sources FILE (see --help)")
	case *sourcesFile == "":
		return fail("--sources FILE is required (see --help)")
	case m.MaxCrawls <= 0 || m.KeepReports <= 0 || m.Grace < 0 || c.maxFindingsPerRule < 0:
		return fail("--max-crawls and --keep-reports must be positive, --grace and --max-findings-per-rule not negative")
	case c.once && c.addr != "":
		return fail("--addr serves the dashboard of a monitor that keeps running: not with --once")
	}
	if c.webhook != "" {
		if c.webhook, err = monitor.ParseHTTPURL(c.webhook); err != nil {
			return fail("--webhook: %v", err)
		}
	}
	if c.sources, err = readSourcesFile(*sourcesFile); err != nil {
		return fail("%v", err)
	}
	return c, nil
}

func runMonitor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := monitorConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	return c.run(ctx, stdout, stderr)
}

// run wires what c asks for and runs the monitor (the tests set
// c.monitor.Clock, which the crawls' back-off waits on too).
func (c *monitorConfig) run(ctx context.Context, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rsconform monitor: "+format+"\n", a...)
		return 2
	}
	sv, err := frontend.New()
	if err != nil {
		return fail("the XML Schemas failed to load: %v", err)
	}
	cfg := c.monitor
	if cfg.Sources, err = monitorSources(c.sources, sv, c.maxFindingsPerRule); err != nil {
		return fail("%v", err)
	}
	if cfg.Store, err = monitor.Open(ctx, c.db); err != nil {
		return fail("%v", err)
	}
	defer cfg.Store.Close()
	if n := cfg.Store.Interrupted; n > 0 {
		fmt.Fprintf(stderr, "rsconform monitor: %s left in progress by a monitor that stopped: recorded as interrupted\n", words.Count(n, "run"))
	}
	logf := timestampedLog(stderr, "monitor")
	if c.alertCommand != "" || c.webhook != "" {
		cfg.Alerts = &monitor.Alerter{Command: c.alertCommand, Webhook: c.webhook, Retries: 3, Store: cfg.Store, Logf: logf}
	}
	var ln net.Listener
	if c.addr != "" {
		if ln, err = net.Listen("tcp", c.addr); err != nil {
			return fail("%v", err)
		}
		cfg.BaseURL = "http://" + ln.Addr().String()
	}
	if !c.once {
		cfg.Logf = logf
	}
	m, err := monitor.New(cfg)
	if err != nil {
		return fail("%v", err)
	}
	if c.once {
		return monitorOnce(ctx, m, stdout, stderr)
	}
	if err := m.Declare(ctx); err != nil {
		return fail("%s: %v", c.db, err)
	}
	if ln != nil {
		defer serveDashboard(ln, cfg.Store)()
		fmt.Fprintf(stderr, "rsconform monitor: the dashboard is at %s/\n", cfg.BaseURL)
	}
	fmt.Fprintf(stderr, "rsconform monitor: watching %d Source(s), history in %s (Ctrl-C or SIGTERM stops)\n", len(cfg.Sources), c.db)
	m.Serve(ctx, nil)
	fmt.Fprintln(stderr, "rsconform monitor: stopped")
	return 0
}

// monitorSources are the Sources of the Sources file with their crawl
// options, one Validator per spec version and cap on findings per rule
// (maxFindingsPerRule, unless the Source sets its own).
func monitorSources(listed []monitor.Listed, sv engine.FrontEnd, maxFindingsPerRule int) ([]monitor.Source, error) {
	type kind struct {
		spec string
		max  int
	}
	validators := map[kind]*engine.Validator{}
	var sources []monitor.Source
	for _, s := range listed {
		k := kind{s.Spec, maxFindingsPerRule}
		if s.MaxFindingsPerRule != nil {
			k.max = *s.MaxFindingsPerRule
		}
		v := validators[k]
		if v == nil {
			rf := reportFlags{spec: s.Spec, maxSize: rs.DefaultMaxBytes, maxEntries: rs.DefaultMaxEntries, format: "json",
				maxFindingsPerRule: k.max}
			cfg, err := rf.config()
			if err != nil {
				return nil, err
			}
			v = rf.validator(cfg, sv)
			validators[k] = v
		}
		opts := crawlOptions(s)
		opts.Validator = v
		sources = append(sources, monitor.Source{Name: s.Name, URL: s.URL, Every: s.Every, Rate: s.Rate, Spec: s.Spec, Options: opts})
	}
	return sources, nil
}

// serveDashboard serves the monitor's dashboard on ln; the function it
// returns shuts it down.
func serveDashboard(ln net.Listener, store *monitor.Store) (shutdown func()) {
	_, shutdown = startHTTPServer(ln, monitor.Dashboard(store, toolVersion()), 0, time.Minute, 5*time.Second)
	return shutdown
}

// timestampedLog is the log of a command that keeps running (monitor,
// serve): a line on w, with the time, from any goroutine.
func timestampedLog(w io.Writer, cmd string) func(format string, a ...any) {
	var mu sync.Mutex
	return func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s rsconform %s: %s\n", time.Now().UTC().Format(time.RFC3339), cmd, fmt.Sprintf(format, a...))
	}
}

// monitorOnce runs every Source once and prints, per Source, what is new
// and what was fixed.
func monitorOnce(ctx context.Context, m *monitor.Monitor, stdout, stderr io.Writer) int {
	code := 0
	for _, r := range m.RunOnce(ctx) {
		if r.Err != nil {
			fmt.Fprintf(stderr, "rsconform monitor: %s: %v\n", r.Source, r.Err)
			code = 2
			if r.Run.ID == 0 {
				continue
			}
		}
		run := r.Run
		status := words.Count(run.Errors, "error") + ", " + words.Count(run.Warnings, "warning")
		switch run.Status {
		case monitor.StatusUnreachable:
			status = "unreachable: " + run.Error
			if r.NeverReached {
				fmt.Fprintf(stderr, "rsconform monitor: %s: never reached: nothing is watched until a run reaches it\n", r.Source)
				code = 2
			}
		case monitor.StatusInterrupted:
			status = "interrupted"
			code = 2
		}
		if r.FirstRun {
			n := run.Errors + run.Warnings + run.Infos
			fmt.Fprintf(stdout, "%s: run %d (%s): first run: %s recorded as the baseline\n",
				r.Source, run.ID, status, words.Count(n, "finding"))
		} else {
			fmt.Fprintf(stdout, "%s: run %d (%s): new: %s, fixed: %s\n", r.Source, run.ID, status,
				describeFindings(r.Changes.New, r.NewlyUnreachable), describeFindings(r.Changes.Fixed, false))
		}
		if run.ReportNote != "" {
			fmt.Fprintf(stderr, "rsconform monitor: %s: run %d: its full report is not kept: %s\n", r.Source, run.ID, run.ReportNote)
		}
		if r.Failing() && code == 0 {
			code = 1
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "rsconform monitor: interrupted; the runs in progress are recorded as interrupted")
		return 2
	}
	return code
}

// describeFindings says what a list of findings holds, briefly: a count,
// and the first few rules and documents.
func describeFindings(fs []monitor.Finding, unreachable bool) string {
	n := 0
	for _, f := range fs {
		n += f.Count
	}
	var parts []string
	if unreachable {
		parts = append(parts, "the entry point is unusable")
	}
	for i, f := range fs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("+%d more", len(fs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s in %s", f.Rule, f.Severity, f.Location))
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, "; "))
}

// readSourcesFile reads the monitor's Sources file at path
// (monitor.ParseSourcesFile).
func readSourcesFile(path string) ([]monitor.Listed, error) {
	data, err := safefile.ReadFile(path, "Sources file", monitor.MaxSourcesFileBytes, false)
	if safefile.Refused(err) {
		return nil, err // they name the file
	}
	if err != nil {
		return nil, fmt.Errorf("--sources: %w", safefile.WithoutPath(err))
	}
	return monitor.ParseSourcesFile(path, data)
}

// crawlOptions are the crawl options of s, as crawl's flags would give
// them (its defaults for the rest).
func crawlOptions(s monitor.Listed) crawler.Options {
	return crawler.Options{
		MaxDocuments: defaultMaxDocuments, MaxBytes: defaultMaxBytes,
		Sample: s.Sample, SampleSet: true, Packages: s.Packages, Revisit: s.Revisit,
		AllowHosts: s.AllowHost,
		// The HTTP settings every command has (sourcehttp's defaults for
		// time-out, retries, concurrency); the rate is the monitor's own.
		HTTP: sourcehttp.Config{Header: s.Header.Header(), UserAgent: userAgent()},
	}
}
