package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/suite"
	destsuite "github.com/rsconform/rsconform/suite/destination"
	"github.com/rsconform/rsconform/suite/source"
)

func init() {
	register("suite", "run a Ginkgo conformance suite (source or destination) with JUnit output", runSuite)
}

const suiteUsage = `Usage:
  rsconform suite source [flags] URL
  rsconform suite destination [flags] -- CMD ARGS...

Runs a conformance suite with Ginkgo and reports one spec per requirement,
grouped by section, with typed labels to filter on: Section:12.1,
Level:MUST|SHOULD|INFO (POLICY for Destinations), Kind:changelist, Scope:document|crawl, and for
Destinations Scenario:NAME.

  source       crawls the Source once (any entry point: site root, Source
               Description, Capability List, capability document) and runs one
               spec per rule of the catalogue
  destination  plays the built-in mock Source scenarios (all but large-source,
               bearer-token and second-origin, unless --scenario names them)
               against the Destination command (placeholders {source}, {dir},
               {token}, {origin}, {origin2}), one spec per step requirement

Examples:
  rsconform suite source https://example.com/.well-known/resourcesync
  rsconform suite source --label-filter 'Level:MUST' --junit-report junit.xml https://example.com/
  rsconform suite source --map https://example.com/=build/site \
      https://example.com/.well-known/resourcesync
  rsconform suite destination --junit-report junit.xml -- \
      ./my-harvester --source {source} --out {dir}

The same suites run with: go test ./suite/source -args -source URL

Exit codes: 0 every spec passed (or was skipped), 1 a spec failed, 2 usage
error or interrupted (Ctrl-C; during the source suite's crawl, no spec is
run).

Flags:
`

// suiteT is the testing.T Ginkgo reports a failure to, outside 'go test'.
type suiteT struct{ failed bool }

func (t *suiteT) Fail() { t.failed = true }

// suiteConfig is what 'rsconform suite' was asked to do.
type suiteConfig struct {
	which    string // source or destination
	specs    types.SuiteConfig
	reporter types.ReporterConfig
	// source is the source suite's, all but its FrontEnd and Outcome,
	// which runSourceSuite wires.
	source      source.Config
	destination destsuite.Config
}

// suiteFlags are suite's flags as given, the source suite's and the
// destination suite's.
type suiteFlags struct {
	labelFilter, junit, colorMode, spec, failLevel, sample, scenarios, dir string
	noColor, verbose, packages                                             bool
	maps                                                                   mapValue
	http                                                                   httpFlags
}

func (f *suiteFlags) register(fset *flag.FlagSet) {
	fset.StringVar(&f.labelFilter, "label-filter", "", "run only specs matching this Ginkgo label `EXPRESSION`, e.g. 'Level:MUST && Section:12.1'")
	fset.StringVar(&f.junit, "junit-report", "", "write a JUnit report to `FILE`")
	fset.BoolVar(&f.noColor, "no-color", false, "no colour (same as --color never)")
	fset.StringVar(&f.colorMode, "color", "auto", "console colour: auto (a terminal and no NO_COLOR), always, never")
	fset.BoolVar(&f.verbose, "v", false, "list every spec, not only failures")
	fset.StringVar(&f.spec, "spec", "1.1", "spec version: 1.1 or 1.0")
	fset.StringVar(&f.failLevel, "fail-level", "warning", "source: least severe finding that fails its spec: error, warning or info\n(INFO findings are shown, failing nothing, unless info)")
	fset.Var(&f.maps, "map", "source: serve `URL=DIR` from a local folder (repeatable; the longest URL prefix of the URL's origin wins)")
	fset.BoolVar(&f.packages, "packages", false, "download dump packages and check them")
	f.http.register(fset)
	// --timeout is the destination suite's too, with another meaning.
	fset.Lookup("timeout").Usage = "source: time-out of one request, body included; destination: time-out of one run of the command (default 5m)"
	fset.Lookup("allow-host").Usage = "source: " + allowHostUsage
	fset.StringVar(&f.sample, "sample", "10", "resources checked per list: a number, all, or 0")
	fset.StringVar(&f.scenarios, "scenario", "", "destination: scenario `NAMES` to play (comma-separated), all, or a YAML file (default: all, which is every built-in one but "+scenario.VolumeName+")")
	fset.StringVar(&f.scenarios, "scenarios", "", "the same as --scenario (its former name)")
	fset.StringVar(&f.dir, "dir", "", "destination: keep the Destination's directories under `DIR` (default: a temporary one)")
}

