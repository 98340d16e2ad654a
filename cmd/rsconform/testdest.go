package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/reporter"
)

func init() {
	register("test-destination", "test a Destination against the mock Source's scenarios", runTestDestination)
}

const testDestUsage = `Usage: rsconform test-destination --scenario NAME [flags] -- CMD ARGS...

Plays a scenario of the mock Source on 127.0.0.1 and runs the Destination
command CMD ARGS... once before the first step and after every checkpoint
step. In ARGS, {source} is replaced by the URI of the Source Description,
{dir} by the directory the Destination keeps in step, {step} by the step
number, {token} by the bearer token of a scenario whose Source wants one,
{origin} and {origin2} by the base URLs of the Source's two origins, two
ports of 127.0.0.1 (only scenario second-origin has resources on the
second); the environment has them too: RSCONFORM_SOURCE, RSCONFORM_DIR,
RSCONFORM_STEP, RSCONFORM_TOKEN, RSCONFORM_ORIGIN, RSCONFORM_ORIGIN2. A run
longer than --timeout is killed with its process group. After each run the
directory is compared with the Source (every resource present with its
current content by sha256, deleted ones removed, no other file; the URI
path mirrored under DIR as written, escapes kept and a query after ? at the
end of the name, the second origin's under DIR/origin2, top-level names
starting with .rsconform ignored) and the mock's request log is read for behaviour
(Retry-After honoured, broken documents reported, unchanged resources
downloaded again, deleted ones requested, the request rate). One verdict
per step and requirement, with its level and the evidence it rests on:

  FAIL step 3 [5.2] MUST deleted resources are removed:
       expected /res/0000003.txt absent, actual present

Levels: MUST (the specification's, or what synchronised means for a copy),
SHOULD (recommended), POLICY (politeness and efficiency the specification
does not require). A verdict is pass, fail, not observed (the event the
requirement waits for, such as a retry after Retry-After, is not in the
log: neither pass nor fail) or skip (does not apply at this step). A run
must end with exit 0, or non-zero after the Source served something broken
(the exit reports it); after a run that fails (a crash by a signal
included), DIR is not judged; a run that leaves no DIR fails, and DIR is
judged as empty. Verdicts on DIR cite the run's requests (status,
redirects, bytes sent); content verdicts give lengths and SHA-256s.
'rsconform explain DEST-ID' says what a requirement rests on. A
Destination reports a broken document or content failing fixity by a
non-zero exit or a line on standard error naming its URL.

Scenarios (--scenario NAME, several separated by commas, all, or a YAML file;
all is every one but %s, whose 100,000 resources take a Destination
polite enough for 20 requests a second over 80 minutes to copy: it is
played when named, with a --timeout to match; but %s, whose Source
answers 401 without the bearer token the command must pass on from
{token} or RSCONFORM_TOKEN; and but %s, whose second origin's
resources go in DIR/origin2, as the command must tell the Destination with
{origin2}):
  %s

Examples:
  rsconform test-destination --scenario incremental-changelist -- rsconform sync {source} {dir}
  rsconform test-destination --scenario all --format junit -o report.xml -- \
      ./my-destination --src {source} --out {dir}
  rsconform test-destination --scenario flaky-server --max-rate 20 --timeout 2m -- \
      rsconform sync {source} {dir}
  rsconform test-destination --scenario bearer-token -- \
      rsconform sync --header 'Authorization: Bearer {token}' {source} {dir}
  rsconform test-destination --scenario second-origin -- \
      rsconform sync --map {origin}=. --map {origin2}=origin2 {source} {dir}

Requirements (--rules 'DEST-*,-DEST-RATE' selects):
  %s

Exit codes: 0 no MUST failed (with --strict: nothing failed); 1 a verdict
failed; 2 usage or scenario error, the command could not be started, or a
scenario could not be played to its end (Ctrl-C, say: the steps played
until then are reported).

Flags:
`

