// Command gendocs writes docs/destination.md from the Destination
// requirements.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/rsconform/rsconform/harness"
)

func main() {
	out := flag.String("o", "docs/destination.md", "output file")
	flag.Parse()
	var b bytes.Buffer
	if err := harness.WriteMarkdown(&b); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
