package destination_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-isatty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	dst "github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/suite/destination"
)

var (
	command   = flag.String("destination", "", "the Destination command, with {source} and {dir} (default: $RSCONFORM_DESTINATION, else rsconform's reference Destination)")
	scenarios = flag.String("scenarios", "", "comma-separated scenarios (default: every built-in one but large-source)")
)

// TestMain lets this test binary act as a Destination: with
// RSCONFORM_SUITE_SYNC set it synchronises {dir} with {source} using the
// reference Destination (and, with RSCONFORM_SUITE_BROKEN=ignore-deletions,
// puts back every file a run removed: a Destination that ignores deletions).
//
// The Destinations it starts are this binary: built with -race, each would
// wait a second before exiting 0 (the race runtime's atexit_sleep_ms,
// default 1000) for goroutines still running to report a race, and the
// suite starts one about seventy times; GORACE tells them not to wait.
func TestMain(m *testing.M) {
	if os.Getenv("RSCONFORM_SUITE_SYNC") != "" {
		os.Exit(syncMain(os.Args[1:]))
	}
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

func syncMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: SOURCE DIR")
		return 2
	}
	dir := args[1]
	before := map[string][]byte{}
	broken := os.Getenv("RSCONFORM_SUITE_BROKEN") == "ignore-deletions"
	if broken {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, ".rsconform") {
				if data, err := os.ReadFile(p); err == nil {
					before[p] = data
				}
			}
			return nil
		})
	}
	// Warnings on standard error, as rsconform sync prints them: how the
	// reference reports a broken document it recovers from.
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "sync: warning: "+f+"\n", a...) }
	rep, err := dst.Run(context.Background(), dst.Options{Source: args[0], Dir: dir, Logf: logf})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sync:", err)
		return 2
	}
	for p, data := range before {
		if _, err := os.Stat(p); os.IsNotExist(err) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, data, 0o644)
		}
	}
	if rep.Failed > 0 || rep.Rejected > 0 {
		return 1
	}
	return 0
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
		// Self-test: the reference Destination, as this very binary.
		c.Command = []string{os.Args[0], "{source}", "{dir}"}
		c.Env = []string{"RSCONFORM_SUITE_SYNC=1"}
		if b := os.Getenv("RSCONFORM_SUITE_BROKEN_CHILD"); b != "" {
			c.Env = append(c.Env, "RSCONFORM_SUITE_BROKEN="+b)
		}
		return nil
	}}
	if s := os.Getenv("RSCONFORM_SUITE_SCENARIOS"); s != "" {
		cfg.Scenarios = strings.Split(s, ",")
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