// testDestConfig is what 'rsconform test-destination' was asked to do.
type testDestConfig struct {
	scenarios []*scenario.Scenario
	// harness is every scenario's harness config, less the scenario, the
	// directory, the output and the progress, which play sets.
	harness    harness.Config
	dir        string // --dir; "" a temporary one
	progress   string // --progress: auto, always or never
	showOutput bool
	format     string
	output     string           // the report's file; "" or - standard output
	report     reporter.Options // Version, Strict, Verbose
}

// testDestConfigFromFlags reads test-destination's flags and loads its
// scenarios.
func testDestConfigFromFlags(args []string, stderr io.Writer) (*testDestConfig, error) {
	c := &testDestConfig{report: reporter.Options{Version: toolVersion()}}
	h := &c.harness
	fset := flag.NewFlagSet("test-destination", flag.ContinueOnError)
	fset.SetOutput(io.Discard) // the usage error says it once
	scenarios := fset.String("scenario", "", "scenario `NAMES` (comma-separated), all, or a YAML file")
	fset.StringVar(scenarios, "scenarios", "", "the same as --scenario (the name suite destination used)")
	fset.StringVar(&c.progress, "progress", "auto", "scenario and step progress on standard error: auto (when it is a terminal), always, never")
	fset.StringVar(&c.dir, "dir", "", "the Destination's directory (default: a temporary one, removed afterwards); one sub-directory per scenario when several")
	fset.DurationVar(&h.Timeout, "timeout", 5*time.Minute, "time limit of one run of the command")
	fset.StringVar(&c.format, "format", "text", "report format: "+strings.Join(reporter.Formats(), ", "))
	fset.BoolVar(&c.report.Strict, "strict", false, "failed SHOULD and POLICY verdicts fail the run too")
	ruleGlobs := fset.String("rules", "", "judge only these requirements: comma-separated ID `GLOBS`, '-' to remove")
	fset.StringVar(&c.output, "o", "", "write the report to `FILE` instead of standard output")
	fset.Float64Var(&h.MaxRate, "max-rate", 50, "most requests allowed in any one second (0: not checked)")
	fset.BoolVar(&h.EveryStep, "every-step", false, "run the command after every step, not only checkpoints")
	fset.IntVar(&h.Source.Resources, "resources", 0, "override the scenario's number of resources")
	fset.BoolVar(&c.report.Verbose, "v", false, "text report: skipped verdicts, the evidence of every verdict and every run's output")
	fset.BoolVar(&c.showOutput, "show-output", false, "pass the command's output through to standard error")
	var err error
	h.Command, err = parseCommandLine(fset, args, testDestHelp(), func(err error) error {
		msg := fmt.Sprintf("rsconform test-destination: %v (see --help)", err)
		if strings.Contains(err.Error(), "flag provided but not defined") && !slices.Contains(args, "--") {
			// "test-destination --scenario x ./harvester --out {dir}": the
			// command's own flags were taken for ours.
			msg += "\nrsconform test-destination: if that flag is the Destination command's, put the command after --: rsconform test-destination --scenario NAME -- CMD ARGS..."
		}
		return errors.New(msg)
	})
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*testDestConfig, error) {
		return nil, fmt.Errorf("rsconform test-destination: "+format, a...)
	}
	switch {
	case *scenarios == "":
		return fail("no --scenario given (see --help)")
	case len(h.Command) == 0:
		return fail("no Destination command given after -- (see --help)")
	case h.Timeout <= 0 || h.MaxRate < 0 || h.Source.Resources < 0:
		return fail("--timeout must be positive, --max-rate and --resources not negative")
	case !slices.Contains(reporter.Formats(), c.format):
		return fail("unknown format %q: %s", c.format, strings.Join(reporter.Formats(), ", "))
	}
	if h.Select, err = harness.ParseSelector(*ruleGlobs); err != nil {
		return fail("%v", err)
	}
	if c.scenarios, err = loadScenarios(*scenarios); err != nil {
		return fail("%v", err)
	}
	return c, nil
}

