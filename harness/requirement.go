package harness

import (
	"fmt"
	"strings"

	"github.com/rsconform/rsconform/internal/speckeyword"
	"github.com/rsconform/rsconform/rules/engine"
)

// Level is how strongly a Destination is held to a requirement.
type Level string

const (
	// Must: the specification's MUST, or what its "synchronized" means
	// for a Destination that keeps a copy (coverage and accuracy, 5.2).
	Must Level = "MUST"
	// Should: behaviour the specification or the HTTP RFCs recommend.
	Should Level = "SHOULD"
	// Policy: good practice the specification does not state (politeness,
	// efficiency, telling its user about a broken Source). Never fails a
	// run unless --strict.
	Policy Level = "POLICY"
)

// Levels are the levels, strongest first.
var Levels = []Level{Must, Should, Policy}

// Fails reports whether a failed verdict of this level fails the run:
// MUST always, SHOULD and POLICY only when strict.
func (l Level) Fails(strict bool) bool { return l == Must || strict }

// Basis is what a requirement is judged from.
type Basis int

const (
	// FromRun: the run itself (exit code, time, output).
	FromRun Basis = iota + 1
	// FromDir: the files in DIR after the run. Not judged after a run
	// that failed (DEST-RUN): what a crashed run left says nothing.
	FromDir
	// FromLog: the mock Source's request log of the run. Not judged when
	// the log overflowed.
	FromLog
)

// Requirement is one thing a Destination is judged on after each run, a
// value like the document rules of package rules.
type Requirement struct {
	// ID is stable and readable: DEST-<NAME>. Never renumbered or reused.
	ID string
	// Section of the specification ("5.2"), or of another standard
	// ("RFC 9110 10.2.3"), or "policy" when no standard states it.
	Section string
	Level   Level
	// Title says what holds when the requirement passes.
	Title string
	// Quote is the sentence the level comes from: for a MUST one with
	// "must", for a SHOULD one with a recommendation ("should", "ought
	// to", "recommended"). A requirement no sentence states is a POLICY
	// (its Quote, if any, is context).
	Quote string
	// Reading says why the Quote gives this level where the reading is
	// arguable (the harness reads 5.2's Audit, an ability, as the state
	// of the copy).
	Reading string
	// Passes and Fails say, in a sentence each, what passes and what
	// fails (rsconform explain, docs/destination.md).
	Passes, Fails string
	// Doc explains how the harness reads the requirement, and what counts
	// as evidence.
	Doc   string
	Basis Basis
	// UpToDate marks the requirements that a copy has caught up with the
	// Source (coverage and accuracy of DIR). They are not judged after a
	// run that stopped with a non-zero exit on what the Source served
	// broken: the Destination reported that it could not catch up, and no
	// requirement makes it retry a broken document or a failing server.
	// What it wrote (no extra file, no content failing fixity) is judged.
	UpToDate bool
	// Check judges one run. It returns Pass only with evidence: what the
	// log or DIR shows; a requirement that waits for an event which did
	// not happen returns NotObserved.
	Check func(*Step) Outcome
}

// Outcome is what a Check found.
type Outcome struct {
	Status   Status
	Expected string
	Actual   string
	// Evidence lists what the verdict rests on: requests of the log
	// ("GET /res/1.txt 200"), files of DIR, lines of the output.
	Evidence []string
}

// Why says why the requirement has its level, after "Why LEVEL:" in
// docs/destination.md, rsconform explain and the SARIF rule's help: its
// Reading; for a POLICY without one, that no standard states it; "" for a
// MUST or SHOULD whose Quote says it plainly.
func (r *Requirement) Why() string {
	switch {
	case r.Reading != "":
		return r.Reading
	case r.Level == Policy:
		return "No standard states it: it fails a run only with --strict."
	}
	return ""
}

// checkRequirement reports what is wrong with a requirement value.
func checkRequirement(r *Requirement) error {
	switch {
	case !engine.WellFormedID(r.ID, "DEST"):
		return fmt.Errorf("requirement ID %q is malformed (want DEST-NAME)", r.ID)
	case strings.TrimSpace(r.Title) == "", strings.TrimSpace(r.Section) == "":
		return fmt.Errorf("requirement %s has no Title or Section", r.ID)
	case r.Level != Must && r.Level != Should && r.Level != Policy:
		return fmt.Errorf("requirement %s has no Level", r.ID)
	case r.Basis < FromRun || r.Basis > FromLog:
		return fmt.Errorf("requirement %s has no Basis", r.ID)
	case r.Check == nil:
		return fmt.Errorf("requirement %s has a nil Check", r.ID)
	case r.Passes == "" || r.Fails == "":
		return fmt.Errorf("requirement %s does not say what passes and what fails", r.ID)
	case r.Level == Must && !speckeyword.Carries(r.Quote, speckeyword.Must):
		return fmt.Errorf("requirement %s is a MUST without a sentence saying must", r.ID)
	case r.Level == Should && !speckeyword.Carries(r.Quote, speckeyword.Should):
		return fmt.Errorf("requirement %s is a SHOULD without a sentence recommending it", r.ID)
	}
	return nil
}

// Requirements lists the requirements in the order they are judged (the
// run first: the others depend on it).
var Requirements = []*Requirement{
	RunCompletes, AllPresent, AllCurrent, DeletedRemoved, NoExtraFiles, FixityChecked,
	RetryAfterHonoured, ProblemsReported, NoRefetch, NoDeletedFetch, RateLimit,
	TokenSent,
}

func init() {
	seen := map[string]bool{}
	for _, r := range Requirements {
		if err := checkRequirement(r); err != nil {
			panic("harness: " + err.Error())
		}
		if seen[r.ID] {
			panic("harness: requirement " + r.ID + " listed twice")
		}
		seen[r.ID] = true
	}
}

// RequirementByID returns the requirement with this ID, or nil.
func RequirementByID(id string) *Requirement {
	for _, r := range Requirements {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// ParseSelector parses --rules for Destination requirements: comma-separated
// ID globs, each optionally preceded by '-' to remove ("DEST-*,-DEST-RATE").
// A pattern that matches no requirement is an error.
func ParseSelector(spec string) (engine.Selector, error) {
	ids := make([]string, len(Requirements))
	for i, r := range Requirements {
		ids[i] = r.ID
	}
	return engine.ParseSelectorOf(spec, ids, "Destination requirement (DEST-*)")
}
