package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
)

// A baseline is the set of findings a project has accepted, so that CI
// fails only on new ones (--baseline FILE). The file is JSON:
//
//	{"tool": "rsconform", "format": 1,
//	 "findings": [{"document": "build/site/changelist.xml", "rule": "RS-CL-ORDER",
//	               "message": "change time … (line #): …", "count": 2}]}
//
// A finding matches an entry by document (as given on the command line, or
// the URL), rule and message with its numbers replaced by "#" (the line
// numbers it quotes, "line 6", and the counts of grouped messages, "3
// datetime attributes", which grow as a live Source's lists do); the
// finding's own line and column are not part of it: moving a finding to
// another line, or adding lines above it, does not make it new. count says
// how many such findings are known: a further one with the same key is new.
//
// A finding about sampled resources (the RS-REP-* rules, and the results
// of kind "resource" a crawl reports) is marked "sampled": which resources
// a crawl samples, and so how many such findings it has and on which
// resource, changes from crawl to crawl of a live Source. Its key leaves
// out the URLs and digests of its message (and the resource's own URL as
// document), and it matches any number of findings: an entry accepts that
// kind of fault in that list, as sampling sees it.
type baselineFile struct {
	Tool     string          `json:"tool"`
	Format   int             `json:"format"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Document string `json:"document"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Count    int    `json:"count"`
	Sampled  bool   `json:"sampled,omitempty"`
}

type baselineKey struct {
	document, rule, message string
	sampled                 bool
}

// Parts of messages that are not part of a finding's key.
var (
	// numbersInMessages are the line numbers and counts of a message.
	numbersInMessages = regexp.MustCompile(`\d+`)
	// urlsInMessages and digestsInMessages are what names one resource
	// among others in a message about a sampled resource.
	urlsInMessages    = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	digestsInMessages = regexp.MustCompile(`\b[A-Za-z0-9+/_=-]{16,}`)
)

// baselineMessage is a message with its numbers replaced by "#".
func baselineMessage(msg string) string {
	return numbersInMessages.ReplaceAllString(msg, "#")
}

// sampledFinding reports whether a finding is about a sampled resource.
func sampledFinding(r *rules.Result, d rules.Diagnostic) bool {
	return r.Kind == rs.KindResource || strings.HasPrefix(d.Rule, "RS-REP-")
}

// keyOf is the baseline key of a finding of r.
func keyOf(r *rules.Result, d rules.Diagnostic) baselineKey {
	if !sampledFinding(r, d) {
		return baselineKey{r.Location, d.Rule, baselineMessage(d.Message), false}
	}
	doc := r.Location
	if r.Kind == rs.KindResource {
		doc = ""
	}
	msg := urlsInMessages.ReplaceAllString(d.Message, "URL")
	msg = digestsInMessages.ReplaceAllString(msg, "DIGEST")
	return baselineKey{doc, d.Rule, baselineMessage(msg), true}
}

// baseline counts known findings by key.
type baseline map[baselineKey]int

func readBaseline(path string) (baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f baselineFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a baseline file: %w", path, err)
	}
	if f.Tool != "rsconform" || f.Format != 1 {
		return nil, fmt.Errorf("%s: not an rsconform baseline (format 1)", path)
	}
	b := baseline{}
	for _, e := range f.Findings {
		b[baselineKey{e.Document, e.Rule, baselineMessage(e.Message), e.Sampled}] += max(e.Count, 1)
	}
	return b, nil
}

// writeBaseline writes every finding of results to path.
func writeBaseline(path string, results []rules.Result) (int, error) {
	counts := map[baselineKey]int{}
	for i := range results {
		for _, d := range results[i].Diagnostics {
			counts[keyOf(&results[i], d)]++
		}
	}
	f := baselineFile{Tool: "rsconform", Format: 1, Findings: []baselineEntry{}}
	n := 0
	for k, c := range counts {
		f.Findings = append(f.Findings, baselineEntry{Document: k.document, Rule: k.rule, Message: k.message, Count: c, Sampled: k.sampled})
		n += c
	}
	sort.Slice(f.Findings, func(i, j int) bool {
		a, b := f.Findings[i], f.Findings[j]
		if a.Document != b.Document {
			return a.Document < b.Document
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return 0, err
	}
	return n, os.WriteFile(path, append(data, '\n'), 0o644)
}

// filter removes the known findings from results (in place) and returns
// how many it removed. A document whose error findings were all known
// becomes valid; a document that could not be processed because of
// findings that were all known is skipped, saying so; one that could not
// be processed for another reason (no answer, no file) stays in error.
func (b baseline) filter(results []rules.Result) int {
	left := map[baselineKey]int{}
	for k, v := range b {
		left[k] = v
	}
	removed := 0
	for i := range results {
		r := &results[i]
		kept := r.Diagnostics[:0]
		for _, d := range r.Diagnostics {
			k := keyOf(r, d)
			if left[k] > 0 {
				if !k.sampled {
					// A sampled finding's entry accepts any number.
					left[k]--
				}
				removed++
				continue
			}
			kept = append(kept, d)
		}
		had := len(r.Diagnostics) > 0
		r.Diagnostics = kept
		switch {
		case r.Status == rules.StatusInvalid:
			r.Status = ""
			r.Finish()
		case r.Status == rules.StatusError && had && len(kept) == 0:
			// A document that could not be checked for a finding the
			// baseline accepts (not well-formed, too large): the known
			// finding does not make the run fail (exit 2); the document
			// is reported as not checked, and why.
			r.Status = rules.StatusSkipped
			r.Error = "not checked, its finding is in the baseline: " + r.Error
		}
	}
	return removed
}
