package reporter

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// The sarif format is SARIF 2.1.0 (OASIS), for code-scanning services:
//
//   - One run. tool.driver has name, version, informationUri and one
//     reportingDescriptor per rule of the catalogue (engine.All()): id,
//     name (the ID in CamelCase), shortDescription (the title),
//     fullDescription (the quoted sentence of the spec), help (how
//     rsconform reads the spec), defaultConfiguration.level, and properties
//     section and level (MUST, SHOULD, INFO). A rule with findings that is
//     not in the catalogue gets a descriptor too, so ruleIndex is always
//     valid.
//   - One result per finding: ruleId, ruleIndex, level (error, warning;
//     info becomes note), message.text and one location: the artifact URI
//     (a file name as given, escaped as a URI reference, or the URL) and a
//     region (startLine, startColumn) when the line is known.
//     relatedLocations hold Diagnostic.Related. Levels do not change under
//     --strict; the run's properties say whether it was strict.
//   - Documents that could not be processed (status error) are not
//     results but invocations[0].toolExecutionNotifications, at level
//     error; findings beyond --max-findings-per-rule (Result.Omitted) are
//     counted there too, one notification of level note per rule and
//     document. executionSuccessful is false only when documents were given
//     and none could be processed.
//
// The report is written at Flush.
type sarifReporter struct {
	once
	w io.Writer
	o Options

	rules   []sarifRule
	index   map[string]int
	results []sarifResult
	notes   []sarifNotification
	// processed counts documents that were checked, failed is those that
	// could not be (status error without findings).
	processed, failed int
	sampling          *graph.Sampling
}

// SetSampling puts what a crawl sampled in the run's properties
// ("sampling", as the JSON report's member).
func (s *sarifReporter) SetSampling(sm *graph.Sampling) { s.sampling = sm }

// The subset of the SARIF 2.1.0 object model rsconform writes.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name,omitempty"`
	ShortDescription     sarifMessage      `json:"shortDescription"`
	FullDescription      *sarifMessage     `json:"fullDescription,omitempty"`
	Help                 *sarifHelp        `json:"help,omitempty"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties,omitempty"`
}

// sarifHelp is a multiformatMessageString: GitHub code scanning shows the
// markdown, other consumers the text.
type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Kind             string          `json:"kind,omitempty"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation,omitzero"`
	// LogicalLocations locate what has no file: a Destination's verdict
	// is at scenario / step / requirement.
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

const (
	sarifSchema    = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	informationURI = "https://github.com/rsconform/rsconform"
	// catalogueURI is docs/rules.md, generated from the rule values; each
	// rule has a heading there whose anchor is its ID in lower case.
	catalogueURI = informationURI + "/blob/main/docs/rules.md"
)

// RuleHelpURI is the address of a rule's entry in the catalogue.
func RuleHelpURI(id string) string {
	return catalogueURI + "#" + strings.ToLower(id)
}

func newSARIF(w io.Writer, o Options) *sarifReporter {
	s := &sarifReporter{w: w, o: o, index: map[string]int{}, results: []sarifResult{}}
	for _, r := range engine.All() {
		s.addRule(ruleDescriptor(r))
	}
	return s
}

func (s *sarifReporter) addRule(d sarifRule) int {
	s.index[d.ID] = len(s.rules)
	s.rules = append(s.rules, d)
	return len(s.rules) - 1
}

func ruleDescriptor(r *engine.Rule) sarifRule {
	uri := RuleHelpURI(r.ID)
	d := sarifRule{
		ID:                   r.ID,
		Name:                 camelName(r.ID),
		ShortDescription:     sarifMessage{Text: r.Title},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(r.Level.Severity())},
		Properties:           map[string]string{"section": r.Section, "level": r.Level.String()},
		HelpURI:              uri,
	}
	// English first: a code-scanning page shows the start of the
	// description; the original wording of a translated quote follows.
	full := r.Quote
	if r.English != "" {
		full = r.English + "\n\nIn the original: " + r.Quote
	}
	if full != "" {
		d.FullDescription = &sarifMessage{Text: full}
	}
	// Every rule has help (GitHub rejects rules without it: GH2012): the
	// requirement, how rsconform reads it, and where the catalogue has it.
	var text, md strings.Builder
	fmt.Fprintf(&text, "%s (%s, section %s).", r.Title, r.Level, r.Section)
	fmt.Fprintf(&md, "**%s** (%s, section %s)", r.Title, r.Level, r.Section)
	quote := r.Quote
	if r.English != "" {
		quote = r.English
	}
	if quote != "" {
		fmt.Fprintf(&text, "\n\nThe specification says: %s", quote)
		fmt.Fprintf(&md, "\n\n> %s", quote)
	}
	if r.Doc != "" {
		fmt.Fprintf(&text, "\n\n%s", r.Doc)
		fmt.Fprintf(&md, "\n\n%s", r.Doc)
	}
	fmt.Fprintf(&text, "\n\nSee %s", uri)
	fmt.Fprintf(&md, "\n\n[%s in the rule catalogue](%s)", r.ID, uri)
	d.Help = &sarifHelp{Text: text.String(), Markdown: md.String()}
	return d
}

