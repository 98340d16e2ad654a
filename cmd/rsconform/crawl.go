package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

func init() {
	register("crawl", "crawl a live Source from any entry point", runCrawl)
}

const crawlUsage = `Usage: rsconform crawl [flags] URL

Walks a ResourceSync Source from any entry point and checks every document
it finds, then the relations between them (up and index links, what the
Capability List announces, index intervals, dumps and their packages).

The entry point may be:
  a site root        discovery by /.well-known/resourcesync, robots.txt
                     Sitemap directives, HTML <link rel="resourcesync"> and
                     HTTP Link: <...>; rel="resourcesync" (section 6.3)
  a Source Description, a Capability List, or any capability document
                     up links are followed to the top, then the walk goes down

Walk: Source Description > Capability Lists > capability documents > index
children > archives > dump packages (--packages) > resources (--sample).

A live Source changes while it is crawled: resources are fetched once every
document is, the open Change Lists are read once more after them, and each
resource is judged against the Source's own record of its changes. With
--revisit DURATION the crawl waits DURATION, then reads the lists, dumps and
closed documents again: a closed document must not have changed, an open
Change List must only have grown at its end, a Resource List's at must not
have gone back.

Long crawls (--state FILE): every completed fetch is recorded in FILE as it
completes (a document's bytes and HTTP facts; of a resource or package what
was measured, never its body). An answer of any status (a 404, a 500) is a
completed fetch; one that got no answer (connection refused or reset, a
time-out), or whose body was cut (the connection reset or closed, or the
time-out, before its end: not a body stopped at --max-size or --max-bytes),
is not: it is not recorded, and the next run makes it again.
Interrupted (Ctrl-C, SIGTERM, a kill, a crash), the same command run again
resumes: what FILE records is read from it, not fetched again (only requests
in flight at the interruption are made again, and, should FILE reach its
bound, what it did not record then: the crawl says so and goes on), and the
report is the one an uninterrupted crawl gives. Run again after the crawl
finished, it reports from FILE and fetches nothing (all of it recorded).
FILE remembers the entry point and the options that decide what is fetched
(--sample, --packages, --max-*, --allow-host, --map, --revisit, --spec): a
run with others is refused (exit 2), and so is a damaged FILE or one another
crawl is using; --rate, --concurrency, --timeout, --retries and the report
flags may change.

Examples:
  rsconform crawl https://example.com/
  rsconform crawl --packages --sample all https://example.com/dataset1/capabilitylist.xml
  rsconform crawl --format json -o crawl.json --max-documents 200 \
      https://example.com/.well-known/resourcesync
  rsconform crawl --map https://example.com/=build/site https://example.com/  # a build, no server
  rsconform crawl --allow-host cdn.example.com --rate 2 --timeout 10s https://example.com/
  rsconform crawl --header-file token.txt https://example.com/  # a Source behind a token
  rsconform crawl --sample all --revisit 1m https://example.com/  # observe it over a minute
  rsconform crawl --sample all --rate 2 --state crawl.state https://example.com/
      # interrupted (Ctrl-C), the same command again resumes

Origins: the crawl fetches from the entry point's origin (scheme, host and
port; an http entry point also from its https upgrade). --allow-host HOST
adds HOST on its default ports (80, 443), --allow-host HOST:PORT that port
only, so a Source cannot lead the crawl to another port of its own host.
--header values go to the entry origin and the origins named with
--allow-host only (not to '*'), redirects included, and are never printed.

Exit codes: 0 no failing finding; 1 failing findings (errors, or warnings with
--strict); 2 the entry point is unreachable or leads to no ResourceSync
document, bad usage, or the crawl was interrupted (Ctrl-C: what was fetched
is reported, with no verdict). Documents further down that cannot be fetched
are reported with status error.

Flags:
`

// multiValue collects a repeatable flag; commas separate values too.
type multiValue []string

func (m *multiValue) String() string { return strings.Join(*m, ",") }
func (m *multiValue) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*m = append(*m, s)
		}
	}
	return nil
}

