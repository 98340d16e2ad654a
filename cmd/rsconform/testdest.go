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
	"github.com/rsconform/rsconform/mocksource"
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

func runTestDestination(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("test-destination", flag.ContinueOnError)
	scenarios := fset.String("scenario", "", "scenario `NAMES` (comma-separated), all, or a YAML file")
	fset.StringVar(scenarios, "scenarios", "", "the same as --scenario (the name suite destination used)")
	progress := fset.String("progress", "auto", "scenario and step progress on standard error: auto (when it is a terminal), always, never")
	dir := fset.String("dir", "", "the Destination's directory (default: a temporary one, removed afterwards); one sub-directory per scenario when several")
	timeout := fset.Duration("timeout", 5*time.Minute, "time limit of one run of the command")
	format := fset.String("format", "text", "report format: "+strings.Join(reporter.Formats(), ", "))
	strict := fset.Bool("strict", false, "failed SHOULD and POLICY verdicts fail the run too")
	ruleGlobs := fset.String("rules", "", "judge only these requirements: comma-separated ID `GLOBS`, '-' to remove")
	output := fset.String("o", "", "write the report to `FILE` instead of standard output")
	maxRate := fset.Float64("max-rate", 50, "most requests allowed in any one second (0: not checked)")
	everyStep := fset.Bool("every-step", false, "run the command after every step, not only checkpoints")
	resources := fset.Int("resources", 0, "override the scenario's number of resources")
	verbose := fset.Bool("v", false, "text report: skipped verdicts, the evidence of every verdict and every run's output")
	showOutput := fset.Bool("show-output", false, "pass the command's output through to standard error")
	usage := func(w io.Writer) {
		fset.SetOutput(w)
		var reqs []string
		for _, r := range harness.Requirements {
			reqs = append(reqs, fmt.Sprintf("%-22s %-6s [%s] %s", r.ID, r.Level, r.Section, r.Title))
		}
		fmt.Fprintf(w, testDestUsage, mocksource.VolumeScenario, mocksource.TokenScenario, mocksource.Origin2Scenario, strings.Join(mocksource.BuiltinScenarios(), "\n  "), strings.Join(reqs, "\n  "))
		printFlags(w, fset)
	}
	cmdArgs, err := parseQuietly(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "rsconform test-destination: %v (see --help)\n", err)
		if strings.Contains(err.Error(), "flag provided but not defined") && !slices.Contains(args, "--") {
			// "test-destination --scenario x ./harvester --out {dir}": the
			// command's own flags were taken for ours.
			fmt.Fprintln(stderr, "rsconform test-destination: if that flag is the Destination command's, put the command after --: rsconform test-destination --scenario NAME -- CMD ARGS...")
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rsconform test-destination: "+format+"\n", a...)
		return 2
	}
	switch {
	case *scenarios == "":
		return fail("no --scenario given (see --help)")
	case len(cmdArgs) == 0:
		return fail("no Destination command given after -- (see --help)")
	case *timeout <= 0 || *maxRate < 0 || *resources < 0:
		return fail("--timeout must be positive, --max-rate and --resources not negative")
	}
	okFormat := false
	for _, f := range reporter.Formats() {
		okFormat = okFormat || f == *format
	}
	if !okFormat {
		return fail("unknown format %q: %s", *format, strings.Join(reporter.Formats(), ", "))
	}
	sel, err := harness.ParseSelector(*ruleGlobs)
	if err != nil {
		return fail("%v", err)
	}
	names := strings.Split(*scenarios, ",")
	if *scenarios == "all" {
		names = mocksource.DefaultScenarios()
	}
	var scs []*mocksource.Scenario
	for _, n := range names {
		sc, err := mocksource.LoadScenario(strings.TrimSpace(n))
		if err != nil {
			return fail("%v", err)
		}
		scs = append(scs, sc)
	}
	base := *dir
	if base == "" {
		tmp, err := os.MkdirTemp("", "rsconform-test-destination-")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(tmp)
		base = tmp
	}
	// A scenario that cannot be played to its end (interrupted, or the mock
	// Source failing) ends the run; what was played until then is still
	// reported.
	var results []*harness.Result
	var runErr error
	for _, sc := range scs {
		d := base
		if len(scs) > 1 || *dir == "" {
			d = filepath.Join(base, sc.Name)
		}
		cfg := harness.Config{Scenario: sc, Dir: d, Command: cmdArgs, Timeout: *timeout, MaxRate: *maxRate,
			EveryStep: *everyStep, Source: mocksource.Options{Resources: *resources}, Select: sel}
		if *showOutput {
			cfg.Output = stderr
		}
		if showProgress(*progress, stderr) {
			cfg.Progress = progressPrinter(stderr, len(results)+1, len(scs), *strict)
		}
		res, err := harness.Run(ctx, cfg)
		if err != nil {
			runErr = fmt.Errorf("scenario %s: %w", sc.Name, err)
			if res != nil && len(res.Steps) > 0 {
				// The steps judged before it stopped keep their verdicts.
				res.Interrupted = err.Error()
				results = append(results, res)
			}
			break
		}
		results = append(results, res)
	}
	if runErr != nil && len(results) == 0 {
		return fail("%v", runErr)
	}
	w := stdout
	if *output != "" && *output != "-" {
		f, err := os.Create(*output)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		w = f
	}
	o := reporter.Options{Version: toolVersion(), Strict: *strict, Verbose: *verbose}
	if err := reporter.WriteDestination(w, *format, results, o); err != nil {
		return fail("writing the report: %v", err)
	}
	if runErr != nil {
		return fail("%v (the report has the steps played until then)", runErr)
	}
	return reporter.DestinationExitCode(results, *strict)
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
