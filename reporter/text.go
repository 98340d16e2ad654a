package reporter

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/mattn/go-colorable"
	"github.com/mattn/go-isatty"

	"github.com/rsconform/rsconform/internal/digits"
	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// The text format, for people. Each document is printed when written:
//
//	✗ changelist.xml (changelist) invalid
//	  12:3  error    RS-CL-ORDER  [12.1]  entry 12 is older than entry 11
//	                                      related: 10:3
//	✓ resourcelist.xml (resourcelist) valid
//
// A header line per document (status mark, location, kind, status), then
// one line per finding (more than three of one rule are summed up under
// the first: "and 668 more like this", all of them with Verbose): line:column ("-" when unknown), severity, rule,
// section and message, with related locations below the message. A
// document of status error shows why it could not be processed. Flush
// prints one summary line:
//
//	3 documents: 1 valid, 1 invalid, 1 unprocessed; 4 errors, 2 warnings, 0 infos
//
// Text coming from documents is printed with control characters escaped,
// so that a document cannot drive the terminal.
type textReporter struct {
	once
	w   io.Writer
	o   Options
	sum Summary
	st  textStyles
	// depth of each document in a crawl's hierarchy, by location: a
	// document is printed indented under its parent (crawls write parents
	// before children).
	depth map[string]int
	// sampling, when set, is said after the summary.
	sampling *graph.Sampling
	// failing counts the valid documents shown as failing (shownStatus).
	failing int
}

// textStyles are the colours of the text format; each is switched on or
// off on its own, never through fatih/color's global NoColor.
type textStyles struct {
	valid, invalid, failed, skipped *color.Color // document statuses
	sevError, sevWarning, sevInfo   *color.Color // finding severities
	location, rule, faint           *color.Color
}

func newTextStyles(on bool) textStyles {
	st := textStyles{
		valid:      color.New(color.FgGreen),
		invalid:    color.New(color.FgRed, color.Bold),
		failed:     color.New(color.FgMagenta, color.Bold),
		skipped:    color.New(color.FgBlue),
		sevError:   color.New(color.FgRed),
		sevWarning: color.New(color.FgYellow),
		sevInfo:    color.New(color.FgCyan),
		location:   color.New(color.Bold),
		rule:       color.New(color.FgWhite),
		faint:      color.New(color.Faint),
	}
	for _, c := range []*color.Color{st.valid, st.invalid, st.failed, st.skipped,
		st.sevError, st.sevWarning, st.sevInfo, st.location, st.rule, st.faint} {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return st
}

// env is what the colour decision reads from the process, replaceable in
// tests.
type env struct {
	getenv     func(string) string
	isTerminal func(io.Writer) bool
}

var osEnv = env{getenv: os.Getenv, isTerminal: isTerminal}

// isTerminal reports whether w is a terminal (an *os.File on a tty).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// useColor decides Options.Color for writer w. "auto" means colour only
// on a terminal, when NO_COLOR (https://no-color.org) is unset or empty and
// TERM is not "dumb"; "always" wins over NO_COLOR, as an explicit flag
// should.
func useColor(mode string, w io.Writer, e env) (bool, error) {
	switch mode {
	case ColorAlways:
		return true, nil
	case ColorNever:
		return false, nil
	case ColorAuto, "":
		if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
			return false, nil
		}
		return e.isTerminal(w), nil
	}
	return false, fmt.Errorf("unknown colour mode %q (valid: %s, %s, %s)", mode, ColorAuto, ColorAlways, ColorNever)
}

func newText(w io.Writer, o Options, e env) (*textReporter, error) {
	on, err := useColor(o.Color, w, e)
	if err != nil {
		return nil, err
	}
	if f, ok := w.(*os.File); ok && on {
		// Windows consoles need escape sequences translated; elsewhere
		// this returns f itself.
		w = colorable.NewColorable(f)
	}
	return &textReporter{w: w, o: o, st: newTextStyles(on)}, nil
}

func (t *textReporter) Write(r engine.Result) error {
	if err := t.lock(false); err != nil {
		return err
	}
	defer t.unlock()
	t.sum.Add(r)
	if shownStatus(r, t.o) == StatusFails {
		t.failing++
	}
	if t.o.Quiet && len(r.Diagnostics) == 0 && statusOf(r) != engine.StatusError {
		t.depthOf(r) // children still indent under it
		return nil
	}
	var b strings.Builder
	t.document(&b, r)
	out := b.String()
	if d := t.depthOf(r); d > 0 {
		pad := strings.Repeat("  ", d)
		out = pad + strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", "\n"+pad) + "\n"
	}
	_, err := io.WriteString(t.w, out)
	return err
}