// crawlConfig is what 'rsconform crawl' was asked to do.
type crawlConfig struct {
	report reportFlags // settled: the configuration file applied
	engine engine.Config
	// options are the crawl's, all but the Validator and Progress, which
	// runCrawl wires.
	options  crawler.Options
	entry    string // the entry point; with --mock, set when the mock starts
	mock     bool
	scenario string // the mock's
	progress string // --progress: auto, always or never
}

// crawl's bounds by default; the monitor's Sources get the same.
const (
	defaultMaxDocuments       = 1000
	defaultMaxBytes     int64 = 1 << 30
)

// crawlConfigFromFlags reads crawl's flags and the configuration file.
func crawlConfigFromFlags(args []string, stderr io.Writer) (*crawlConfig, error) {
	c := &crawlConfig{}
	opts := &c.options
	fset := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fset.SetOutput(stderr)
	c.report.register(fset)
	var hf httpFlags
	hf.register(fset)
	var maps mapValue
	fset.IntVar(&opts.MaxDocuments, "max-documents", defaultMaxDocuments, "fetch at most `N` ResourceSync documents")
	fset.Int64Var(&opts.MaxBytes, "max-bytes", defaultMaxBytes, "download at most `BYTES` in all")
	fset.DurationVar(&opts.Revisit, "revisit", 0, "read the lists, dumps and closed documents again after `DURATION` and check how they changed (0: no)")
	sample := fset.String("sample", "10", "resources fetched per Resource List or open Change List to check length, hash, type, lastmod: `N`, all or 0")
	fset.BoolVar(&opts.Packages, "packages", false, "download dump packages (ZIP) and check them against their manifests")
	registerPackageLimits(fset, &opts.PackageLimits)
	fset.Var(&maps, "map", "serve the URLs under `URL=DIR` from a local folder (repeatable; the longest URL prefix of the URL's origin wins)")
	fset.StringVar(&opts.State, "state", "", "record each fetch in `FILE` and resume from it: the same command run again after an "+
		"interruption fetches again only what FILE did not record (in flight, unanswered (refused, a time-out) "+
		"or with its body cut short, or past its bound: see README)")
	fset.StringVar(&c.progress, "progress", "auto", "progress on standard error: auto (when it is a terminal), always, never")
	fset.BoolVar(&c.mock, "mock", false, "crawl rsconform's own mock Source, started in-process on 127.0.0.1 (no URL needed)")
	fset.StringVar(&c.scenario, "scenario", "showcase", "with --mock: the scenario `NAME|FILE` to play to its end before the crawl (see 'rsconform mock --list')")
	args, err := parseCommandLine(fset, args, crawlUsage, seeHelp("rsconform crawl: see --help"))
	if err != nil {
		return nil, err
	}
	switch {
	case c.mock && opts.State != "":
		return nil, errors.New("rsconform crawl: --state resumes the crawl of one Source, and --mock starts a new one on another port each run: run 'rsconform mock' and crawl its URL")
	case c.mock && len(args) != 0:
		return nil, errors.New("rsconform crawl: --mock crawls the mock Source: give no URL")
	case !c.mock && len(args) != 1:
		return nil, errors.New("rsconform crawl: give one entry point URL, or --mock (see --help)")
	case !c.mock:
		c.entry = args[0]
	case !flagSet(fset, "rate"):
		// The politeness rate is for real Sources; the mock Source runs
		// in this process.
		hf.cfg.Rate = 0
	}
	if err := c.build(fset, &hf, maps, *sample); err != nil {
		return nil, usageError("crawl", err)
	}
	return c, nil
}