// suiteConfigFromFlags reads the suite's name and suite's flags.
func suiteConfigFromFlags(args []string, stderr io.Writer) (*suiteConfig, error) {
	var f suiteFlags
	fset := flag.NewFlagSet("suite", flag.ContinueOnError)
	fset.SetOutput(stderr)
	f.register(fset)
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		return nil, commandHelp(suiteUsage, fset)
	}
	if len(args) == 0 {
		return nil, errors.New("rsconform suite: say which suite: source or destination (see --help)")
	}
	c := &suiteConfig{which: args[0]}
	rest, err := parseCommandLine(fset, args[1:], suiteUsage, seeHelp("see 'rsconform suite --help'"))
	if err != nil {
		return nil, err
	}
	color, err := suiteColor(f.colorMode, f.noColor)
	if err != nil {
		return nil, usageError("suite", err)
	}
	c.specs, c.reporter = ginkgo.GinkgoConfiguration()
	c.specs.LabelFilter = f.labelFilter
	c.reporter.JUnitReport = f.junit
	c.reporter.NoColor = !color
	c.reporter.Verbose = f.verbose
	switch c.which {
	case "source":
		c.source, err = f.sourceConfig(rest)
	case "destination":
		c.destination, err = f.destinationConfig(rest, flagSet(fset, "timeout"))
	default:
		return nil, fmt.Errorf("rsconform suite: unknown suite %q%s (see --help)", c.which, suggest.DidYouMean(c.which, []string{"source", "destination"}))
	}
	if err != nil {
		return nil, usageError("suite "+c.which, err)
	}
	return c, nil
}

// sourceConfig is the source suite's config, of the entry point in rest.
func (f *suiteFlags) sourceConfig(rest []string) (source.Config, error) {
	if len(rest) != 1 {
		return source.Config{}, errors.New("give one URL (see --help)")
	}
	sp, err := engine.ParseSpec(f.spec)
	if err != nil {
		return source.Config{}, err
	}
	var labelSets []ginkgo.Labels
	for _, r := range engine.All() {
		labelSets = append(labelSets, suite.RuleLabels(r))
	}
	if err := checkLabelFilter(f.labelFilter, labelSets); err != nil {
		return source.Config{}, err
	}
	if err := checkFailLevel(f.failLevel); err != nil {
		return source.Config{}, err
	}
	cfg := source.Config{Entry: rest[0], Spec: sp, Packages: f.packages, AllowHosts: f.http.hosts, Maps: f.maps,
		FailLevel: engine.Severity(f.failLevel)}
	if cfg.HTTP, err = f.http.config(); err != nil {
		return source.Config{}, err
	}
	if cfg.Sample, err = crawler.ParseSample(f.sample); err != nil {
		return source.Config{}, fmt.Errorf("--sample %w", err)
	}
	cfg.SampleSet = true
	return cfg, nil
}

// destinationConfig is the destination suite's config, of the
// Destination command in rest; --timeout, when given, is the time-out of
// one run of it.
func (f *suiteFlags) destinationConfig(rest []string, timeoutGiven bool) (destsuite.Config, error) {
	if len(rest) == 0 {
		return destsuite.Config{}, errors.New("give the Destination command after -- (see --help)")
	}
	names := scenario.DefaultNames()
	cfg := destsuite.Config{Command: rest, Dir: f.dir}
	if f.scenarios != "" && f.scenarios != "all" {
		names = strings.Split(f.scenarios, ",")
		cfg.Scenarios = names
	}
	var labelSets []ginkgo.Labels
	for _, sc := range names {
		for _, r := range harness.Requirements {
			labelSets = append(labelSets, destsuite.RequirementLabels(sc, r))
		}
	}
	if err := checkLabelFilter(f.labelFilter, labelSets); err != nil {
		return destsuite.Config{}, err
	}
	if timeoutGiven {
		cfg.Timeout = f.http.cfg.Timeout
	}
	return cfg, nil
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := suiteConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	if c.which == "source" {
		return runSourceSuite(ctx, c, stderr)
	}
	return runDestinationSuite(ctx, c, stderr)
}

