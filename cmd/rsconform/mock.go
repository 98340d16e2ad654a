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
	"github.com/rsconform/rsconform/mocksource/scenario"
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

// mockConfig is what 'rsconform mock' was asked to do.
type mockConfig struct {
	list    bool // list the built-in scenarios; nothing else is set
	source  mocksource.Options
	addr    string
	baseURL string // "" http://ADDR
	// addr2 is the second origin's HOST:PORT ("": a free port of ADDR's
	// host when the scenario has resources under /origin2/, else none).
	addr2 string
	auto  time.Duration // a step every auto of real time (0: on POST only)
}

// mockConfigFromFlags reads mock's flags and loads its scenario.
func mockConfigFromFlags(args []string, stderr io.Writer) (*mockConfig, error) {
	c := &mockConfig{}
	o := &c.source
	fset := flag.NewFlagSet("mock", flag.ContinueOnError)
	fset.SetOutput(stderr)
	scenarioName := fset.String("scenario", "baseline-resourcelist", "built-in scenario (see --list) or YAML file `NAME|FILE`")
	fset.StringVar(&c.addr, "addr", "127.0.0.1:8080", "`HOST:PORT` to listen on (port 0 picks a free one)")
	fset.IntVar(&o.Resources, "resources", 0, "initial number of resources `N`, overriding the scenario's")
	fset.Int64Var(&o.Seed, "seed", 0, "seed `S` of the generated content, overriding the scenario's")
	fset.DurationVar(&c.auto, "auto", 0, "play a step every `DURATION` of real time (0: only on POST /_rsconform/step)")
	fset.DurationVar(&o.Realtime, "realtime", 0, "real-time mode: play the steps at once, then change a resource every `DURATION` (0: off)")
	fset.BoolVar(&o.LastmodOnly, "lastmod-only", false, "serve Change Lists without datetime (only <lastmod>) and resources without Last-Modified, as most Sources do")
	fset.IntVar(&o.MaxEntries, "max-entries", 0, "entries per document before an index is used (default: the scenario's, else 50,000)")
	fset.StringVar(&c.baseURL, "base-url", "", "`URL` the documents' URIs start with (default: http://ADDR)")
	fset.StringVar(&c.addr2, "addr2", "", "`HOST:PORT` of the second origin, where a scenario's resources under /origin2/ live (default: a free port of ADDR's host when the scenario has any)")
	fset.BoolVar(&c.list, "list", false, "list the built-in scenarios and exit")
	args, err := parseCommandLine(fset, args, mockUsage, seeHelp("see 'rsconform mock --help'"))
	switch {
	case err != nil:
		return nil, err
	case len(args) > 0:
		return nil, fmt.Errorf("rsconform mock: unexpected argument %q (see --help)", args[0])
	case c.list:
		return c, nil
	case o.Resources < 0 || o.MaxEntries < 0 || c.auto < 0 || o.Realtime < 0:
		return nil, errors.New("rsconform mock: --resources, --max-entries, --auto and --realtime cannot be negative")
	case c.auto > 0 && o.Realtime > 0:
		return nil, errors.New("rsconform mock: --auto and --realtime exclude each other (real-time mode plays every step at once)")
	}
	if o.Scenario, err = scenario.Load(*scenarioName); err != nil {
		return nil, usageError("mock", err)
	}
	if o.Seed == 0 && flagSet(fset, "seed") {
		// Seed 0 given explicitly: Options treats 0 as "the scenario's".
		o.Scenario.Seed = 0
	}
	return c, nil
}

// runMock implements 'rsconform mock'.
func runMock(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := mockConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	if c.list {
		err = listScenarios(stdout)
	} else {
		err = c.serve(ctx, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rsconform mock: %v\n", err)
		return 2
	}
	return 0
}

// listScenarios lists the built-in scenarios, each with the first
// sentence of its description.
func listScenarios(stdout io.Writer) error {
	for _, name := range scenario.BuiltinNames() {
		sc, err := scenario.Load(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-30s %s\n", name, mockWrap(firstSentence(sc.Description), 60, strings.Repeat(" ", 31)))
	}
	return nil
}

// serve serves the mock Source until ctx ends, playing a step every
// --auto.
func (c *mockConfig) serve(ctx context.Context, stdout io.Writer) error {
	src, err := mocksource.New(c.source)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	base := strings.TrimRight(c.baseURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	src.SetBaseURL(base)
	var ln2 net.Listener
	if c.addr2 != "" || c.source.Scenario.UsesOrigin2() {
		a := c.addr2
		if a == "" {
			host, _, _ := net.SplitHostPort(ln.Addr().String())
			a = net.JoinHostPort(host, "0")
		}
		if ln2, err = net.Listen("tcp", a); err != nil {
			ln.Close()
			return err
		}
		src.SetOrigin2URL("http://" + ln2.Addr().String())
	}
	c.describe(stdout, src.Info(), base, src.Origin2URL())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	autoErr := make(chan error, 1)
	if c.auto > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			autoErr <- src.AutoAdvance(ctx, c.auto)
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
		return err
	}
	select {
	case err := <-autoErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	default:
	}
	return nil
}

// describe says on stdout what the mock serves at base (and base2, its
// second origin, when not "") and how to drive it.
func (c *mockConfig) describe(stdout io.Writer, in mocksource.StepInfo, base, base2 string) {
	fmt.Fprintf(stdout, "rsconform mock: scenario %s, %d steps, virtual time %s\n", c.source.Scenario.Name, in.Steps, in.Time.Format(time.RFC3339))
	fmt.Fprintf(stdout, "Serving %s\n", base)
	fmt.Fprintf(stdout, "  Source Description  %s/.well-known/resourcesync\n", base)
	fmt.Fprintf(stdout, "  Capability List     %s/dataset1/capabilitylist.xml\n", base)
	if base2 != "" {
		fmt.Fprintf(stdout, "  Second origin       %s (the resources under /origin2/)\n", base2)
	}
	fmt.Fprintf(stdout, "Control:\n")
	fmt.Fprintf(stdout, "  POST %s/_rsconform/step      play the next step\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/expected  the expected Destination state\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/log       the request log\n", base)
	fmt.Fprintf(stdout, "  GET  %s/_rsconform/status    scenario, step and virtual time\n", base)
	if c.auto > 0 {
		fmt.Fprintf(stdout, "Playing a step every %v.\n", c.auto)
	}
	if c.source.Realtime > 0 {
		fmt.Fprintf(stdout, "Real time: a resource changes every %v.\n", c.source.Realtime)
	}
	fmt.Fprintln(stdout, "Stop with Ctrl-C.")
}

// firstSentence is the text up to the first full stop or colon.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".:"); i > 0 {
		return s[:i]
	}
	return s
}

// mockWrap breaks s into lines of at most width characters, indenting all but
// the first; its newlines are spaces.
func mockWrap(s string, width int, indent string) string {
	return strings.Join(wrapText(strings.Join(strings.Fields(s), " "), width), "\n"+indent)
}
