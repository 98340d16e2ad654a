// Package destination is the Ginkgo conformance suite for ResourceSync
// Destinations.
//
// For each built-in mock Source scenario it plays the scenario against the
// Destination command (package harness), running the command after
// every step, and presents one It per step and requirement: the It fails
// with the requirement, its section, what was expected and what was found;
// it is skipped when the requirement was not judged at that step or its
// event was not observed (the message says which). Labels: Scenario:NAME,
// Level:MUST|SHOULD|POLICY, Section:5.2 (when the requirement cites a
// section of the specification), Scope:step. A failed SHOULD or POLICY
// spec fails like any other: select with --label-filter 'Level:MUST'.
//
// Run it with `go test ./suite/destination -args -destination 'CMD ARGS'`
// (or RSCONFORM_DESTINATION; without either, the suite checks rsconform's
// reference Destination), or `rsconform suite destination -- CMD ARGS`.
package destination

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/ginkgo/v2"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/suite"
)

// Config says which Destination to test and on which scenarios.
type Config struct {
	// Command is the Destination: program and arguments, with {source}
	// (the Source Description's URL), {dir} (its directory) and the
	// harness's other placeholders ({token}, {origin}, {origin2})
	// replaced.
	Command []string
	// Env is added to the command's environment.
	Env []string
	// Scenarios to play; empty means scenario.DefaultNames (every
	// built-in scenario but the volume, token and second-origin ones,
	// which are asked for by name).
	Scenarios []string
	// Dir holds one directory per scenario; empty means a temporary one.
	Dir string
	// Timeout bounds one run of the command (default 5 minutes).
	Timeout time.Duration
	// Setup, when set, runs when the suite starts and may change the config.
	Setup func(*Config) error
	// Play, when set, plays one scenario in place of harness.Run (the
	// suite's self-test plays the next scenarios while one is judged).
	Play func(context.Context, harness.Config) (*harness.Result, error)
}

// RequirementLabels are the typed labels of one requirement's specs in a
// scenario: Level:MUST|SHOULD|POLICY (the requirement's level), and
// Section: when the requirement cites a section of the specification.
func RequirementLabels(scenario string, r *harness.Requirement) ginkgo.Labels {
	ls := ginkgo.Labels{suite.ScenarioLabel + scenario, suite.ScopeLabel + "step", suite.LevelLabel + string(r.Level)}
	if rules.Section(r.Section) != nil {
		ls = append(ls, suite.SectionLabel+r.Section)
	}
	return ls
}

// DefineSpecs registers one ordered Describe per scenario with one It per
// step and requirement. It fails on an unknown scenario, a label that is not
// a known typed label, and two specs with one name.
func DefineSpecs(cfg Config) error {
	names := cfg.Scenarios
	if len(names) == 0 {
		names = scenario.DefaultNames()
	}
	known := scenario.BuiltinNames()
	seen := map[string]bool{}
	for _, name := range names {
		sc, err := scenario.Load(name)
		if err != nil {
			return err
		}
		for _, r := range harness.Requirements {
			if err := suite.CheckLabels(RequirementLabels(sc.Name, r), append(known, sc.Name)); err != nil {
				return fmt.Errorf("%s: %w", r.ID, err)
			}
		}
		defineScenario(&cfg, sc, seen)
	}
	return nil
}

func specName(step int, stepName string, r *harness.Requirement) string {
	return fmt.Sprintf("step %d (%s): %s %s %s [%s]", step, stepName, r.ID, r.Level, r.Title, r.Section)
}

func defineScenario(cfg *Config, sc *scenario.Scenario, seen map[string]bool) {
	Describe("Scenario "+sc.Name, Ordered, func() {
		var result *harness.Result
		BeforeAll(func(ctx SpecContext) {
			c := *cfg
			if c.Setup != nil {
				failOn(c.Setup(&c))
			}
			if len(c.Command) == 0 {
				Fail("no Destination command")
			}
			base := c.Dir
			if base == "" {
				base = GinkgoT().TempDir()
			}
			dir := filepath.Join(base, sc.Name)
			if err := os.RemoveAll(dir); err != nil {
				Fail(err.Error())
			}
			play := c.Play
			if play == nil {
				play = harness.Run
			}
			var err error
			result, err = play(ctx, harness.Config{Scenario: sc, Dir: dir, Command: c.Command,
				Env: c.Env, Timeout: c.Timeout, EveryStep: true, Output: GinkgoWriter})
			if err != nil {
				Fail("the scenario could not be played: " + err.Error())
			}
		}, NodeTimeout(30*time.Minute))

		stepNames := []string{"initial state"}
		for i, st := range sc.Steps {
			n := st.Name
			if n == "" {
				n = fmt.Sprintf("step %d", i+1)
			}
			stepNames = append(stepNames, n)
		}
		for step, stepName := range stepNames {
			for _, r := range harness.Requirements {
				step, r := step, r
				name := specName(step, stepName, r)
				key := sc.Name + "/" + name
				if seen[key] {
					continue
				}
				seen[key] = true
				It(name, RequirementLabels(sc.Name, r), func() {
					v, ok := verdictOf(result, step, r.ID)
					switch {
					case !ok:
						Skip("not judged at this step")
					case v.Status == harness.Fail:
						Fail(describe(sc.Name, step, v))
					case v.Status == harness.NotObserved:
						Skip("not observed: " + v.Actual)
					case v.Status == harness.Skip:
						Skip(v.Actual)
					}
				})
			}
		}
	})
}

// failOn fails the spec on a non-nil error (a tiny helper: the suite does
// not depend on Gomega; named so that it is not read as Gomega's Expect,
// which without a matcher would ignore the error).
func failOn(err error) {
	if err != nil {
		Fail(err.Error())
	}
}

func verdictOf(res *harness.Result, step int, id string) (harness.Verdict, bool) {
	if res == nil {
		return harness.Verdict{}, false
	}
	for _, s := range res.Steps {
		if s.Step != step {
			continue
		}
		for _, v := range s.Verdicts {
			if v.ID == id {
				return v, true
			}
		}
	}
	return harness.Verdict{}, false
}

// describe says what failed like h2spec: requirement, expected, actual.
func describe(scenario string, step int, v harness.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] %s: %s (scenario %s, step %d)\n", v.ID, v.Section, v.Level, v.Title, scenario, step)
	fmt.Fprintf(&b, "expected: %s\nactual:   %s\n", v.Expected, v.Actual)
	for i, d := range v.Evidence {
		if i == 20 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(v.Evidence)-20)
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	return b.String()
}
