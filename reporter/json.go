package reporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// JSONReport is the json format. It is a contract: programs parse it in
// CI, so names, nesting and meanings below only ever gain optional
// members; nothing is renamed, removed or changes meaning.
//
// The report is one JSON object, written as the documents come (each at
// its Write, the summary at Flush, so that a report of many findings is
// never whole in memory), pretty-printed with two-space indentation, UTF-8 (invalid bytes in
// messages become U+FFFD):
//
//	{
//	  "tool": "rsconform",
//	  "version": "1.2.0",
//	  "spec": "1.1",
//	  "strict": false,
//	  "documents": [
//	    {
//	      "location": "https://example.com/changelist.xml",
//	      "kind": "changelist",
//	      "status": "invalid",
//	      "findings": [
//	        {
//	          "rule": "RS-CL-ORDER",
//	          "severity": "error",
//	          "section": "12.1",
//	          "message": "…",
//	          "line": 12,
//	          "column": 3,
//	          "related": [{"url": "https://example.com/changelist.xml", "line": 10, "column": 3}]
//	        }
//	      ]
//	    }
//	  ],
//	  "summary": {
//	    "documents": 1, "valid": 0, "invalid": 1, "unprocessed": 0, "skipped": 0,
//	    "errors": 1, "warnings": 0, "infos": 0
//	  }
//	}
//
// Top level, all always present:
//   - tool (string): "rsconform".
//   - version (string): the version of the tool.
//   - spec (string): the specification profile checked, "1.1" or "1.0".
//   - strict (boolean): whether warnings fail the run (--strict).
//   - documents (array): one object per document, in the order they were
//     checked; [] when there is none, never null.
//   - summary (object): the counts below.
//
// A document:
//   - location (string, always): the URL or file name of the document.
//   - kind (string, always): what the document is, such as "resourcelist",
//     "changelist-index" or "resourcedump-manifest"; "unknown" when it
//     could not be told.
//   - status (string, always): "valid" (no error finding), "invalid" (at
//     least one error finding), "error" (the document could not be
//     processed: fetch failed, unreadable, not well-formed XML) or
//     "skipped" (deliberately not processed).
//   - findings (array, always): [] when there is none, never null; ordered
//     by line, column, then rule.
//   - error (string, optional): why the document could not be processed;
//     present with status "error" (and possibly "skipped").
//   - parent (string, optional): when crawling, the document that led to
//     this one.
//   - children (array of strings, optional): when crawling, the documents
//     this one leads to.
//   - omitted (array, optional): the findings not listed in findings
//     because their rule already has --max-findings-per-rule of them in
//     this document, one object per rule and severity: rule, severity,
//     section (as a finding's) and count (integer, at least 1). They are
//     counted in the summary like the findings listed.
//
// A finding:
//   - rule (string, always): the stable rule ID, such as "RS-CL-ORDER".
//   - severity (string, always): "error" (a MUST), "warning" (a SHOULD) or
//     "info".
//   - section (string, always): the section of the specification, such as
//     "12.1".
//   - message (string, always): what is wrong, for people.
//   - line, column (integers, always): where in the document, from 1; 0
//     when unknown.
//   - related (array, optional): other places the finding involves, each
//     with "url" or "file" (the document's URL or file name), and "line"
//     and "column" (always present, 0 when unknown).
//
// The summary, all integers and always present:
//   - documents: the number of documents.
//   - valid, invalid, unprocessed, skipped: the documents of each status;
//     "unprocessed" counts status "error" (named so, not "errors", because
//     "errors" counts findings). They add up to documents.
//   - errors, warnings, infos: the findings of each severity, over all
//     documents.
//
// The core of the contract, as the style guide first fixed it, is tool,
// version, spec, documents (location, kind, status, findings with rule,
// severity, section, message, line, column) and summary (documents,
// errors, warnings, infos); the other members were added without breaking
// it. A consumer should ignore members it does not know: later versions may
// add more.
type JSONReport struct {
	Tool      string         `json:"tool"`
	Version   string         `json:"version"`
	Spec      string         `json:"spec"`
	Strict    bool           `json:"strict"`
	Documents []JSONDocument `json:"documents"`
	Summary   JSONSummary    `json:"summary"`
	// Sampling is set by crawls that sample resources (optional).
	Sampling *JSONSampling `json:"sampling,omitempty"`
}

