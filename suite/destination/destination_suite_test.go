package destination_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/internal/testbin"
	_ "github.com/rsconform/rsconform/internal/testgc"  // collects at 400 %: see its doc
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/suite/destination"
)

var (
	command   = flag.String("destination", "", "the Destination command, with {source} and {dir} (default: $RSCONFORM_DESTINATION, else rsconform's reference Destination)")
	scenarios = flag.String("scenarios", "", "comma-separated scenarios (default: every built-in one but large-source)")
)

// refdestBin is testdata/refdest, the reference Destination of the
// self-test, built once without -race (see its doc) into testbin's folder.
var (
	refdestOnce sync.Once
	refdestBin  string
	refdestErr  error
)

// TestMain closes what the self-test's plays leave. TestBrokenDestination
// starts this test binary again: it inherits GORACE with atexit_sleep_ms=0
// from raceexit's exec, so under -race it does not wait a second to exit.
func TestMain(m *testing.M) {
	code := m.Run()
	if player != nil {
		player.close()
	}
	if shorterDir != "" {
		os.RemoveAll(shorterDir)
	}
	os.Exit(code)
}

// selfTest says whether the suite checks the reference Destination: no
// -destination argument, no RSCONFORM_DESTINATION (read before the flags
// are parsed: the suite is defined when the package is initialised).
func selfTest() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "destination") {
			return false
		}
	}
	return os.Getenv("RSCONFORM_DESTINATION") == ""
}

// player plays the self-test's scenarios three at a time (ahead_test.go).
var player *aheadPlayer

// shorterDir holds the scenarios shorterWaits writes.
var shorterDir string

// shorterWaits replaces, in the self-test, flaky-server by a copy of its
// YAML that asks for Retry-After 1 instead of 2: the reference Destination
// waits for real, twice per run, and a wait of 1 s tells one that honours
// Retry-After from one that does not (the harness allows 100 ms) as well.
func shorterWaits(names []string) []string {
	out := slices.Clone(names)
	i := slices.Index(out, "flaky-server")
	if i < 0 {
		return out
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "mocksource", "scenario", "builtin", "flaky-server.yaml"))
	if err != nil {
		panic(err)
	}
	const from, to = "retry-after: 2s", "retry-after: 1s"
	if strings.Count(string(data), from) != 1 {
		panic("flaky-server.yaml: no longer one " + from)
	}
	if shorterDir, err = os.MkdirTemp("", "rsconform-suite-"); err != nil {
		panic(err)
	}
	out[i] = filepath.Join(shorterDir, "flaky-server.yaml")
	if err := os.WriteFile(out[i], []byte(strings.Replace(string(data), from, to, 1)), 0o644); err != nil {
		panic(err)
	}
	return out
}

var _ = func() bool {
	cfg := destination.Config{Setup: func(c *destination.Config) error {
		cmd := *command
		if cmd == "" {
			cmd = os.Getenv("RSCONFORM_DESTINATION")
		}
		if cmd != "" {
			c.Command = strings.Fields(cmd)
			return nil
		}
		// Self-test: the reference Destination, as testdata/refdest.
		refdestOnce.Do(func() { refdestBin, refdestErr = testbin.Build("suite-destination", "./testdata/refdest") })
		if refdestErr != nil {
			return refdestErr
		}
		c.Command = []string{refdestBin, "{source}", "{dir}"}
		if b := os.Getenv("RSCONFORM_SUITE_BROKEN_CHILD"); b != "" {
			c.Env = append(c.Env, "RSCONFORM_SUITE_BROKEN="+b)
		}
		if e := os.Getenv("RSCONFORM_SUITE_SETUP_ERROR"); e != "" {
			// TestSetupError: a Setup that fails after choosing a
			// Destination that would pass.
			return errors.New(e)
		}
		return nil
	}}
	if s := os.Getenv("RSCONFORM_SUITE_SCENARIOS"); s != "" {
		cfg.Scenarios = strings.Split(s, ",")
	} else if selfTest() {
		cfg.Scenarios = shorterWaits(scenario.DefaultNames())
	}
	if selfTest() {
		// flaky-server first: its waits overlap with the plays after it.
		order := slices.Clone(cfg.Scenarios)
		if len(order) == 0 {
			order = scenario.DefaultNames()
		}
		if i := slices.IndexFunc(order, func(s string) bool { return strings.Contains(s, "flaky-server") }); i > 0 {
			flaky := order[i]
			order = append([]string{flaky}, slices.Delete(order, i, i+1)...)
		}
		var err error
		if player, err = newAheadPlayer(3, order); err != nil {
			panic(err)
		}
		cfg.Play = player.Play
	}
	if err := destination.DefineSpecs(cfg); err != nil {
		panic(err)
	}
	return true
}()

func TestDestinationSuite(t *testing.T) {
	if *scenarios != "" {
		t.Fatal("-scenarios is read when the suite is defined: use RSCONFORM_SUITE_SCENARIOS")
	}
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		reporterConfig.NoColor = true
	}
	RunSpecs(t, "ResourceSync Destination conformance", suiteConfig, reporterConfig)
}
