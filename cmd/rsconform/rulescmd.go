package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rsconform/rsconform/rules/engine"
)

const rulesUsage = `Usage: rsconform rules [--rules GLOBS] [--spec 1.1|1.0]

Lists the rule catalogue: ID, level, section, title. Levels: MUST findings
are errors, SHOULD findings warnings, INFO findings hints.

Examples:
  rsconform rules
  rsconform rules --rules 'RS-CL-*'

Flags:
`

func runRules(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("rules", flag.ContinueOnError)
	fset.SetOutput(stderr)
	globs := fset.String("rules", "", "only rules matching `GLOBS`")
	spec := fset.String("spec", "", "only rules of this spec version (1.1 or 1.0)")
	printUsage := func(w io.Writer) {
		fset.SetOutput(w)
		fmt.Fprint(fset.Output(), rulesUsage)
		fset.PrintDefaults()
	}
	fset.Usage = func() {} // Parse reports bad flags; help goes to stdout, once
	if _, err := parseFlags(fset, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "see 'rsconform %s --help'\n", fset.Name())
		return 2
	}
	sel, err := engine.ParseSelector(*globs)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform rules:", err)
		return 2
	}
	var onlySpec engine.Spec
	if *spec != "" {
		if onlySpec, err = engine.ParseSpec(*spec); err != nil {
			fmt.Fprintln(stderr, "rsconform rules:", err)
			return 2
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tSECTION\tTITLE")
	n := 0
	for _, r := range engine.All() {
		if !sel.Selects(r.ID) || (onlySpec != "" && len(r.Specs) > 0 && !specIn(r.Specs, onlySpec)) {
			continue
		}
		title := r.Title
		if len(r.Specs) > 0 {
			var s []string
			for _, v := range r.Specs {
				s = append(s, string(v))
			}
			title += " (spec " + strings.Join(s, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Section, title)
		n++
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%d rules\n", n)
	return 0
}

func specIn(specs []engine.Spec, s engine.Spec) bool {
	for _, v := range specs {
		if v == s {
			return true
		}
	}
	return false
}