// build applies the configuration file and builds the engine's and the
// crawl's settings from the flags.
func (c *crawlConfig) build(fset *flag.FlagSet, hf *httpFlags, maps mapValue, sample string) error {
	opts := &c.options
	err := c.report.settle(fset)
	if err == nil {
		c.engine, err = c.report.config()
	}
	if err == nil {
		opts.Sample, err = crawler.ParseSample(sample)
		if err != nil {
			err = fmt.Errorf("--sample %w", err)
		}
		opts.SampleSet = true
	}
	if err == nil {
		opts.HTTP, err = hf.config()
		opts.AllowHosts, opts.Maps = hf.hosts, maps
	}
	if err == nil && (opts.MaxDocuments <= 0 || opts.MaxBytes <= 0 || opts.Revisit < 0) {
		err = errors.New("--max-documents and --max-bytes must be positive, --revisit not negative")
	}
	return err
}

func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := crawlConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	if c.mock {
		stop, err := c.startMockSource(ctx, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "rsconform crawl --mock:", err)
			return 2
		}
		defer stop()
	}
	sv, err := frontend.New()
	if err != nil {
		fmt.Fprintln(stderr, "rsconform crawl: the XML Schemas failed to load:", err)
		return 2
	}
	if err := c.report.prepareBaseline(&c.engine); err != nil {
		fmt.Fprintln(stderr, "rsconform crawl:", err)
		return 2
	}
	c.options.Validator = c.report.validator(c.engine, sv)
	rep, tally, closeReport, err := c.report.openReport(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform crawl:", err)
		return 2
	}
	report, err := c.crawl(ctx, stderr)
	if err == nil {
		err = c.report.applyBaseline(report.Results, stderr, "crawl")
	}
	if err != nil {
		closeReport()
		fmt.Fprintln(stderr, "rsconform crawl:", err)
		return 2
	}
	err = writeResults(rep, tally, report.Results)
	if sr, ok := rep.(reporter.SamplingReporter); ok && err == nil && report.Sampling != nil {
		sr.SetSampling(report.Sampling)
	}
	if err == nil {
		err = closeReport()
	}
	if err != nil {
		fmt.Fprintln(stderr, "rsconform crawl: writing the report:", err)
		return 2
	}
	return c.outcome(ctx, report, tally.Summary(), stderr)
}

// startMockSource starts the mock Source the crawl is to crawl, and
// says what limits the crawl's requests to it: from the options the crawl
// is given, so that it shows (and is tested) without timing it.
func (c *crawlConfig) startMockSource(ctx context.Context, stderr io.Writer) (stop func(), err error) {
	c.entry, stop, err = startMock(ctx, c.scenario)
	if err != nil {
		return nil, err
	}
	limit := "not rate-limited (--rate N limits them)"
	if rate := c.options.HTTP.Rate; rate > 0 {
		limit = fmt.Sprintf("at most %g requests/s (--rate)", rate)
	}
	fmt.Fprintf(stderr, "rsconform crawl: mock Source (scenario %s, played to its end) at %s, requests %s\n", c.scenario, c.entry, limit)
	return stop, nil
}

// crawl crawls the entry point, with a progress bar on stderr when asked
// for.
func (c *crawlConfig) crawl(ctx context.Context, stderr io.Writer) (*crawler.Report, error) {
	opts := c.options
	if showProgress(c.progress, stderr) {
		bar := newCrawlBar(stderr)
		defer bar.Finish()
		width := terminalWidth(stderr)
		opts.Progress = func(s crawler.Stats) {
			bar.Describe(progressLine(s, width))
			bar.Set64(s.Bytes)
		}
	}
	return crawler.Crawl(ctx, c.entry, opts)
}

