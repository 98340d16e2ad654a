// Command gendocs writes docs/rules.md from the rule catalogue.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/rsconform/rsconform/rules"
)

func main() {
	out := flag.String("o", "docs/rules.md", "output file")
	flag.Parse()
	var b bytes.Buffer
	if err := rules.WriteMarkdown(&b); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
