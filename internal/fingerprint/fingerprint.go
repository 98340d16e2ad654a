// Package fingerprint says when two findings are the same finding: in a
// later run of the same check (--baseline), or a later run of the monitor
// (rsconform monitor), whatever lines were added above it.
//
// A finding's key is its document (as given on the command line, or the
// URL), its rule and its message with its numbers replaced by "#" (the
// line numbers it quotes, "line 6", and the counts of grouped messages,
// which grow as a live Source's lists do); the finding's own line and
// column are not part of it. Equal keys are counted: a further finding
// with a known key is new.
//
// A finding about sampled resources (the RS-REP-* rules, and the results
// of kind resource a crawl reports) is Sampled: which resources a crawl
// samples, and so how many such findings it has and on which resource,
// changes from crawl to crawl. Its key leaves out the URLs and digests of
// its message (and a resource's own location), and its count says nothing.
package fingerprint

import (
	"regexp"
	"strings"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Key identifies a finding across runs.
type Key struct {
	Document string `json:"document"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Sampled  bool   `json:"sampled,omitempty"`
}

// Parts of messages that are not part of a finding's key.
var (
	// numbersInMessages are the line numbers and counts of a message.
	numbersInMessages = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+`) })
	// urlsInMessages and digestsInMessages are what names one resource
	// among others in a message about a sampled resource.
	urlsInMessages    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`) })
	digestsInMessages = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Za-z0-9+/_=-]{16,}`) })
)

// Message is msg with its numbers replaced by "#".
func Message(msg string) string {
	return numbersInMessages().ReplaceAllString(msg, "#")
}

// sampled reports whether a finding is about a sampled resource.
func sampled(r *engine.Result, d engine.Diagnostic) bool {
	return r.Kind == rs.KindResource || strings.HasPrefix(d.Rule, "RS-REP-")
}

// Of is the key of finding d of r.
func Of(r *engine.Result, d engine.Diagnostic) Key {
	if !sampled(r, d) {
		return Key{Document: r.Location, Rule: d.Rule, Message: Message(d.Message)}
	}
	doc := r.Location
	if r.Kind == rs.KindResource {
		doc = ""
	}
	msg := urlsInMessages().ReplaceAllString(d.Message, "URL")
	msg = digestsInMessages().ReplaceAllString(msg, "DIGEST")
	return Key{Document: doc, Rule: d.Rule, Message: Message(msg), Sampled: true}
}

// Counts counts the findings of results by key.
func Counts(results []engine.Result) map[Key]int {
	counts := map[Key]int{}
	for i := range results {
		for _, d := range results[i].Diagnostics {
			counts[Of(&results[i], d)]++
		}
	}
	return counts
}
