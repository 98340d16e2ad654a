// Package reporter turns the Results of rsconform into reports: text for
// people, html for people in a browser, and json, junit and sarif for
// machines.
//
// Every format implements Reporter: Write is called once per document, in
// the order the documents were checked, and Flush once at the end. The text
// format prints each document as it is written and the summary at Flush;
// the others need totals or a single enclosing document and are written at
// Flush. Every Reporter is safe for concurrent use; Write after Flush, and a
// second Flush, are errors.
//
// The json format is a contract: see JSONReport for its exact shape, which
// the README copies. Exit codes are decided by ExitCode from the Summary a
// Tally accumulates.
//
// Colour (github.com/fatih/color) is used here and nowhere else in rsconform.
package reporter

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Reporter reports Results.
type Reporter interface {
	// Write reports one document.
	Write(engine.Result) error
	// Flush ends the report: it writes what was held back (summary,
	// enclosing document) to the writer.
	Flush() error
}

// Options are the settings every format may use.
type Options struct {
	// Tool is the tool's name ("rsconform"); Version its version.
	Tool    string
	Version string
	// Spec is the spec version the documents were checked against ("1.1").
	Spec string
	// Strict means warnings fail too (--strict): JUnit reports them as
	// failures and ExitCode counts them. SARIF levels do not change.
	Strict bool
	// FailLevel is the least severe finding that fails (--fail-level):
	// empty means warning under Strict, else error. The text and html
	// formats show a document with a failing finding as failing, whatever
	// its status (a valid document with a warning, under --strict).
	FailLevel engine.Severity
	// Color is "auto" (the default when empty: colour only when the writer
	// is a terminal and NO_COLOR is unset or empty), "always" or "never".
	// Only the text format has colour.
	Color string
	// Verbose makes the text format add, under each document, the rules
	// that ran on it and its place in the crawl (parent, children).
	Verbose bool
	// SourceRoot is the absolute path of the repository the documents
	// come from (the folder with .git above the working directory): the
	// sarif format writes files under it as paths relative to it, as code
	// scanning expects. Empty: file names as given.
	SourceRoot string
	// Quiet makes the text format print only documents with findings or
	// errors (and the summary, which counts all).
	Quiet bool
	// Sources, when set, holds the documents' text: the html format shows
	// the lines of each finding. The other formats ignore it.
	Sources *Sources
	// RuleURL links a rule ID to its page in the html format (default:
	// DefaultRuleURL, the catalogue in the repository).
	RuleURL func(id string) string
	// Title and Home are the html format's page title (default "rsconform
	// report") and a link back to where the report came from ("" none).
	Title, Home string
	// Notes are said above the html format's summary (a crawl stopped by
	// its time limit, an unusable entry point).
	Notes []string
	// MaxFindings, when positive, is the number of findings of a document
	// the html format shows; it says how many more there are, followed by
	// OmittedHint (where to get them all). The summary counts all.
	MaxFindings int
	OmittedHint string
}

// Colour modes of Options.Color.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// Format names, as --format takes them.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatJUnit = "junit"
	FormatSARIF = "sarif"
	FormatHTML  = "html"
)

// Formats lists the report formats New knows, the default first.
func Formats() []string {
	return []string{FormatText, FormatJSON, FormatJUnit, FormatSARIF, FormatHTML}
}

// New returns a Reporter of the named format writing to w.
func New(format string, w io.Writer, o Options) (Reporter, error) {
	if w == nil {
		return nil, errors.New("reporter: nil writer")
	}
	if o.Tool == "" {
		o.Tool = "rsconform"
	}
	switch format {
	case FormatText:
		return newText(w, o, osEnv)
	case FormatJSON:
		return newJSON(w, o), nil
	case FormatJUnit:
		return newJUnit(w, o), nil
	case FormatSARIF:
		return newSARIF(w, o), nil
	case FormatHTML:
		return newHTML(w, o), nil
	}
	return nil, fmt.Errorf("unknown report format %q (valid: %s)", format, strings.Join(Formats(), ", "))
}

// Summary counts documents by status and findings by severity.
type Summary struct {
	// Documents is the number of documents written; each is counted in
	// exactly one of Valid, Invalid, Errors and Skipped.
	Documents int
	Valid     int
	Invalid   int
	// Errors counts documents of status error: documents that could not
	// be processed (fetch failed, unreadable, not XML). Not findings.
	Errors  int
	Skipped int
	// Unread counts the documents of status error without any finding:
	// they could not be read or fetched at all (a missing file, a 404),
	// as opposed to a document that is not well-formed, whose fault is
	// a finding.
	Unread int
	// ErrorFindings, Warnings and Infos count findings by severity, over
	// all documents (whatever their status).
	ErrorFindings int
	Warnings      int
	Infos         int
	// Resources counts the results of sampled resources (kind
	// "resource"), which are not documents: their findings count above.
	Resources int
}

// Add counts one Result.
func (s *Summary) Add(r engine.Result) {
	e, w, i := r.Count()
	s.ErrorFindings += e
	s.Warnings += w
	s.Infos += i
	if r.Kind == rs.KindResource {
		// Not a document: whether a resource has a result depends on
		// which resources were sampled and had a finding.
		s.Resources++
		return
	}
	s.Documents++
	switch statusOf(r) {
	case engine.StatusValid:
		s.Valid++
	case engine.StatusInvalid:
		s.Invalid++
	case engine.StatusError:
		s.Errors++
		if len(r.Diagnostics) == 0 {
			s.Unread++
		}
	default:
		s.Skipped++
	}
}