// depthOf is how deep r sits under the documents already written.
func (t *textReporter) depthOf(r engine.Result) int {
	if t.depth == nil {
		t.depth = map[string]int{}
	}
	d := 0
	if pd, ok := t.depth[r.Parent]; ok && r.Parent != "" {
		d = pd + 1
	}
	t.depth[r.Location] = d
	return d
}

func (t *textReporter) Flush() error {
	if err := t.lock(true); err != nil {
		return err
	}
	defer t.unlock()
	out := t.summary() + "\n"
	if line := samplingText(t.sampling); line != "" {
		out += line + "\n"
	}
	_, err := io.WriteString(t.w, out)
	return err
}

// SetSampling makes the summary say what a crawl sampled.
func (t *textReporter) SetSampling(s *graph.Sampling) { t.sampling = s }

func (t *textReporter) document(b *strings.Builder, r engine.Result) {
	st := t.st
	status := shownStatus(r, t.o)
	var mark string
	var sc *color.Color
	switch status {
	case engine.StatusValid:
		mark, sc = "✓", st.valid
	case engine.StatusInvalid, StatusFails:
		mark, sc = "✗", st.invalid
	case engine.StatusError:
		mark, sc = "!", st.failed
	default:
		mark, sc = "-", st.skipped
	}
	fmt.Fprintf(b, "%s %s %s %s\n", sc.Sprint(mark), st.location.Sprint(termSafe(r.Location, false)),
		st.faint.Sprint("("+termSafe(kindOf(r), false)+")"), sc.Sprint(string(status)))

	if r.Error != "" {
		label := "error: "
		if status != engine.StatusError {
			label = "note: "
		}
		writeIndented(b, "  ", sc.Sprint(label), len(label), termSafe(r.Error, true))
	}
	if t.o.Verbose {
		if r.Parent != "" {
			fmt.Fprintf(b, "  %s %s\n", st.faint.Sprint("parent:  "), termSafe(r.Parent, false))
		}
		if len(r.Children) > 0 {
			fmt.Fprintf(b, "  %s %s\n", st.faint.Sprint("children:"), termSafe(strings.Join(r.Children, ", "), false))
		}
		if len(r.Applied) > 0 {
			fmt.Fprintf(b, "  %s %s\n", st.faint.Sprint("rules:   "), termSafe(strings.Join(r.Applied, ", "), false))
		}
	}
	t.findings(b, r)
}

// findings prints one aligned line per finding of r.
func (t *textReporter) findings(b *strings.Builder, r engine.Result) {
	if len(r.Diagnostics) == 0 {
		return
	}
	st := t.st
	// One root cause often gives hundreds of identical findings (a wrong
	// hash algorithm on every entry): beyond groupAbove findings of one
	// rule in a document, the first stands for the others, unless -v.
	perRule := map[string]int{}
	for _, d := range r.Diagnostics {
		perRule[d.Rule]++
	}
	shown := map[string]bool{}
	pos := make([]string, len(r.Diagnostics))
	posW, ruleW, secW := 0, 0, 0
	for i, d := range r.Diagnostics {
		pos[i] = position(d.Location, r.Location)
		posW = max(posW, width(pos[i]))
		ruleW = max(ruleW, width(termSafe(d.Rule, false)))
		secW = max(secW, width(termSafe(d.Section, false))+2)
	}
	const sevW = len("warning")
	// Continuation lines (related locations, multi-line messages) start
	// under the message.
	indent := 2 + posW + 2 + sevW + 2 + ruleW + 2 + secW + 2
	for i, d := range r.Diagnostics {
		grouped := !t.o.Verbose && perRule[d.Rule] > groupAbove
		if grouped && shown[d.Rule] {
			continue
		}
		shown[d.Rule] = true
		sev := severityOf(d.Severity)
		sc := st.sevInfo
		switch sev {
		case engine.SeverityError:
			sc = st.sevError
		case engine.SeverityWarning:
			sc = st.sevWarning
		}
		rule := termSafe(d.Rule, false)
		sec := "[" + termSafe(d.Section, false) + "]"
		prefix := fmt.Sprintf("  %s  %s  %s  %s  ",
			padRight(pos[i], posW), sc.Sprint(padRight(string(sev), sevW)),
			st.rule.Sprint(padRight(rule, ruleW)), st.faint.Sprint(padRight(sec, secW)))
		writeIndented(b, "", prefix, indent, termSafe(d.Message, true))
		for _, rel := range d.Related {
			fmt.Fprintf(b, "%s%s %s\n", strings.Repeat(" ", indent), st.faint.Sprint("related:"),
				termSafe(position(rel, r.Location), false))
		}
		if grouped {
			omitted := r.OmittedOf(d.Rule)
			more := perRule[d.Rule] - 1 + omitted
			where := "all listed with -v, --format json or sarif"
			if omitted > 0 {
				where = fmt.Sprintf("%s listed with -v, --format json or sarif; the rest beyond --max-findings-per-rule",
					digits.Grouped(int64(perRule[d.Rule])))
			}
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", indent), st.faint.Sprintf("and %s more like this (%s; %s)",
				digits.Grouped(int64(more)), termSafe(d.Rule, false), where))
		}
	}
	for _, o := range r.Omitted {
		if !t.o.Verbose && perRule[o.Rule] > groupAbove {
			continue // said under the rule's first finding
		}
		fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", indent), st.faint.Sprint(termSafe(omittedNote(o), false)))
	}
}

