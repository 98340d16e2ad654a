package reporter

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// The junit format follows the structure CI servers read (Jenkins' and
// Ant's "junit-10": testsuites, testsuite, properties, testcase, skipped,
// error, failure, system-out), checked against testdata/junit-10.xsd:
//
//   - <testsuites name=tool tests failures errors> wraps everything, with
//     the totals.
//   - One <testsuite> per document: name is its location; attributes tests,
//     failures, errors, skipped; <properties> kind, status, spec (and
//     parent when crawling).
//   - One <testcase> per rule that ran on the document (Result.Applied, and
//     any other rule with a finding there): classname is the kind ("rsconform"
//     when unknown), name "RULE-ID: title [section]".
//   - A <failure type="error"> (or "warning") lists the failing findings of
//     the rule, one "line:column severity: message" line each: errors, and
//     warnings too when strict. Other findings (warnings when not strict,
//     infos) go to the testcase's <system-out>.
//   - A document of status error gets a testcase "processing" with an
//     <error> saying why; a skipped document a testcase "processing" with
//     <skipped>.
//
// Everything is escaped, and characters that XML 1.0 does not allow are
// removed from text coming from documents. The report is written at Flush.
type junitReporter struct {
	once
	w        io.Writer
	o        Options
	suites   []JUnitSuite
	sampling *graph.Sampling
}

// SetSampling adds a testsuite "sampling" whose properties say what a
// crawl sampled (no testcase: it checks nothing of its own).
func (j *junitReporter) SetSampling(s *graph.Sampling) { j.sampling = s }

// JUnitSuites is a JUnit report in the junit-10 structure. The junit
// format builds one from Results; other reports of rsconform (the
// Destination harness) build their own and write it with WriteJUnitXML, so
// every JUnit report of rsconform has one shape and one escaping. Build
// text fields with XMLSafe (attributes) and XMLText (element text).
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr,omitempty"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type JUnitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr,omitempty"`
	Skipped   *JUnitText     `xml:"skipped"`
	Errors    []JUnitProblem `xml:"error"`
	Failures  []JUnitProblem `xml:"failure"`
	SystemOut *JUnitText     `xml:"system-out"`
}

type JUnitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",innerxml"`
}

// JUnitText is character data escaped by xmlText, so that newlines stay
// newlines (encoding/xml would write them as &#xA;).
type JUnitText struct {
	Text string `xml:",innerxml"`
}

func newJUnit(w io.Writer, o Options) *junitReporter {
	return &junitReporter{w: w, o: o}
}

func (j *junitReporter) Write(r engine.Result) error {
	if err := j.lock(false); err != nil {
		return err
	}
	defer j.unlock()
	j.suites = append(j.suites, j.suite(r))
	return nil
}