// runSourceSuite crawls the Source once, then runs one spec per rule on
// what the crawl observed.
func runSourceSuite(ctx context.Context, c *suiteConfig, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "rsconform suite source:", err)
		return 2
	}
	cfg := c.source
	var err error
	if cfg.FrontEnd, err = frontend.New(); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "rsconform suite source: crawling %s ...\n", cfg.Entry)
	if cfg.Outcome, err = source.Crawl(ctx, cfg); err != nil {
		return fail(err)
	}
	if ctx.Err() != nil {
		// Specs run on part of the Source would pass on what nothing
		// observed.
		fmt.Fprintln(stderr, "rsconform suite source: interrupted while crawling; no spec is run")
		return 2
	}
	for _, n := range cfg.Outcome.Report.Notes {
		fmt.Fprintln(stderr, "rsconform suite source: note:", n)
	}
	if err := source.DefineSpecs(cfg); err != nil {
		return fail(err)
	}
	t := &suiteT{}
	passed := ginkgo.RunSpecs(t, "ResourceSync Source conformance: "+cfg.Entry, c.specs, c.reporter) && !t.failed
	return suiteExit(ctx, passed, "source", stderr)
}

// runDestinationSuite plays the mock Source's scenarios against the
// Destination command, one spec per step requirement.
func runDestinationSuite(ctx context.Context, c *suiteConfig, stderr io.Writer) int {
	if err := destsuite.DefineSpecs(c.destination); err != nil {
		fmt.Fprintln(stderr, "rsconform suite destination:", err)
		return 2
	}
	t := &suiteT{}
	title := "ResourceSync Destination conformance: " + strings.Join(c.destination.Command, " ")
	passed := ginkgo.RunSpecs(t, title, c.specs, c.reporter) && !t.failed
	return suiteExit(ctx, passed, "destination", stderr)
}

// suiteExit is the exit code of a suite that ran: 2 when it was
// interrupted (Ginkgo reports the interrupted spec as failed, but the
// suite has no verdict), else 0 or 1.
func suiteExit(ctx context.Context, passed bool, which string, stderr io.Writer) int {
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "rsconform suite %s: interrupted; no verdict\n", which)
		return 2
	case passed:
		return 0
	}
	return 1
}

// suiteColor decides the console's colour as the reports do: auto means
// standard output is a terminal and NO_COLOR is unset (Ginkgo writes to
// the process's standard output).
func suiteColor(mode string, noColor bool) (bool, error) {
	if noColor {
		return false, nil
	}
	switch mode {
	case reporter.ColorAlways:
		return true, nil
	case reporter.ColorNever:
		return false, nil
	case reporter.ColorAuto, "":
		return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isTerminal(os.Stdout), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", mode)
}

// checkLabelFilter refuses, before any work, a label filter that does not
// parse or that selects none of the specs the suite would run (labelSets):
// a typo such as Levl:MUST would otherwise run nothing and pass.
func checkLabelFilter(expr string, labelSets []ginkgo.Labels) error {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	match, err := types.ParseLabelFilter(expr)
	if err != nil {
		var ge types.GinkgoError
		if errors.As(err, &ge) {
			// Ginkgo's own rendering is coloured and spread over lines.
			return fmt.Errorf("--label-filter %q does not parse: %s: %s", expr, ge.Heading, strings.Join(strings.Fields(ge.Message), " "))
		}
		return fmt.Errorf("--label-filter %q does not parse: %w", expr, err)
	}
	known := map[string]bool{}
	for _, ls := range labelSets {
		if match(ls) {
			return nil
		}
		for _, l := range ls {
			known[l] = true
		}
	}
	msg := fmt.Sprintf("--label-filter %q selects no spec", expr)
	var names []string
	for l := range known {
		names = append(names, l)
	}
	sort.Strings(names)
	for _, word := range strings.FieldsFunc(expr, func(r rune) bool { return strings.ContainsRune("&|!(), ", r) }) {
		if !known[word] {
			if c := suggest.Closest(word, names); c != "" {
				msg += " (" + word + ": " + suggest.Phrase(c) + ")"
				break
			}
		}
	}
	return errors.New(msg + "; labels are Section:N, Level:MUST|SHOULD|INFO, Kind:KIND, Scope:document|crawl|step, Scenario:NAME")
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