// Tally accumulates a Summary from Results. It is itself a Reporter that
// writes nothing, so the CLI can feed it alongside the chosen format and
// compute the exit code from it. It is safe for concurrent use.
type Tally struct {
	mu  sync.Mutex
	sum Summary
}

// Add counts one Result.
func (t *Tally) Add(r engine.Result) {
	t.mu.Lock()
	t.sum.Add(r)
	t.mu.Unlock()
}

// Write counts one Result; it never fails.
func (t *Tally) Write(r engine.Result) error {
	t.Add(r)
	return nil
}

// Flush does nothing: a Tally writes no report.
func (t *Tally) Flush() error { return nil }

// Summary returns the counts so far.
func (t *Tally) Summary() Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sum
}

// Exit codes of rsconform.
const (
	ExitOK        = 0 // every document was checked and none fails
	ExitFailures  = 1 // at least one finding that fails
	ExitNoVerdict = 2 // the tool could not do its job
)

// ExitCode is the process exit code for a run summarised by s:
//
//   - 1 when there is a finding that fails: an error-level finding, or,
//     when strict, a warning. This wins over 2: such a run has a definite
//     verdict (the Source does not conform) even if some other document
//     could not be checked.
//   - 2 when no finding fails but the verdict is incomplete: a document
//     could not be processed (status error without a failing finding, such
//     as an unreachable entry point or an unreadable file), or no document
//     was checked at all (a run that checked nothing must not pass CI).
//   - 0 otherwise: every document was checked (or deliberately skipped)
//     and nothing fails. Infos never fail; warnings fail only when strict.
//
// A document that is not well-formed XML has status error but also an
// RS-XML-WELLFORMED finding, so it gives 1: the document is at fault, not
// the tool. Usage errors (bad flags) give 2 too, but are decided by the
// CLI before any document is read.
func ExitCode(s Summary, strict bool) int {
	if strict {
		return ExitCodeAt(s, engine.SeverityWarning)
	}
	return ExitCodeAt(s, engine.SeverityError)
}

// ExitCodeAt is ExitCode with the least severe finding that fails given
// as a severity (--fail-level): error (the default), warning (what
// --strict means) or info (every finding fails).
func ExitCodeAt(s Summary, failLevel engine.Severity) int {
	if failLevel != engine.SeverityWarning && failLevel != engine.SeverityInfo {
		failLevel = engine.SeverityError // "" or a level it does not know: errors only, as before
	}
	switch {
	case s.ErrorFindings > 0,
		engine.SeverityWarning.AtLeast(failLevel) && s.Warnings > 0,
		engine.SeverityInfo.AtLeast(failLevel) && s.Infos > 0:
		return ExitFailures
	case s.Errors > 0, s.Documents == 0:
		return ExitNoVerdict
	}
	return ExitOK
}

// statusOf is the status of r, derived from its findings when the Result
// was not finished (an empty Status).
func statusOf(r engine.Result) engine.Status {
	switch r.Status {
	case engine.StatusValid, engine.StatusInvalid, engine.StatusError, engine.StatusSkipped:
		return r.Status
	}
	if e, _, _ := r.Count(); e > 0 {
		return engine.StatusInvalid
	}
	return engine.StatusValid
}

// kindOf is the kind of r as reports write it: "unknown" when empty.
func kindOf(r engine.Result) string {
	if r.Kind == "" {
		return "unknown"
	}
	return string(r.Kind)
}

// severityOf normalises a severity: anything unknown is reported as info,
// as engine.Result.Count counts it.
func severityOf(s engine.Severity) engine.Severity {
	switch s {
	case engine.SeverityError, engine.SeverityWarning:
		return s
	}
	return engine.SeverityInfo
}

// shownStatus is the status the text and html formats show for r: its
// status, or "fails" for a valid document with a finding that fails at
// o's fail level (a warning under --strict). The json format keeps the
// status (valid: no error finding), as its contract says.
func shownStatus(r engine.Result, o Options) engine.Status {
	st := statusOf(r)
	if st != engine.StatusValid {
		return st
	}
	level := o.FailLevel
	if level == "" {
		level = engine.SeverityError
		if o.Strict {
			level = engine.SeverityWarning
		}
	}
	for _, d := range r.Diagnostics {
		if severityOf(d.Severity).AtLeast(level) {
			return StatusFails
		}
	}
	return st
}

// StatusFails is what the text and html formats show for a valid document
// whose findings fail the run (warnings under --strict).
const StatusFails engine.Status = "fails"

// fails reports whether a finding of severity s fails the run: an error,
// or a warning under --strict.
func fails(s engine.Severity, strict bool) bool {
	if strict {
		return s.AtLeast(engine.SeverityWarning)
	}
	return s.AtLeast(engine.SeverityError)
}

// once guards the Write/Flush protocol shared by every format.
type once struct {
	mu      sync.Mutex
	flushed bool
}

var errFlushed = errors.New("reporter: already flushed")

// lock takes the reporter's lock; it fails, unlocked, when the reporter
// was already flushed. When flush is true it marks the reporter flushed.
func (o *once) lock(flush bool) error {
	o.mu.Lock()
	if o.flushed {
		o.mu.Unlock()
		return errFlushed
	}
	if flush {
		o.flushed = true
	}
	return nil
}

func (o *once) unlock() { o.mu.Unlock() }
