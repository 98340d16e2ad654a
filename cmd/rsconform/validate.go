package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/rsconform/rsconform/internal/baseline"
	"github.com/rsconform/rsconform/internal/inputs"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/reporter"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
)

// reportFlags are the flags every checking command shares.
type reportFlags struct {
	spec       string
	format     string
	output     string
	strict     bool
	rules      string
	color      string
	maxSize    int64
	maxEntries int
	verbose    bool
	failLevel  string
	quiet      bool
	baseline   string
	configPath string
	noColor    bool
	// maxFindingsPerRule bounds the findings of one rule a document's
	// result keeps (engine.Config.MaxFindingsPerRule).
	maxFindingsPerRule int
	// known is the baseline read by prepareBaseline; writeBaseline is set
	// when its file is yet to be written (applyBaseline writes it).
	known         baseline.Set
	writeBaseline bool
	// sources keeps the documents' text for the html format's excerpts.
	sources *reporter.Sources
}

func (f *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.spec, "spec", "1.1", "spec version to check against: 1.1 or 1.0")
	fs.StringVar(&f.format, "format", "text", "report format: "+strings.Join(reporter.Formats(), ", "))
	fs.StringVar(&f.output, "o", "", "write the report to `FILE` instead of standard output")
	fs.BoolVar(&f.strict, "strict", false, "warnings (SHOULD) fail too: exit code 1")
	fs.StringVar(&f.rules, "rules", "", "select rules by ID `GLOBS`, e.g. 'RS-CL-*,-RS-CL-ORDER' (see 'rsconform rules')")
	fs.StringVar(&f.color, "color", "auto", "text colour: auto (terminal and no NO_COLOR), always, never")
	fs.Int64Var(&f.maxSize, "max-size", rs.DefaultMaxBytes, "size limit of one uncompressed document in `BYTES` (section 7: 50 MB)")
	fs.IntVar(&f.maxEntries, "max-entries", rs.DefaultMaxEntries, "entries limit of one document (section 7: 50,000)")
	fs.BoolVar(&f.verbose, "v", false, "verbose text report: list the rules applied to each document")
	fs.StringVar(&f.failLevel, "fail-level", "error", "least severe finding that fails (exit 1): error, warning (as --strict) or info")
	fs.BoolVar(&f.quiet, "quiet", false, "text report: print only documents with findings (and the summary)")
	fs.StringVar(&f.baseline, "baseline", "", "known findings in `FILE`: report and fail on new findings only; a missing FILE is written with the current findings")
	fs.StringVar(&f.configPath, "config", "", "configuration `FILE` (default: "+configFileName+" in the working directory or above)")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour (same as --color never)")
	maxFindingsPerRuleFlag(fs, &f.maxFindingsPerRule)
}

// maxFindingsPerRuleFlag registers --max-findings-per-rule, the engine's
// cap (engine.Config.MaxFindingsPerRule), for validate, crawl, serve and
// monitor.
func maxFindingsPerRuleFlag(fs *flag.FlagSet, p *int) {
	fs.IntVar(p, "max-findings-per-rule", engine.DefaultMaxFindingsPerRule,
		"findings of one rule kept per document; the rest are counted (0: keep all)")
}

// settle applies the configuration file to the flags the command line
// did not set, then checks the settings that are not the engine's.
func (f *reportFlags) settle(fset *flag.FlagSet) error {
	path, err := findConfig(f.configPath)
	if err != nil {
		return err
	}
	if path != "" {
		if err := applyConfig(fset, path); err != nil {
			return err
		}
	}
	if f.noColor {
		f.color = reporter.ColorNever
	}
	if err := checkFailLevel(f.failLevel); err != nil {
		return err
	}
	if f.failLevel != "error" {
		// Reporters that mark failures (JUnit) and the summary treat
		// warnings as failing, as under --strict.
		f.strict = true
	}
	if f.strict && f.failLevel == "error" {
		f.failLevel = "warning"
	}
	return nil
}

// checkFailLevel refuses a --fail-level other than error, warning or info.
func checkFailLevel(level string) error {
	switch level {
	case "error", "warning", "info":
		return nil
	}
	return fmt.Errorf("--fail-level %q: want error, warning or info%s", level, suggest.DidYouMean(level, []string{"error", "warning", "info"}))
}

// exitCode is the exit code for a run summarised by s, at --fail-level.
func (f *reportFlags) exitCode(s reporter.Summary) int {
	return reporter.ExitCodeAt(s, engine.Severity(f.failLevel))
}

// applyBaseline removes the findings the baseline prepareBaseline read
// knows from results, or writes the baseline when its file did not exist
// (its findings are then all known); it says what it did on stderr.
func (f *reportFlags) applyBaseline(results []engine.Result, stderr io.Writer, cmd string) error {
	if f.baseline == "" {
		return nil
	}
	known := f.known
	if f.writeBaseline {
		var n int
		var err error
		if known, n, err = baseline.Write(f.baseline, results); err != nil {
			return fmt.Errorf("writing the baseline: %w", err)
		}
		fmt.Fprintf(stderr, "rsconform %s: wrote %s to the baseline %s; later runs report and fail on new findings only\n", cmd, words.Count(n, "finding"), f.baseline)
	}
	if n := known.Filter(results); n > 0 {
		fmt.Fprintf(stderr, "rsconform %s: %d known %s of the baseline %s not reported\n", cmd, n, words.Noun(n, "finding"), f.baseline)
	}
	return nil
}