// outcome says on stderr what the report does not (notes, rules that
// could not run, the state file, an interruption, an unusable entry point,
// what discovery found), and returns the exit code.
func (c *crawlConfig) outcome(ctx context.Context, report *crawler.Report, s reporter.Summary, stderr io.Writer) int {
	for _, n := range report.Notes {
		fmt.Fprintln(stderr, "rsconform crawl: note:", n)
	}
	for id, err := range report.GraphErrors {
		fmt.Fprintf(stderr, "rsconform crawl: rule %s could not run: %v\n", id, err)
	}
	if st := report.State; st != nil {
		stateOutcome(st, stderr)
	}
	if ctx.Err() != nil {
		// Documents left unfetched are not findings: what was fetched is
		// reported, but a pass would rest on part of the Source.
		if st := report.State; st != nil {
			fmt.Fprintf(stderr, "rsconform crawl: interrupted; %s records %d fetches of this run: run the same command again to resume\n", st.File, st.Recorded)
		} else {
			fmt.Fprintln(stderr, "rsconform crawl: interrupted: the report covers what was fetched before; no verdict")
		}
		return reporter.ExitNoVerdict
	}
	if report.EntryError != nil {
		fmt.Fprintln(stderr, "rsconform crawl: the entry point is unusable:", report.EntryError)
		return reporter.ExitNoVerdict
	}
	if found := report.Discovered(); len(found) > 0 && (c.report.verbose || isTerminal(stderr)) {
		fmt.Fprintf(stderr, "discovery: %s\n", strings.Join(found, "; "))
	}
	// Documents that could not be fetched are in the report; only the
	// entry point decides exit code 2. A package that could not be
	// checked (a ZIP bomb, not a ZIP file) fails the crawl, as a document
	// that is not well-formed does.
	s.Errors = 0
	code := c.report.exitCode(s)
	if n := len(report.UncheckedPackages); n > 0 {
		fmt.Fprintf(stderr, "rsconform crawl: %s could not be checked, e.g. %s (see the report)\n", words.Count(n, "package"), report.UncheckedPackages[0])
		code = max(code, reporter.ExitFailures)
	}
	return code
}

// stateOutcome says what the crawl did with its state file: what it
// resumed from, and whether it could not be written (a complete crawl
// keeps its verdict).
func stateOutcome(st *crawler.StateInfo, stderr io.Writer) {
	if st.Resumed {
		how := ""
		if st.Dropped {
			how = " (its last line, cut by an interrupted write, was dropped)"
		}
		fmt.Fprintf(stderr, "rsconform crawl: resumed from %s%s: %s read from it, %d made now\n", st.File, how, words.Count(st.Replayed, "fetch"), st.Recorded+st.Incomplete)
	}
	if st.Incomplete > 0 {
		them := "them"
		if st.Incomplete == 1 {
			them = "it"
		}
		fmt.Fprintf(stderr, "rsconform crawl: %s did not complete (no answer, or a body cut short: a transport failure): "+
			"%s does not record %s, the same command run again makes %s again\n", words.Count(st.Incomplete, "fetch"), st.File, them, them)
	}
	if st.Err != nil {
		fmt.Fprintf(stderr, "rsconform crawl: the state file %s may be incomplete: %v\n", st.File, st.Err)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func showProgress(mode string, stderr io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return isTerminal(stderr)
}

// flagSet reports whether flag name was given on the command line.
func flagSet(fset *flag.FlagSet, name string) bool {
	set := false
	fset.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// terminalWidth is the width of w when it is a terminal, else 80.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// progressBarRoom is what the bar's spinner, bytes and rate take after
// the description ("| 1.2 MB (300 kB/s) [2s]").
const progressBarRoom = 34

// progressLine describes a crawl in progress: its phase, then its counts,
// cut to fit one line of a terminal width columns wide (a longer line
// wraps, and the bar's redraws then leave stale lines behind).
func progressLine(s crawler.Stats, width int) string {
	phase := "reading documents"
	switch {
	case s.Refetched > 0:
		phase = "re-reading open Change Lists"
	case s.Resources > 0:
		phase = "sampling resources"
	case s.Packages > 0:
		phase = "checking packages"
	}
	line := fmt.Sprintf("%s: %d documents, %d entries, %d resources, %d packages, %d findings", phase, s.Documents, s.Entries, s.Resources, s.Packages, s.Findings)
	room := max(width-progressBarRoom, 10)
	if r := []rune(line); len(r) > room {
		line = string(r[:room-1]) + "…"
	}
	return line
}

func newCrawlBar(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetDescription("crawling"),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		// Rendered once before the bar's own spinner goroutine starts:
		// the library sets its start time, unguarded, on the first render,
		// which would race with that goroutine (go test -race saw it).
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionSetWidth(20),
	)
}