// testDestHelp is test-destination's help text, with the scenarios and
// the requirements.
func testDestHelp() string {
	var reqs []string
	for _, r := range harness.Requirements {
		reqs = append(reqs, fmt.Sprintf("%-22s %-6s [%s] %s", r.ID, r.Level, r.Section, r.Title))
	}
	return fmt.Sprintf(testDestUsage, scenario.VolumeName, scenario.TokenName, scenario.Origin2Name, strings.Join(scenario.BuiltinNames(), "\n  "), strings.Join(reqs, "\n  "))
}

// loadScenarios loads the scenarios of --scenario: names separated by
// commas, all (every default one), or a YAML file.
func loadScenarios(list string) ([]*scenario.Scenario, error) {
	names := strings.Split(list, ",")
	if list == "all" {
		names = scenario.DefaultNames()
	}
	var scs []*scenario.Scenario
	for _, n := range names {
		sc, err := scenario.Load(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		scs = append(scs, sc)
	}
	return scs, nil
}

func runTestDestination(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := testDestConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rsconform test-destination: %v\n", err)
		return 2
	}
	base := c.dir
	if base == "" {
		tmp, err := os.MkdirTemp("", "rsconform-test-destination-")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(tmp)
		base = tmp
	}
	results, runErr := c.play(ctx, base, stderr)
	if runErr != nil && len(results) == 0 {
		return fail(runErr)
	}
	if err := c.writeReport(stdout, results); err != nil {
		return fail(err)
	}
	if runErr != nil {
		return fail(fmt.Errorf("%w (the report has the steps played until then)", runErr))
	}
	return reporter.DestinationExitCode(results, c.report.Strict)
}

// play plays the scenarios one after the other, each in its directory
// under base. A scenario that cannot be played to its end (interrupted, or
// the mock Source failing) ends the run with its error; the results
// played until then are returned with it.
func (c *testDestConfig) play(ctx context.Context, base string, stderr io.Writer) ([]*harness.Result, error) {
	var results []*harness.Result
	for _, sc := range c.scenarios {
		cfg := c.harness
		cfg.Scenario, cfg.Dir = sc, base
		if len(c.scenarios) > 1 || c.dir == "" {
			cfg.Dir = filepath.Join(base, sc.Name)
		}
		if c.showOutput {
			cfg.Output = stderr
		}
		if showProgress(c.progress, stderr) {
			cfg.Progress = progressPrinter(stderr, len(results)+1, len(c.scenarios), c.report.Strict)
		}
		res, err := harness.Run(ctx, cfg)
		if err != nil {
			if res != nil && len(res.Steps) > 0 {
				// The steps judged before it stopped keep their verdicts.
				res.Interrupted = err.Error()
				results = append(results, res)
			}
			return results, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		results = append(results, res)
	}
	return results, nil
}

// writeReport writes the report of results to --o or stdout.
func (c *testDestConfig) writeReport(stdout io.Writer, results []*harness.Result) error {
	w := stdout
	if c.output != "" && c.output != "-" {
		f, err := os.Create(c.output)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := reporter.WriteDestination(w, c.format, results, c.report); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// progressPrinter shows a scenario's runs on standard error, a line before
// and after each: "[2/18] resource-names step 1/2 (names that must stay
// apart): running", then "… exit 0 in 0.3s, 13 requests, 0 failing".
func progressPrinter(w io.Writer, n, of int, strict bool) func(harness.Progress) {
	return func(p harness.Progress) {
		head := fmt.Sprintf("[%d/%d] %s step %d/%d (%s)", n, of, p.Scenario, p.Step, p.Steps, p.Name)
		if p.Run == nil {
			fmt.Fprintf(w, "%s: running the Destination\n", reporter.TermSafe(head))
			return
		}
		failing := 0
		for _, v := range p.Verdicts {
			if v.Fails(strict) {
				failing++
			}
		}
		fmt.Fprintf(w, "%s: %s in %.1fs, %d requests, %d failing\n", reporter.TermSafe(head), p.Run.Exit(), p.Run.Seconds, p.Run.Requests, failing)
	}
}