// config turns the flags into an engine configuration.
func (f *reportFlags) config() (engine.Config, error) {
	spec, err := engine.ParseSpec(f.spec)
	if err != nil {
		return engine.Config{}, err
	}
	sel, err := engine.ParseSelector(f.rules)
	if err != nil {
		return engine.Config{}, err
	}
	if f.maxSize <= 0 || f.maxEntries <= 0 {
		return engine.Config{}, errors.New("--max-size and --max-entries must be positive")
	}
	if f.maxFindingsPerRule < 0 {
		return engine.Config{}, errors.New("--max-findings-per-rule must not be negative (0 lists all)")
	}
	return engine.Config{Spec: spec, Select: sel, Limits: engine.Limits{MaxBytes: f.maxSize, MaxEntries: f.maxEntries},
		MaxFindingsPerRule: f.maxFindingsPerRule}, nil
}

// prepareBaseline reads the baseline, if any, before the documents are
// checked (the one read of it), and makes cfg fit it: the findings it
// knows are kept whatever --max-findings-per-rule says (applyBaseline
// removes them afterwards; the findings beyond the cap are then new ones,
// counted), and a baseline yet to be written keeps every finding, so that
// it lists them all.
func (f *reportFlags) prepareBaseline(cfg *engine.Config) error {
	if f.baseline == "" {
		return nil
	}
	known, err := baseline.Read(f.baseline)
	if errors.Is(err, fs.ErrNotExist) {
		f.writeBaseline = true
		cfg.MaxFindingsPerRule = 0
		return nil
	}
	if err != nil {
		return err
	}
	f.known = known
	cfg.Keep = known.Keeps()
	return nil
}

// validator is the Validator of a run; with --format html it keeps the
// documents' text for the report's excerpts.
func (f *reportFlags) validator(cfg engine.Config, sv engine.FrontEnd) *engine.Validator {
	v := &engine.Validator{Config: cfg, Schema: sv}
	if f.format == reporter.FormatHTML {
		f.sources = reporter.NewSources(reporter.DefaultSourcesBudget)
		v.Source = f.sources.Keep
	}
	return v
}

// openReport opens the output and the reporter; close flushes both.
func (f *reportFlags) openReport(stdout io.Writer) (rep reporter.Reporter, tally *reporter.Tally, close func() error, err error) {
	w := stdout
	var file *os.File
	if f.output != "" && f.output != "-" {
		file, err = os.Create(f.output)
		if err != nil {
			return nil, nil, nil, err
		}
		w = file
	}
	rep, err = reporter.New(f.format, w, reporter.Options{Tool: "rsconform", Version: toolVersion(), Spec: f.spec, Strict: f.strict, FailLevel: engine.Severity(f.failLevel), Color: f.color, Verbose: f.verbose, Quiet: f.quiet, SourceRoot: sourceRoot(), Sources: f.sources})
	if err != nil {
		if file != nil {
			file.Close()
		}
		return nil, nil, nil, err
	}
	tally = &reporter.Tally{}
	close = func() error {
		err := rep.Flush()
		if file != nil {
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}
	return rep, tally, close, nil
}

const validateUsage = `Usage: rsconform validate [flags] PATH|URL|- ...

Checks ResourceSync documents against the XML Schemas and every rule of the
catalogue. A directory means every *.xml and *.xml.gz below it and any
.well-known/resourcesync, less --exclude; there, documents that are not
ResourceSync at all (plain Sitemaps, RSS feeds, other XML) are reported as
skipped with the reason. A file named on the command line is always judged.
- reads standard input; gzip is read transparently.

Examples:
  rsconform validate resourcelist.xml
  rsconform validate --format json -o report.json build/resourcesync/
  rsconform validate --exclude 'drafts' --exclude 'news/*.xml' build/site
  rsconform validate --strict --rules 'RS-CL-*' https://example.com/changelist.xml
  curl -s https://example.com/capabilitylist.xml | rsconform validate -

Exit codes: 0 no failing finding; 1 failing findings (errors, or warnings with
--strict); 2 rsconform could not do its job (usage, unreadable input).

Flags:
`

// validateConfig is what 'rsconform validate' was asked to do.
type validateConfig struct {
	report reportFlags // settled: the configuration file applied
	engine engine.Config
	inputs []inputs.Input     // the documents: directories walked, less --exclude
	client *sourcehttp.Client // for the inputs that are URLs (nil when none is)
}

// validateConfigFromFlags reads validate's flags and the configuration
// file, and lists the documents to check.
func validateConfigFromFlags(args []string, stderr io.Writer) (*validateConfig, error) {
	c := &validateConfig{}
	fset := flag.NewFlagSet("validate", flag.ContinueOnError)
	fset.SetOutput(stderr)
	c.report.register(fset)
	var exclude multiFlag
	fset.Var(&exclude, "exclude", "in directories, skip files and folders matching `GLOB` (repeatable): a name (feed.xml, drafts, *.rss.xml) or a path under the directory (news/*.xml)")
	var hf httpFlags
	hf.register(fset)
	args, err := parseCommandLine(fset, args, validateUsage, seeHelp("see 'rsconform validate --help'"))
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New("rsconform validate: no PATH, URL or - given (see --help)")
	}
	err = c.report.settle(fset)
	if err == nil {
		c.engine, err = c.report.config()
	}
	if err == nil {
		err = inputs.CheckGlobs(exclude)
	}
	if err == nil {
		c.inputs, err = inputs.Expand(args, exclude)
	}
	if err == nil {
		c.client, err = validateClient(c.inputs, &hf)
	}
	if err != nil {
		return nil, usageError("validate", err)
	}
	return c, nil
}

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := validateConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	sv, err := frontend.New()
	if err != nil {
		fmt.Fprintln(stderr, "rsconform validate: the XML Schemas failed to load:", err)
		return 2
	}
	if err := c.report.prepareBaseline(&c.engine); err != nil {
		fmt.Fprintln(stderr, "rsconform validate:", err)
		return 2
	}
	v := c.report.validator(c.engine, sv) // before openReport: html keeps the sources
	rep, tally, closeReport, err := c.report.openReport(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform validate:", err)
		return 2
	}
	results := inputs.ValidateAll(ctx, v, c.client, c.inputs, readerProcs())
	if err := c.report.applyBaseline(results, stderr, "validate"); err != nil {
		fmt.Fprintln(stderr, "rsconform validate:", err)
		return 2
	}
	err = writeResults(rep, tally, results)
	if err == nil {
		err = closeReport()
	}
	if err != nil {
		fmt.Fprintln(stderr, "rsconform validate: writing the report:", err)
		return 2
	}
	sum := tally.Summary()
	if sum.Unread > 0 {
		// A document that could not be read at all leaves the verdict
		// incomplete, whatever the others say (exit-code table: 2).
		return reporter.ExitNoVerdict
	}
	return c.report.exitCode(sum)
}

