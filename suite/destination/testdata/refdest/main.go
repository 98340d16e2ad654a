// Command refdest is rsconform's reference Destination (package
// destination) as the suite's self-test runs it: it synchronises DIR with
// SOURCE and exits 1 when a resource failed or was rejected. With
// RSCONFORM_SUITE_BROKEN=ignore-deletions it puts back every file a run
// removed: a Destination that ignores deletions.
//
// It is built without the race detector: the reference Destination's
// concurrency is checked under -race by package destination's tests, and
// a -race child costs more processor time at each of the suite's seventy
// runs.
//
//	refdest SOURCE DIR
package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	dst "github.com/rsconform/rsconform/destination"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
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