// camelName turns RS-CL-ORDER into RsClOrder, the identifier-like name
// SARIF recommends for reportingDescriptor.name.
func camelName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(strings.ToLower(part[1:]))
	}
	return b.String()
}

func sarifLevel(s engine.Severity) string {
	switch s {
	case engine.SeverityError:
		return "error"
	case engine.SeverityWarning:
		return "warning"
	}
	return "note"
}

// artifactURI is the SARIF artifactLocation.uri of a document: a URL as
// it is; a file inside root (Options.SourceRoot, the repository) as a
// path relative to root, so that code scanning puts the alert on the file
// of the checkout; another relative file name as a relative URI reference;
// another absolute one as a file: URI.
func artifactURI(name, root string) string {
	if engine.IsURL(name) {
		return name
	}
	if root != "" {
		if abs, err := filepath.Abs(name); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				name = rel
			}
		}
	}
	slash := filepath.ToSlash(name)
	if filepath.IsAbs(name) || strings.HasPrefix(slash, "/") {
		if !strings.HasPrefix(slash, "/") {
			slash = "/" + slash // C:/x on Windows
		}
		return (&url.URL{Scheme: "file", Path: slash}).String()
	}
	return (&url.URL{Path: slash}).String()
}

func (s *sarifReporter) loc(l engine.Location, doc string) sarifLocation {
	name := l.Name()
	if name == "" {
		name = doc
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: artifactURI(name, s.o.SourceRoot)}}}
	if l.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line, StartColumn: max(l.Column, 0)}
	}
	return loc
}

func (s *sarifReporter) Write(r engine.Result) error {
	if err := s.lock(false); err != nil {
		return err
	}
	defer s.unlock()
	status := statusOf(r)
	switch {
	case status == engine.StatusError && len(r.Diagnostics) == 0:
		s.failed++
	case status != engine.StatusSkipped:
		s.processed++
	}
	if status == engine.StatusError {
		why := r.Error
		if why == "" {
			why = "the document could not be processed"
		}
		s.notes = append(s.notes, sarifNotification{
			Level:     "error",
			Message:   sarifMessage{Text: r.Location + ": " + why},
			Locations: []sarifLocation{s.loc(engine.Location{}, r.Location)},
		})
	}
	for _, d := range r.Diagnostics {
		idx, ok := s.index[d.Rule]
		if !ok {
			idx = s.addRule(sarifRule{ID: d.Rule, Name: camelName(d.Rule),
				ShortDescription:     sarifMessage{Text: d.Rule},
				Help:                 &sarifHelp{Text: d.Rule + " (section " + d.Section + "): not in this version's rule catalogue."},
				DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(severityOf(d.Severity))},
				Properties:           map[string]string{"section": d.Section}})
		}
		res := sarifResult{
			RuleID:    d.Rule,
			RuleIndex: idx,
			Level:     sarifLevel(severityOf(d.Severity)),
			Message:   sarifMessage{Text: d.Message},
			Locations: []sarifLocation{s.loc(d.Location, r.Location)},
		}
		for i, rel := range d.Related {
			l := s.loc(rel, r.Location)
			id := i + 1
			l.ID = &id
			res.RelatedLocations = append(res.RelatedLocations, l)
		}
		s.results = append(s.results, res)
	}
	// Findings beyond --max-findings-per-rule are not results: a note
	// on the document says how many there are.
	for _, o := range r.Omitted {
		s.notes = append(s.notes, sarifNotification{
			Level:     "note",
			Message:   sarifMessage{Text: r.Location + ": " + omittedNote(o)},
			Locations: []sarifLocation{s.loc(engine.Location{}, r.Location)},
		})
	}
	return nil
}

func (s *sarifReporter) Flush() error {
	if err := s.lock(true); err != nil {
		return err
	}
	defer s.unlock()
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: s.o.Tool, Version: s.o.Version, InformationURI: informationURI, Rules: s.rules,
		}},
		Invocations: []sarifInvocation{{
			ExecutionSuccessful:        s.processed > 0 || s.failed == 0,
			ToolExecutionNotifications: s.notes,
		}},
		Results:    s.results,
		Properties: map[string]any{"spec": specOf(s.o), "strict": s.o.Strict},
	}
	if s.sampling != nil {
		run.Properties["sampling"] = jsonSamplingOf(s.sampling)
	}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}