// omittedNote says, in every format, that a document has more findings of
// a rule than it lists (engine.Result.Omitted).
func omittedNote(o engine.Omitted) string {
	return fmt.Sprintf("and %s more %s %s in this document, not listed (beyond --max-findings-per-rule)",
		digits.Grouped(int64(o.Count)), o.Rule, words.Noun(o.Count, string(severityOf(o.Severity))+" finding"))
}

// groupAbove is how many findings of one rule a document shows in full
// in the text format; more are summed up under the first.
const groupAbove = 3

// writeIndented writes prefix and text, continuing text's further lines
// at column width (the visible width of prefix) after lead.
func writeIndented(b *strings.Builder, lead, prefix string, width int, text string) {
	lines := strings.Split(text, "\n")
	b.WriteString(lead + prefix + lines[0] + "\n")
	pad := lead + strings.Repeat(" ", width)
	for _, l := range lines[1:] {
		b.WriteString(pad + l + "\n")
	}
}

// position is "line:column" of a finding ("line" when the column is
// unknown, "-" when the line is), preceded by its file or URL when that is
// not the document's own.
func position(l engine.Location, doc string) string {
	var s string
	switch {
	case l.Line <= 0:
		s = "-"
	case l.Column <= 0:
		s = strconv.Itoa(l.Line)
	default:
		s = strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Column)
	}
	if n := l.Name(); n != "" && n != doc {
		if l.Line <= 0 {
			return termSafe(n, false)
		}
		return termSafe(n, false) + ":" + s
	}
	return s
}

// width is the number of columns s takes, taking every rune as one.
func width(s string) int { return utf8.RuneCountInString(s) }

func padRight(s string, w int) string {
	if n := width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func (t *textReporter) summary() string {
	s, st := t.sum, t.st
	docs := []string{fmt.Sprintf("%d valid", s.Valid-t.failing)}
	if t.failing > 0 {
		// Valid (no error), but failing the run: said, not counted valid.
		on := "warnings"
		if t.o.FailLevel == engine.SeverityInfo {
			on = "warnings or infos"
		}
		docs = append(docs, fmt.Sprintf("%d failing on %s", t.failing, on))
	}
	docs = append(docs,
		fmt.Sprintf("%d invalid", s.Invalid),
		fmt.Sprintf("%d unprocessed", s.Errors),
	)
	if s.Skipped > 0 {
		docs = append(docs, fmt.Sprintf("%d skipped", s.Skipped))
	}
	count := func(n int, word string, c *color.Color) string {
		str := words.Count(n, word)
		if n > 0 {
			return c.Sprint(str)
		}
		return str
	}
	line := fmt.Sprintf("%s: %s; %s, %s, %s", words.Count(s.Documents, "document"), strings.Join(docs, ", "),
		count(s.ErrorFindings, "error", st.sevError), count(s.Warnings, "warning", st.sevWarning),
		count(s.Infos, "info", st.sevInfo))
	if s.Resources > 0 {
		line += fmt.Sprintf(" (%s with findings of their own)", words.Count(s.Resources, "sampled resource"))
	}
	switch {
	case t.o.FailLevel == engine.SeverityInfo:
		line += " (--fail-level info: warnings and infos fail)"
	case t.o.Strict:
		line += " (strict: warnings fail)"
	}
	return line
}