func (j *junitReporter) suite(r engine.Result) JUnitSuite {
	status := statusOf(r)
	kind := kindOf(r)
	s := JUnitSuite{
		Name: xmlSafe(r.Location),
		Properties: []JUnitProperty{
			{Name: "kind", Value: xmlSafe(kind)},
			{Name: "status", Value: string(status)},
			{Name: "spec", Value: xmlSafe(specOf(j.o))},
		},
	}
	if r.Parent != "" {
		s.Properties = append(s.Properties, JUnitProperty{Name: "parent", Value: xmlSafe(r.Parent)})
	}
	class := kind
	if r.Kind == "" || r.Kind == "unknown" {
		class = j.o.Tool
	}
	class = xmlSafe(class)

	switch status {
	case engine.StatusError:
		why := r.Error
		if why == "" {
			why = "the document could not be processed"
		}
		s.Cases = append(s.Cases, JUnitCase{Name: "processing", Classname: class,
			Errors: []JUnitProblem{{Message: xmlSafe(firstLine(why)), Type: "error", Text: xmlText(why)}}})
	case engine.StatusSkipped:
		s.Cases = append(s.Cases, JUnitCase{Name: "processing", Classname: class,
			Skipped: &JUnitText{Text: xmlText(r.Error)}})
	}

	// One testcase per rule: those that ran, then any other rule with a
	// finding (a cross-document rule, say), so that no finding is lost.
	byRule := map[string][]engine.Diagnostic{}
	for _, d := range r.Diagnostics {
		byRule[d.Rule] = append(byRule[d.Rule], d)
	}
	ids := append([]string(nil), r.Applied...)
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	var extra []string
	for id := range byRule {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	ids = append(ids, extra...)
	seen = map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		s.Cases = append(s.Cases, j.testcase(r, id, class, byRule[id]))
	}

	for _, c := range s.Cases {
		s.Tests++
		if len(c.Failures) > 0 {
			s.Failures++
		}
		if len(c.Errors) > 0 {
			s.Errors++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
	}
	return s
}

func (j *junitReporter) testcase(r engine.Result, id, class string, ds []engine.Diagnostic) JUnitCase {
	title, section := id, ""
	if rule := engine.Lookup(id); rule != nil {
		title, section = id+": "+rule.Title, rule.Section
	}
	if section == "" && len(ds) > 0 {
		section = ds[0].Section
	}
	if section != "" {
		title += " [" + section + "]"
	}
	c := JUnitCase{Name: xmlSafe(title), Classname: class}

	// Each kept finding is a line; the findings of the rule not kept are
	// one line (omittedNote) that counts as many as it stands for.
	var failing, other []string
	typ, nFailing := "", 0
	add := func(sev engine.Severity, line string, n int) {
		if !fails(sev, j.o.Strict) {
			other = append(other, line)
			return
		}
		failing = append(failing, line)
		nFailing += n
		if typ == "" || sev == engine.SeverityError {
			typ = string(sev)
		}
	}
	for _, d := range ds {
		add(severityOf(d.Severity), finding(d, r.Location), 1)
	}
	for _, o := range r.Omitted {
		if o.Rule == id {
			add(severityOf(o.Severity), omittedNote(o), o.Count)
		}
	}
	if len(failing) > 0 {
		msg := firstLine(failing[0])
		if nFailing > 1 {
			msg = fmt.Sprintf("%d findings; first: %s", nFailing, msg)
		}
		c.Failures = []JUnitProblem{{Message: xmlSafe(msg), Type: typ,
			Text: xmlText(strings.Join(failing, "\n"))}}
	}
	if len(other) > 0 {
		c.SystemOut = &JUnitText{Text: xmlText(strings.Join(other, "\n"))}
	}
	return c
}

// finding is one finding as a line of text ("12:3 error: message"),
// followed by its related locations.
func finding(d engine.Diagnostic, doc string) string {
	s := fmt.Sprintf("%s %s: %s", position(d.Location, doc), severityOf(d.Severity), d.Message)
	for _, rel := range d.Related {
		s += "\n  related: " + position(rel, doc)
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// xmlText escapes s as character data, keeping newlines, after removing
// what XML 1.0 does not allow.
func xmlText(s string) string {
	s = xmlSafe(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			// A literal CR would be normalised away by parsers.
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (j *junitReporter) Flush() error {
	if err := j.lock(true); err != nil {
		return err
	}
	defer j.unlock()
	suites := j.suites
	if j.sampling != nil {
		suites = append(suites[:len(suites):len(suites)], JUnitSuite{Name: "sampling", Properties: samplingProperties(j.sampling)})
	}
	return WriteJUnitXML(j.w, JUnitSuites{Name: xmlSafe(j.o.Tool), Suites: suites})
}

// WriteJUnitXML writes a JUnit report, computing the totals of the
// testsuites element from its suites.
func WriteJUnitXML(w io.Writer, all JUnitSuites) error {
	all.Tests, all.Failures, all.Errors = 0, 0, 0
	for _, s := range all.Suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	_, err = io.WriteString(w, xml.Header+string(out)+"\n")
	return err
}

// XMLSafe removes the characters XML 1.0 does not allow, for attributes.
func XMLSafe(s string) string { return xmlSafe(s) }

// XMLText escapes s as element text (newlines kept), for JUnitText.
func XMLText(s string) JUnitText { return JUnitText{Text: xmlText(s)} }
