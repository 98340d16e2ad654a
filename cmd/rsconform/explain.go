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

// explainConfig is what 'rsconform explain' was asked to explain: a
// rule of the catalogue or a Destination requirement.
type explainConfig struct {
	rule        *engine.Rule
	requirement *harness.Requirement
}

// explainConfigFromFlags reads the ID to explain and finds its rule or
// requirement.
func explainConfigFromFlags(args []string, stderr io.Writer) (*explainConfig, error) {
	fset := flag.NewFlagSet("explain", flag.ContinueOnError)
	fset.SetOutput(stderr)
	args, err := parseCommandLine(fset, args, explainUsage, seeHelp("see 'rsconform explain --help'"))
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, errors.New("rsconform explain: give one rule ID (see 'rsconform rules')")
	}
	id := strings.ToUpper(args[0])
	c := &explainConfig{requirement: harness.RequirementByID(id), rule: engine.Lookup(id)}
	if c.requirement != nil {
		c.rule = nil
	} else if c.rule == nil {
		var ids []string
		for _, r := range engine.All() {
			ids = append(ids, r.ID)
		}
		for _, r := range harness.Requirements {
			ids = append(ids, r.ID)
		}
		return nil, fmt.Errorf("rsconform explain: no rule %q%s (see 'rsconform rules')", args[0], suggest.DidYouMean(id, ids))
	}
	return c, nil
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := explainConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	if c.requirement != nil {
		explainRequirement(stdout, c.requirement)
	} else {
		explainRule(stdout, c.rule)
	}
	return 0
}

// explainRule prints a rule of the catalogue.
func explainRule(w io.Writer, r *engine.Rule) {
	fmt.Fprintf(w, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(w, "Level:    %s (findings are %ss)\n", r.Level, r.Level.Severity())
	sec := r.Section
	if s := rules.Section(r.Section); s != nil {
		sec += " " + s.Title
	}
	fmt.Fprintf(w, "Section:  %s\n", sec)
	if len(r.Applies) > 0 {
		var ks []string
		for _, k := range r.Applies {
			ks = append(ks, string(k))
		}
		fmt.Fprintf(w, "Applies:  %s\n", strings.Join(ks, ", "))
	}
	if len(r.Specs) > 0 {
		var ss []string
		for _, s := range r.Specs {
			ss = append(ss, string(s))
		}
		fmt.Fprintf(w, "Specs:    %s\n", strings.Join(ss, ", "))
	}
	if r.IsGraph() {
		fmt.Fprintln(w, "Scope:    across documents (rsconform crawl)")
	}
	if r.English != "" {
		fmt.Fprintf(w, "\nThe specification says (in English):\n%s\n", indent(wrap(r.English, 76), "  > "))
	}
	if r.Quote != "" {
		label := "The specification says"
		if r.English != "" {
			label = "In the original"
		}
		fmt.Fprintf(w, "\n%s:\n%s\n", label, indent(wrap(r.Quote, 76), "  > "))
	}
	if why := rules.LevelReason(r.ID); why != "" {
		fmt.Fprintf(w, "\nWhy %s:\n%s\n", r.Level, indent(wrap(why, 78), "  "))
	}
	if r.Doc != "" {
		fmt.Fprintf(w, "\nHow rsconform reads it:\n%s\n", indent(wrap(r.Doc, 78), "  "))
	}
	if fail, pass, err := fixtures.Examples(r.ID); err == nil {
		printExample(w, "Failing example", fail)
		printExample(w, "Passing example", pass)
	}
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
	if why := r.Why(); why != "" {
		fmt.Fprintf(w, "\nWhy %s:\n%s\n", r.Level, indent(wrap(why, 78), "  "))
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
	return strings.Join(wrapText(s, width), "\n")
}
