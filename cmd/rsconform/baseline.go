package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/rsconform/rsconform/internal/fingerprint"
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
// the URL), rule and message with the line numbers it quotes ("line 6")
// replaced by "#"; the finding's own line and column are not part of it:
// moving a finding to another line, or adding lines above it, does not
// make it new. count says how many such findings are known: a further one
// with the same key is new.
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
}

// baselineKey is a finding's fingerprint, the one rsconform monitor uses
// across runs too.
type baselineKey = fingerprint.Key

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
		b[baselineKey{Document: e.Document, Rule: e.Rule, Message: fingerprint.Message(e.Message)}] += max(e.Count, 1)
	}
	return b, nil
}

// writeBaseline writes every finding of results to path.
func writeBaseline(path string, results []rules.Result) (int, error) {
	counts := fingerprint.Counts(results)
	f := baselineFile{Tool: "rsconform", Format: 1, Findings: []baselineEntry{}}
	n := 0
	for k, c := range counts {
		f.Findings = append(f.Findings, baselineEntry{Document: k.Document, Rule: k.Rule, Message: k.Message, Count: c})
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
			k := fingerprint.Of(r.Location, d)
			if left[k] > 0 {
				left[k]--
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
