package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rsconform/rsconform/mocksource"
)

const mockUsage = `Usage: rsconform mock [flags]

Serves a mock ResourceSync Source over HTTP for testing Destinations. The
Source plays a scenario (built in, or a YAML file) on a virtual clock, so
every run serves the same bytes: a Source Description, a Capability List,
Resource Lists (with an index beyond --max-entries), Change Lists, Resource
and Change Dumps as ZIP packages, the Archives, and the resources themselves,
with faults (errors, latency, dropped connections, wrong hashes) where the
scenario arms them.

The virtual clock moves one step at a time: POST /_rsconform/step (or --auto).
With --realtime the scenario's steps are played at once and the Source then
lives in real time: one resource changes every DURATION (an update, or now
and then a creation or a deletion), each change recorded in the open Change
List as it happens, so a crawl meets the races of a live Source.
GET /_rsconform/expected says what a synchronised Destination holds, and
GET /_rsconform/log what it asked for.

Examples:
  rsconform mock --list
  rsconform mock --scenario incremental-changelist
  rsconform mock --scenario large-source --resources 1000000 --addr 127.0.0.1:9000
  rsconform mock --scenario ./my-scenario.yaml --auto 2s
  rsconform mock --scenario realtime --realtime 100ms
  rsconform mock --scenario realtime --realtime 100ms --lastmod-only
  curl -X POST http://127.0.0.1:8080/_rsconform/step

Exit codes: 0 stopped normally, 2 bad flags, bad scenario or cannot listen.

Flags:
`

// runMock implements 'rsconform mock'.
func runMock(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("mock", flag.ContinueOnError)
	fset.SetOutput(stderr)
	scenario := fset.String("scenario", "baseline-resourcelist", "built-in scenario (see --list) or YAML file `NAME|FILE`")
	addr := fset.String("addr", "127.0.0.1:8080", "`HOST:PORT` to listen on (port 0 picks a free one)")
	resources := fset.Int("resources", 0, "initial number of resources `N`, overriding the scenario's")
	seed := fset.Int64("seed", 0, "seed `S` of the generated content, overriding the scenario's")
	auto := fset.Duration("auto", 0, "play a step every `DURATION` of real time (0: only on POST /_rsconform/step)")
	realtime := fset.Duration("realtime", 0, "real-time mode: play the steps at once, then change a resource every `DURATION` (0: off)")
	lastmodOnly := fset.Bool("lastmod-only", false, "serve Change Lists without datetime (only <lastmod>) and resources without Last-Modified, as most Sources do")
	maxEntries := fset.Int("max-entries", 0, "entries per document before an index is used (default: the scenario's, else 50,000)")
	baseURL := fset.String("base-url", "", "`URL` the documents' URIs start with (default: http://ADDR)")
	addr2 := fset.String("addr2", "", "`HOST:PORT` of the second origin, where a scenario's resources under /origin2/ live (default: a free port of ADDR's host when the scenario has any)")
	list := fset.Bool("list", false, "list the built-in scenarios and exit")
	fset.Usage = func() {} // Parse reports bad flags; help goes to stdout, once
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, mockUsage)
			fset.SetOutput(stdout)
			printFlags(stdout, fset)
			return 0
		}
		fmt.Fprintln(stderr, "see 'rsconform mock --help'")
		return 2
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "rsconform mock: unexpected argument %q (see --help)\n", fset.Arg(0))
		return 2
	}
	if *list {
		for _, name := range mocksource.BuiltinScenarios() {
			sc, err := mocksource.LoadScenario(name)
			if err != nil {
				fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
				return 2
			}
			fmt.Fprintf(stdout, "%-30s %s\n", name, mockWrap(firstSentence(sc.Description), 60, strings.Repeat(" ", 31)))
		}
		return 0
	}
	if *resources < 0 || *maxEntries < 0 || *auto < 0 || *realtime < 0 {
		fmt.Fprintln(stderr, "rsconform mock: --resources, --max-entries, --auto and --realtime cannot be negative")
		return 2
	}
	if *auto > 0 && *realtime > 0 {
		fmt.Fprintln(stderr, "rsconform mock: --auto and --realtime exclude each other (real-time mode plays every step at once)")
		return 2
	}
	sc, err := mocksource.LoadScenario(*scenario)
	if err != nil {
		fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
		return 2
	}
	opts := mocksource.Options{Scenario: sc, Resources: *resources, MaxEntries: *maxEntries, Realtime: *realtime, LastmodOnly: *lastmodOnly}
	fset.Visit(func(f *flag.Flag) {
		if f.Name == "seed" && *seed == 0 {
			// Seed 0 given explicitly: Options treats 0 as "the scenario's".
			sc.Seed = 0
		}
	})
	opts.Seed = *seed
	src, err := mocksource.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
		return 2
	}
	base := strings.TrimRight(*baseURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	src.SetBaseURL(base)
	var ln2 net.Listener
	if *addr2 != "" || sc.UsesOrigin2() {
		a := *addr2
		if a == "" {
			host, _, _ := net.SplitHostPort(ln.Addr().String())
			a = net.JoinHostPort(host, "0")
		}
		if ln2, err = net.Listen("tcp", a); err != nil {
			ln.Close()
			fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
			return 2
		}
		src.SetOrigin2URL("http://" + ln2.Addr().String())
	}

	in := src.Info()
	fmt.Fprintf(stdout, "rsconform mock: scenario %s, %d steps, virtual time %s\n", sc.Name, in.Steps, in.Time.Format(time.RFC3339))
	fmt.Fprintf(stdout, "Serving %s\n", base)
	fmt.Fprintf(stdout, "  Source Description  %s/.well-known/resourcesync\n", base)
	fmt.Fprintf(stdout, "  Capability List     %s/dataset1/capabilitylist.xml\n", base)
	if ln2 != nil {
		fmt.Fprintf(stdout, "  Second origin       %s (the resources under /origin2/)\n", src.Origin2URL())
	}
	fmt.Fprintf(stdout, "Control:\n")
	fmt.Fprintf(stdout, "  POST %s/_rsconform/step      play the next step\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/expected  the expected Destination state\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/log       the request log\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/status    scenario, step and virtual time\n", base)
	if *auto > 0 {
		fmt.Fprintf(stdout, "Playing a step every %v.\n", *auto)
	}
	if *realtime > 0 {
		fmt.Fprintf(stdout, "Real time: a resource changes every %v.\n", *realtime)
	}
	fmt.Fprintln(stdout, "Stop with Ctrl-C.")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	autoErr := make(chan error, 1)
	if *auto > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			autoErr <- src.AutoAdvance(ctx, *auto)
		}()
	}
	origin2Err := make(chan error, 1)
	if ln2 != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			origin2Err <- src.ServeOrigin2(ctx, ln2)
			cancel() // one origin down ends both
		}()
	}
	err = src.Serve(ctx, ln)
	cancel()
	wg.Wait()
	if err == nil && ln2 != nil {
		err = <-origin2Err
	}
	if err != nil {
		fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
		return 2
	}
	select {
	case err := <-autoErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
			return 2
		}
	default:
	}
	return 0
}

// firstSentence is the text up to the first full stop or colon.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".:"); i > 0 {
		return s[:i]
	}
	return s
}

// mockWrap breaks s into lines of at most width characters, indenting all but
// the first.
func mockWrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteString("\n" + indent)
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
