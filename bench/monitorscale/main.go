// Command monitorscale measures rsconform monitor --once over many mock
// Sources: it serves N mock Sources (scenario baseline-resourcelist played
// to its end), each on its own port of 127.0.0.1 (so each is its own host
// for the monitor's politeness), writes their Sources file, runs the
// rsconform binary given under /usr/bin/time -v, and prints the wall
// time, the monitor's peak memory and the database's size.
//
//	go build -o /tmp/rsconform ./cmd/rsconform
//	go run ./bench/monitorscale -bin /tmp/rsconform -n 1000 -rate 2 -- --max-crawls 64
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

func main() {
	bin := flag.String("bin", "rsconform", "the rsconform binary")
	n := flag.Int("n", 1000, "mock Sources")
	rate := flag.Float64("rate", 2, "each Source's rate (requests/s)")
	sample := flag.String("sample", "10", "each Source's sample")
	scenario := flag.String("scenario", "baseline-resourcelist", "the mock's scenario")
	runs := flag.Int("runs", 1, "monitor --once runs, one after the other, on one database")
	flag.Parse()
	if err := run(*bin, *n, *rate, *sample, *scenario, *runs, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "monitorscale:", err)
		os.Exit(2)
	}
}

func run(bin string, n int, rate float64, sample, scenarioName string, runs int, extra []string) error {
	sc, err := scenario.Load(scenarioName)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "monitorscale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var yaml strings.Builder
	yaml.WriteString("sources:\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < n; i++ {
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		if err != nil {
			return err
		}
		if err := src.PlayToEnd(); err != nil {
			return err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: src.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(&yaml, "  - name: s%04d\n    url: http://%s/\n    rate: %g\n    sample: %s\n", i, ln.Addr(), rate, sample)
	}
	sources := filepath.Join(dir, "sources.yaml")
	if err := os.WriteFile(sources, []byte(yaml.String()), 0o644); err != nil {
		return err
	}
	db := filepath.Join(dir, "monitor.db")
	for r := 1; r <= runs; r++ {
		args := append([]string{"-v", bin, "monitor", "--once", "--sources", sources, "--db", db}, extra...)
		cmd := exec.CommandContext(ctx, "/usr/bin/time", args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			return err
		}
		size := int64(0)
		for _, suffix := range []string{"", "-wal"} {
			if st, err := os.Stat(db + suffix); err == nil {
				size += st.Size()
			}
		}
		lines := strings.Count(out.String(), "\n")
		fmt.Printf("run %d: %d Sources, exit %d, %d lines; wall %s, user %ss, sys %ss, peak RSS %s kB; database %.1f MB\n",
			r, n, code, lines, field(errb.String(), `Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)`),
			field(errb.String(), `User time \(seconds\): (\S+)`), field(errb.String(), `System time \(seconds\): (\S+)`),
			field(errb.String(), `Maximum resident set size \(kbytes\): (\d+)`), float64(size)/1e6)
		if code == 2 {
			// The monitor's own lines, not time's.
			var said []string
			for _, l := range strings.Split(errb.String(), "\n") {
				if strings.HasPrefix(l, "rsconform monitor:") {
					said = append(said, l)
				}
			}
			fmt.Fprintln(os.Stderr, lastLines(strings.Join(said, "\n"), 20))
		}
	}
	return nil
}

func field(s, re string) string {
	if m := regexp.MustCompile(re).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
