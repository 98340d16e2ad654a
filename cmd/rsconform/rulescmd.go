package main

import (
	"context"
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

// rulesConfig is what 'rsconform rules' was asked to list.
type rulesConfig struct {
	selector engine.Selector
	spec     engine.Spec // "" every version
}

// rulesConfigFromFlags reads rules' flags.
func rulesConfigFromFlags(args []string, stderr io.Writer) (*rulesConfig, error) {
	fset := flag.NewFlagSet("rules", flag.ContinueOnError)
	fset.SetOutput(stderr)
	globs := fset.String("rules", "", "only rules matching `GLOBS`")
	spec := fset.String("spec", "", "only rules of this spec version (1.1 or 1.0)")
	if _, err := parseCommandLine(fset, args, rulesUsage, seeHelp("see 'rsconform rules --help'")); err != nil {
		return nil, err
	}
	c := &rulesConfig{}
	var err error
	if c.selector, err = engine.ParseSelector(*globs); err != nil {
		return nil, usageError("rules", err)
	}
	if *spec != "" {
		if c.spec, err = engine.ParseSpec(*spec); err != nil {
			return nil, usageError("rules", err)
		}
	}
	return c, nil
}

func runRules(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := rulesConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	sel, onlySpec := c.selector, c.spec
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
