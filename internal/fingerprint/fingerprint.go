// Package fingerprint says when two findings are the same finding: in a
// later run of the same check (--baseline), or a later run of the monitor
// (rsconform monitor), whatever lines were added above it.
//
// A finding's key is its document (as given on the command line, or the
// URL), its rule and its message with the line numbers it quotes ("line 6")
// replaced by "#"; the finding's own line and column are not part of it:
// moving a finding to another line, or adding lines above it, does not
// make it new. Equal keys are counted: a further finding with a known key
// is new.
package fingerprint

import (
	"regexp"

	"github.com/rsconform/rsconform/rules/engine"
)

// Key identifies a finding across runs.
type Key struct {
	Document string `json:"document"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
}

// lineInMessages is a line number inside a message ("listed before it
// (line 6)"), which moves with the document's lines.
var lineInMessages = regexp.MustCompile(`\b(lines?) \d+`)

// Message is msg with its line numbers replaced by "#".
func Message(msg string) string {
	return lineInMessages.ReplaceAllString(msg, "$1 #")
}

// Of is the key of finding d of the document at location.
func Of(location string, d engine.Diagnostic) Key {
	return Key{Document: location, Rule: d.Rule, Message: Message(d.Message)}
}

// Counts counts the findings of results by key.
func Counts(results []engine.Result) map[Key]int {
	counts := map[Key]int{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			counts[Of(r.Location, d)]++
		}
	}
	return counts
}