// JSONDocument is one document of a JSONReport.
type JSONDocument struct {
	Location string        `json:"location"`
	Kind     string        `json:"kind"`
	Status   string        `json:"status"`
	Findings []JSONFinding `json:"findings"`
	Error    string        `json:"error,omitempty"`
	Parent   string        `json:"parent,omitempty"`
	Children []string      `json:"children,omitempty"`
	// Omitted counts the findings not listed, by rule (optional).
	Omitted []JSONOmitted `json:"omitted,omitempty"`
}

// JSONOmitted is one rule's findings a JSONDocument does not list (they
// are beyond --max-findings-per-rule): how many there are.
type JSONOmitted struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Section  string `json:"section"`
	Count    int    `json:"count"`
}

// JSONFinding is one finding of a JSONDocument.
type JSONFinding struct {
	Rule     string         `json:"rule"`
	Severity string         `json:"severity"`
	Section  string         `json:"section"`
	Message  string         `json:"message"`
	Line     int            `json:"line"`
	Column   int            `json:"column"`
	Related  []JSONLocation `json:"related,omitempty"`
}

// JSONLocation is a related location of a JSONFinding.
type JSONLocation struct {
	URL    string `json:"url,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// JSONSummary is the summary of a JSONReport.
type JSONSummary struct {
	Documents   int `json:"documents"`
	Valid       int `json:"valid"`
	Invalid     int `json:"invalid"`
	Unprocessed int `json:"unprocessed"`
	Skipped     int `json:"skipped"`
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	Infos       int `json:"infos"`
	// Resources counts the sampled resources a finding is about (results
	// of kind "resource"), which are not documents.
	Resources int `json:"resources,omitempty"`
}

type jsonReporter struct {
	once
	w   io.Writer
	rep JSONReport // its Documents are written as they come, not kept
	sum Summary
	n   int // documents written
}

func newJSON(w io.Writer, o Options) *jsonReporter {
	return &jsonReporter{w: w, rep: JSONReport{
		Tool: o.Tool, Version: o.Version, Spec: specOf(o), Strict: o.Strict,
		Documents: []JSONDocument{},
	}}
}

// jsonDocumentOf converts a Result to its JSON form, copying everything so
// that the Result may change afterwards.
func jsonDocumentOf(r engine.Result) JSONDocument {
	d := JSONDocument{
		Location: r.Location,
		Kind:     kindOf(r),
		Status:   string(statusOf(r)),
		Findings: make([]JSONFinding, 0, len(r.Diagnostics)),
		Error:    r.Error,
		Parent:   r.Parent,
	}
	if len(r.Children) > 0 {
		d.Children = append([]string(nil), r.Children...)
	}
	for _, g := range r.Diagnostics {
		d.Findings = append(d.Findings, jsonFindingOf(g))
	}
	for _, o := range r.Omitted {
		d.Omitted = append(d.Omitted, JSONOmitted{Rule: o.Rule,
			Severity: string(severityOf(o.Severity)), Section: o.Section, Count: o.Count})
	}
	return d
}

func jsonFindingOf(g engine.Diagnostic) JSONFinding {
	f := JSONFinding{
		Rule:     g.Rule,
		Severity: string(severityOf(g.Severity)),
		Section:  g.Section,
		Message:  g.Message,
		Line:     max(g.Location.Line, 0),
		Column:   max(g.Location.Column, 0),
	}
	for _, l := range g.Related {
		f.Related = append(f.Related, JSONLocation{URL: l.URL, File: l.File,
			Line: max(l.Line, 0), Column: max(l.Column, 0)})
	}
	return f
}

func (j *jsonReporter) Write(r engine.Result) error {
	if err := j.lock(false); err != nil {
		return err
	}
	defer j.unlock()
	j.sum.Add(r)
	if j.n == 0 {
		if err := j.head(); err != nil {
			return err
		}
	}
	sep := ",\n    "
	if j.n == 0 {
		sep = "\n    "
	}
	j.n++
	if _, err := io.WriteString(j.w, sep); err != nil {
		return err
	}
	return j.document(r)
}

// findingsAt is where the findings of a document encoded without any go:
// they are written there one by one, so that a document of many findings
// is never whole in memory either.
var findingsAt = []byte("\n      \"findings\": []")

// document writes r as encoding it in the report would.
func (j *jsonReporter) document(r engine.Result) error {
	diags := r.Diagnostics
	r.Diagnostics = nil
	b, err := jsonIndent(jsonDocumentOf(r), "    ")
	if err != nil {
		return err
	}
	i := bytes.Index(b, findingsAt)
	if i < 0 || len(diags) == 0 {
		_, err := j.w.Write(b)
		return err
	}
	i += len(findingsAt) - 1 // before the ']'
	if _, err := j.w.Write(b[:i]); err != nil {
		return err
	}
	for k, g := range diags {
		f, err := jsonIndent(jsonFindingOf(g), "        ")
		if err != nil {
			return err
		}
		sep := ",\n        "
		if k == 0 {
			sep = "\n        "
		}
		if _, err := io.WriteString(j.w, sep); err != nil {
			return err
		}
		if _, err := j.w.Write(f); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(j.w, "\n      "); err != nil {
		return err
	}
	_, err = j.w.Write(b[i:])
	return err
}

// head writes the report up to its documents' opening bracket, as
// encoding the whole JSONReport would.
func (j *jsonReporter) head() error {
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range []struct {
		name string
		v    any
	}{{"tool", j.rep.Tool}, {"version", j.rep.Version}, {"spec", j.rep.Spec}, {"strict", j.rep.Strict}} {
		v, err := jsonIndent(f.v, "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %q: %s,\n", f.name, v)
	}
	b.WriteString(`  "documents": [`)
	_, err := io.WriteString(j.w, b.String())
	return err
}

// jsonIndent is v encoded as the report's encoder encodes it at an
// indentation of prefix (two spaces a level, <, > and & kept as they are),
// without the final newline.
func jsonIndent(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// SetSampling adds what a crawl sampled to the report.
func (j *jsonReporter) SetSampling(s *graph.Sampling) { j.rep.Sampling = jsonSamplingOf(s) }

func (j *jsonReporter) Flush() error {
	if err := j.lock(true); err != nil {
		return err
	}
	defer j.unlock()
	s := j.sum
	j.rep.Summary = JSONSummary{
		Documents: s.Documents, Valid: s.Valid, Invalid: s.Invalid,
		Unprocessed: s.Errors, Skipped: s.Skipped,
		Errors: s.ErrorFindings, Warnings: s.Warnings, Infos: s.Infos, Resources: s.Resources,
	}
	// Messages quote XML: <, > and & are kept readable (jsonIndent).
	var b strings.Builder
	if j.n == 0 {
		if err := j.head(); err != nil {
			return err
		}
		b.WriteString("],\n")
	} else {
		b.WriteString("\n  ],\n")
	}
	sum, err := jsonIndent(j.rep.Summary, "  ")
	if err != nil {
		return err
	}
	b.WriteString(`  "summary": `)
	b.Write(sum)
	if j.rep.Sampling != nil {
		smp, err := jsonIndent(j.rep.Sampling, "  ")
		if err != nil {
			return err
		}
		b.WriteString(",\n  \"sampling\": ")
		b.Write(smp)
	}
	b.WriteString("\n}\n")
	_, err = io.WriteString(j.w, b.String())
	return err
}

// specOf is the spec version of the report, 1.1 by default.
func specOf(o Options) string {
	if o.Spec == "" {
		return string(engine.Spec11)
	}
	return o.Spec
}