// writeResults counts the results in tally and writes them to rep.
func writeResults(rep reporter.Reporter, tally *reporter.Tally, results []engine.Result) error {
	for _, res := range results {
		tally.Add(res)
		if err := rep.Write(res); err != nil {
			return err
		}
	}
	return nil
}

// validateClient is the Source client of a validate run: each URL given
// is an entry point, so its origin is allowed and gets the --header values;
// a redirect elsewhere needs --allow-host.
func validateClient(docs []inputs.Input, hf *httpFlags) (*sourcehttp.Client, error) {
	cfg, err := hf.config()
	if err != nil {
		return nil, err
	}
	var entry *url.URL
	allow := append([]string(nil), hf.hosts...)
	for _, in := range docs {
		if !engine.IsURL(in.Name) {
			continue
		}
		u, err := url.Parse(in.Name)
		if err != nil {
			continue // reported with the document
		}
		if entry == nil {
			entry = u
		}
		allow = append(allow, sourcehttp.OriginOf(u).HostPort())
	}
	if entry == nil {
		return nil, nil
	}
	if cfg.Origins, err = sourcehttp.NewOrigins(entry, allow); err != nil {
		return nil, err
	}
	return sourcehttp.New(cfg), nil
}

// sourceRoot is the repository the working directory is in: the nearest
// folder upwards holding .git (a directory, or a file in a worktree), or
// the working directory itself when there is none. SARIF locations are
// relative to it.
func sourceRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// readerProcs is the number of documents read at a time, n: GOMAXPROCS as
// it was at start. It doubles GOMAXPROCS (unless the user set GOMAXPROCS).
// A document being read spends most of its time in libxml2, in cgo calls
// of 64 KiB each, during which its processor (P) stays taken until the
// runtime's monitor hands it over, 20 µs to 10 ms later, when no P is idle;
// and the goroutine then waits for one to come back to Go. With one P more
// per document read at a time, nothing waits: the 14 MB list, read by the
// front end's goroutines working at once, took 0.59-0.64 s instead of
// 0.80-0.82 s wall (paired runs at load 6-7), with a third fewer context
// switches. With as many documents as CPUs, each is read on its worker's
// goroutine (see inputs.ValidateAll), and the idle Ps keep the monitor
// from handing the busy ones over: a directory of 8 lists, 2 at a time on
// 2 CPUs, took 1.43 s of wall with 4 Ps (1,400-1,550 context switches)
// against 1.50-1.78 s with 2 (1,350-8,500), median of 6 alternating runs.
// GOMAXPROCS is the process's: the command sets it and hands the count to
// inputs.ValidateAll, a library that leaves it alone.
func readerProcs() int {
	n := startProcs()
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2 * n)
	}
	return n
}

// startProcs is GOMAXPROCS as it was when the process started.
var startProcs = sync.OnceValue(func() int { return runtime.GOMAXPROCS(0) })
