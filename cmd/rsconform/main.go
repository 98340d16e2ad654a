// Command rsconform validates ResourceSync documents and Sources, and
// plays a mock Source for testing Destinations.
//
// main parses nothing itself: it hands the arguments to run, which returns
// the exit code. Only main exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strings"
	"syscall"

	"github.com/rsconform/rsconform/internal/suggest"
)

// version is set at build time with -ldflags "-X main.version=..."; when it
// is not, the module version from the build info is used.
var version = ""

// commit is the VCS commit, set at build time with -ldflags "-X
// main.commit=..." (scripts/release.sh, the Dockerfile) for builds the Go
// toolchain cannot stamp itself (a git worktree, -buildvcs=false, a
// source tree without .git); the build info's vcs.revision wins.
var commit = ""

// userAgent is the User-Agent rsconform sends wherever it fetches.
func userAgent() string { return "rsconform/" + toolVersion() }

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

// command is one subcommand: run gets the arguments after its name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func init() {
	register("validate", "check documents (files, directories, URLs or stdin) against the spec", runValidate)
	register("rules", "list the rule catalogue", runRules)
	register("version", "print the version", runVersion)
	register("mock", "serve a mock ResourceSync Source played from a scenario, to test Destinations", runMock)
}

func main() {
	// Documents are parsed into short-lived garbage of several times their
	// size; collecting at 50% growth instead of 100% keeps a crawl's memory
	// bounded by its largest document. GOGC, when set, still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	// A CPU profile of the whole command, for the benchmarks (bench/README.md).
	if f := os.Getenv("RSCONFORM_CPUPROFILE"); f != "" {
		w, err := os.Create(f)
		if err == nil {
			err = pprof.StartCPUProfile(w)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "rsconform: RSCONFORM_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
	}
	// An execution trace of the whole command (go tool trace), likewise.
	if f := os.Getenv("RSCONFORM_TRACE"); f != "" {
		w, err := os.Create(f)
		if err == nil {
			err = trace.Start(w)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "rsconform: RSCONFORM_TRACE: %v\n", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the command, which ends what it is doing
	// and says so; a second one ends the process at once, wherever it is
	// (opening a FIFO that nobody writes, say, where no cancel reaches).
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
	trace.Stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(ctx, []string{"--help"}, stdout, stderr)
			}
		}
		usage(stdout)
		return 0
	case "--version", "-version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		var names []string
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "rsconform: unknown command %q%s\n\n", name, suggest.DidYouMean(name, names))
		usage(stderr)
		return 2
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "rsconform %s: a conformance validator and test harness for ResourceSync (ANSI/NISO Z39.99)\n\nUsage:\n  rsconform <command> [flags] [arguments]\n\nCommands:\n", toolVersion())
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'rsconform <command> --help' for a command's flags and examples.\n")
	fmt.Fprintf(w, "Exit codes: 0 no failing finding, 1 failing findings, 2 rsconform could not do its job.\n")
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprintln(stdout, "Usage: rsconform version\n\nPrints rsconform's version, the commit it was built from, and the spec versions it checks.")
		return 0
	}
	fmt.Fprintf(stdout, "rsconform %s (ResourceSync 1.1 default, 1.0 profile; Archives 0.9.1 draft)\n", toolVersion())
	bi, _ := debug.ReadBuildInfo()
	for _, line := range buildLines(bi) {
		fmt.Fprintln(stdout, line)
	}
	return 0
}

// buildLines describes the build: module version, VCS commit and time
// (with "+dirty" when the work tree had changes), Go version. Builds
// without VCS information (go run, or -buildvcs=false) say so.
func buildLines(bi *debug.BuildInfo) []string {
	if bi == nil {
		return []string{"build:   no build information"}
	}
	mod := bi.Main.Version
	if mod == "" {
		mod = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	switch {
	case rev == "" && commit != "":
		rev = commit
	case rev == "":
		rev = "unknown (built without VCS information)"
	default:
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		if t := settings["vcs.time"]; t != "" {
			rev += " (" + t + ")"
		}
	}
	return []string{
		"module:  " + bi.Main.Path + " " + mod,
		"commit:  " + rev,
		"go:      " + bi.GoVersion,
	}
}

// withFlagHint adds "did you mean --X?" to an unknown flag's error, and
// prints it where the flag package printed the error.
func withFlagHint(fset *flag.FlagSet, err error) error {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return err
	}
	var names []string
	fset.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	given := strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-")
	c := suggest.Closest(given, names)
	if c == "" {
		return err
	}
	fmt.Fprintln(fset.Output(), suggest.Phrase("--"+c))
	return fmt.Errorf("%w%s", err, suggest.Hint("--"+c))
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// parseFlags parses args with fset, allowing flags after positional
// arguments ("validate doc.xml --strict"), as users type them. "--" ends the
// flags; everything after it is positional. It returns the positional
// arguments, or flag.ErrHelp or another parse error.
func parseFlags(fset *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, withFlagHint(fset, err)
		}
		rest := fset.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fset.Parse stops at "--" (consumed) or at the first non-flag.
		consumedDashes := len(args) > len(rest) && args[len(args)-len(rest)-1] == "--"
		if consumedDashes {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
