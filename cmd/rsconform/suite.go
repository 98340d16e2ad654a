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
	"github.com/rsconform/rsconform/mocksource"
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

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("suite", flag.ContinueOnError)
	fset.SetOutput(stderr)
	labelFilter := fset.String("label-filter", "", "run only specs matching this Ginkgo label `EXPRESSION`, e.g. 'Level:MUST && Section:12.1'")
	junit := fset.String("junit-report", "", "write a JUnit report to `FILE`")
	noColor := fset.Bool("no-color", false, "no colour (same as --color never)")
	colorMode := fset.String("color", "auto", "console colour: auto (a terminal and no NO_COLOR), always, never")
	verbose := fset.Bool("v", false, "list every spec, not only failures")
	spec := fset.String("spec", "1.1", "spec version: 1.1 or 1.0")
	failLevel := fset.String("fail-level", "warning", "source: least severe finding that fails its spec: error, warning or info\n(INFO findings are shown, failing nothing, unless info)")
	var maps mapValue
	fset.Var(&maps, "map", "source: serve `URL=DIR` from a local folder (repeatable; the longest URL prefix of the URL's origin wins)")
	packages := fset.Bool("packages", false, "download dump packages and check them")
	var hf httpFlags
	hf.register(fset)
	// --timeout is the destination suite's too, with another meaning.
	fset.Lookup("timeout").Usage = "source: time-out of one request, body included; destination: time-out of one run of the command (default 5m)"
	fset.Lookup("allow-host").Usage = "source: " + allowHostUsage
	sample := fset.String("sample", "10", "resources checked per list: a number, all, or 0")
	scenarios := fset.String("scenario", "", "destination: scenario `NAMES` to play (comma-separated), all, or a YAML file (default: all, which is every built-in one but "+mocksource.VolumeScenario+")")
	fset.StringVar(scenarios, "scenarios", "", "the same as --scenario (its former name)")
	dir := fset.String("dir", "", "destination: keep the Destination's directories under `DIR` (default: a temporary one)")
	printUsage := func() {
		fset.SetOutput(stdout)
		fmt.Fprint(stdout, suiteUsage)
		printFlags(stdout, fset)
	}
	// The flag package calls Usage on -help before returning ErrHelp, and
	// on a bad flag: help is printed once, below, on stdout.
	fset.Usage = func() {}
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		printUsage()
		return 0
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "rsconform suite: say which suite: source or destination (see --help)")
		return 2
	}
	which := args[0]
	rest, err := parseFlags(fset, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage()
			return 0
		}
		fmt.Fprintln(stderr, "see 'rsconform suite --help'")
		return 2
	}
	color, err := suiteColor(*colorMode, *noColor)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform suite:", err)
		return 2
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = *labelFilter
	reporterConfig.JUnitReport = *junit
	reporterConfig.NoColor = !color
	reporterConfig.Verbose = *verbose
	switch which {
	case "source":
		if len(rest) != 1 {
			fmt.Fprintln(stderr, "rsconform suite source: give one URL (see --help)")
			return 2
		}
		sp, err := engine.ParseSpec(*spec)
		if err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		var labelSets []ginkgo.Labels
		for _, r := range engine.All() {
			labelSets = append(labelSets, suite.RuleLabels(r))
		}
		if err := checkLabelFilter(*labelFilter, labelSets); err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		switch *failLevel {
		case "error", "warning", "info":
		default:
			fmt.Fprintf(stderr, "rsconform suite source: --fail-level %q: want error, warning or info%s\n", *failLevel, suggest.DidYouMean(*failLevel, []string{"error", "warning", "info"}))
			return 2
		}
		fe, err := frontend.New()
		if err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		cfg := source.Config{Entry: rest[0], Spec: sp, Packages: *packages, AllowHosts: hf.hosts, Maps: maps, FrontEnd: fe,
			FailLevel: engine.Severity(*failLevel)}
		if cfg.HTTP, err = hf.config(); err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		switch strings.ToLower(*sample) {
		case "all":
			cfg.Sample, cfg.SampleSet = crawler.SampleAll, true
		default:
			var n int
			if _, err := fmt.Sscanf(*sample, "%d", &n); err != nil || n < 0 {
				fmt.Fprintln(stderr, "rsconform suite source: --sample takes a number, all or 0")
				return 2
			}
			cfg.Sample, cfg.SampleSet = n, true
		}
		fmt.Fprintf(stderr, "rsconform suite source: crawling %s ...\n", cfg.Entry)
		outcome, err := source.Crawl(ctx, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		if ctx.Err() != nil {
			// Specs run on part of the Source would pass on what nothing
			// observed.
			fmt.Fprintln(stderr, "rsconform suite source: interrupted while crawling; no spec is run")
			return 2
		}
		cfg.Outcome = outcome
		for _, n := range outcome.Report.Notes {
			fmt.Fprintln(stderr, "rsconform suite source: note:", n)
		}
		if err := source.DefineSpecs(cfg); err != nil {
			fmt.Fprintln(stderr, "rsconform suite source:", err)
			return 2
		}
		t := &suiteT{}
		passed := ginkgo.RunSpecs(t, "ResourceSync Source conformance: "+rest[0], suiteConfig, reporterConfig) && !t.failed
		return suiteExit(ctx, passed, "source", stderr)
	case "destination":
		if len(rest) == 0 {
			fmt.Fprintln(stderr, "rsconform suite destination: give the Destination command after -- (see --help)")
			return 2
		}
		names := mocksource.DefaultScenarios()
		if *scenarios != "" && *scenarios != "all" {
			names = strings.Split(*scenarios, ",")
		}
		var labelSets []ginkgo.Labels
		for _, sc := range names {
			for _, r := range harness.Requirements {
				labelSets = append(labelSets, destsuite.RequirementLabels(sc, r))
			}
		}
		if err := checkLabelFilter(*labelFilter, labelSets); err != nil {
			fmt.Fprintln(stderr, "rsconform suite destination:", err)
			return 2
		}
		cfg := destsuite.Config{Command: rest, Dir: *dir}
		if timeoutSet(fset) {
			cfg.Timeout = hf.cfg.Timeout
		}
		if *scenarios != "" && *scenarios != "all" {
			cfg.Scenarios = strings.Split(*scenarios, ",")
		}
		if err := destsuite.DefineSpecs(cfg); err != nil {
			fmt.Fprintln(stderr, "rsconform suite destination:", err)
			return 2
		}
		t := &suiteT{}
		passed := ginkgo.RunSpecs(t, "ResourceSync Destination conformance: "+strings.Join(rest, " "), suiteConfig, reporterConfig) && !t.failed
		return suiteExit(ctx, passed, "destination", stderr)
	}
	fmt.Fprintf(stderr, "rsconform suite: unknown suite %q%s (see --help)\n", which, suggest.DidYouMean(which, []string{"source", "destination"}))
	return 2
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
				msg += fmt.Sprintf(" (%s: did you mean %s?)", word, c)
				break
			}
		}
	}
	return errors.New(msg + "; labels are Section:N, Level:MUST|SHOULD|INFO, Kind:KIND, Scope:document|crawl|step, Scenario:NAME")
}

// timeoutSet reports whether --timeout was given.
func timeoutSet(fset *flag.FlagSet) bool {
	set := false
	fset.Visit(func(f *flag.Flag) { set = set || f.Name == "timeout" })
	return set
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
