package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
)

const explainUsage = `Usage: rsconform explain RULE-ID

Prints a rule's title, level, section, the sentence of the specification it
enforces, how rsconform reads it, and a failing and a passing example (from
the fixtures that test the rule). For a Destination requirement (DEST-*,
judged by test-destination): the sentence its level rests on, why, what
passes and what fails.

Examples:
  rsconform explain RS-CL-ORDER
  rsconform explain rs-link-up
  rsconform explain DEST-FIXITY
`

func init() {
	register("explain", "explain a rule, with a failing and a passing example", runExplain)
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("explain", flag.ContinueOnError)
	fset.SetOutput(stderr)
	printUsage := func(w io.Writer) {
		fset.SetOutput(w)
		fmt.Fprint(fset.Output(), explainUsage)
	}
	fset.Usage = func() {} // Parse reports bad flags; help goes to stdout, once
	args, err := parseFlags(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "see 'rsconform %s --help'\n", fset.Name())
		return 2
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "rsconform explain: give one rule ID (see 'rsconform rules')")
		return 2
	}
	id := strings.ToUpper(args[0])
	if dr := harness.RequirementByID(id); dr != nil {
		explainRequirement(stdout, dr)
		return 0
	}
	r := engine.Lookup(id)
	if r == nil {
		var ids []string
		for _, r := range engine.All() {
			ids = append(ids, r.ID)
		}
		for _, r := range harness.Requirements {
			ids = append(ids, r.ID)
		}
		fmt.Fprintf(stderr, "rsconform explain: no rule %q%s (see 'rsconform rules')\n", args[0], suggest.DidYouMean(strings.ToUpper(args[0]), ids))
		return 2
	}
	fmt.Fprintf(stdout, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(stdout, "Level:    %s (findings are %ss)\n", r.Level, r.Level.Severity())
	sec := r.Section
	if s := rules.Section(r.Section); s != nil {
		sec += " " + s.Title
	}
	fmt.Fprintf(stdout, "Section:  %s\n", sec)
	if len(r.Applies) > 0 {
		var ks []string
		for _, k := range r.Applies {
			ks = append(ks, string(k))
		}
		fmt.Fprintf(stdout, "Applies:  %s\n", strings.Join(ks, ", "))
	}
	if len(r.Specs) > 0 {
		var ss []string
		for _, s := range r.Specs {
			ss = append(ss, string(s))
		}
		fmt.Fprintf(stdout, "Specs:    %s\n", strings.Join(ss, ", "))
	}
	if r.IsGraph() {
		fmt.Fprintln(stdout, "Scope:    across documents (rsconform crawl)")
	}
	if r.English != "" {
		fmt.Fprintf(stdout, "\nThe specification says (in English):\n%s\n", indent(wrap(r.English, 76), "  > "))
	}
	if r.Quote != "" {
		label := "The specification says"
		if r.English != "" {
			label = "In the original"
		}
		fmt.Fprintf(stdout, "\n%s:\n%s\n", label, indent(wrap(r.Quote, 76), "  > "))
	}
	if r.Doc != "" {
		fmt.Fprintf(stdout, "\nHow rsconform reads it:\n%s\n", indent(wrap(r.Doc, 78), "  "))
	}
	if fail, pass, err := fixtures.Examples(r.ID); err == nil {
		printExample(stdout, "Failing example", fail)
		printExample(stdout, "Passing example", pass)
	}
	return 0
}

// explainRequirement prints a Destination requirement.
func explainRequirement(w io.Writer, r *harness.Requirement) {
	fmt.Fprintf(w, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(w, "Level:    %s\n", r.Level)
	sec := r.Section
	if s := rules.Section(r.Section); s != nil {
		sec += " " + s.Title
	}
	fmt.Fprintf(w, "Section:  %s\n", sec)
	fmt.Fprintf(w, "Judged:   after each run of the Destination (rsconform test-destination), from %s\n", r.Basis)
	if r.Quote != "" {
		fmt.Fprintf(w, "\nThe sentence its level rests on:\n%s\n", indent(wrap(r.Quote, 76), "  > "))
	}
	switch {
	case r.Reading != "":
		fmt.Fprintf(w, "\nWhy %s:\n%s\n", r.Level, indent(wrap(r.Reading, 78), "  "))
	case r.Level == harness.Policy:
		fmt.Fprintf(w, "\nWhy POLICY:\n  No standard states it: it fails a run only with --strict.\n")
	}
	fmt.Fprintf(w, "\nPasses:\n%s\n", indent(wrap(r.Passes, 78), "  "))
	fmt.Fprintf(w, "\nFails:\n%s\n", indent(wrap(r.Fails, 78), "  "))
	if r.Doc != "" {
		fmt.Fprintf(w, "\nHow the harness judges it:\n%s\n", indent(wrap(r.Doc, 78), "  "))
	}
	fmt.Fprintf(w, "\nMore: %s\n", harness.DocURL(r.ID))
}

func printExample(w io.Writer, title string, f *fixtures.Fixture) {
	if f == nil {
		return
	}
	fmt.Fprintf(w, "\n%s (fixtures/%s):\n%s\n", title, f.Path, indent(string(f.Data), "  "))
}

// wrap breaks text into lines of at most width columns at spaces.
func wrap(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				out = append(out, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
