package reporter

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rsconform/rsconform/rules/engine"
)

// Sources keeps the text of the documents a run checks, within a budget of
// bytes, so that the html format can show the lines each finding is about.
// It is filled through engine.Validator.Source (Keep has its signature) and
// read by the html reporter, which takes each document's text out when the
// document is written: the memory held is at most the budget, and only
// until the document's report is made. Safe for concurrent use.
type Sources struct {
	mu     sync.Mutex
	budget int64
	used   int64
	docs   map[string][]byte
	// dropped holds the locations whose text did not fit in the budget,
	// so that a report says why it shows no lines for them (and not for
	// a body that was never offered, such as a resource's).
	dropped map[string]bool
}

// DefaultSourcesBudget is the budget the CLI gives Sources: 64 MiB, the
// size of one document at the Sitemap limit and then some.
const DefaultSourcesBudget = 64 << 20

// NewSources returns a store that keeps at most budget bytes of text.
func NewSources(budget int64) *Sources {
	return &Sources{budget: budget, docs: map[string][]byte{}, dropped: map[string]bool{}}
}

// Keep keeps data as the text of the document at location, when it fits in
// what is left of the budget; a document that does not fit is reported
// without excerpts. data is kept, not copied: the caller must not change
// it afterwards (engine.Validator does not).
func (s *Sources) Keep(location string, data []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.docs[location]; ok {
		s.used -= int64(len(old))
		delete(s.docs, location)
	}
	if s.used+int64(len(data)) > s.budget {
		s.dropped[location] = true
		return
	}
	delete(s.dropped, location)
	s.docs[location] = data
	s.used += int64(len(data))
}

// take removes and returns the text of the document at location; tooLarge
// says that it was offered but did not fit in the budget.
func (s *Sources) take(location string) (data []byte, ok, tooLarge bool) {
	if s == nil {
		return nil, false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok = s.docs[location]
	if ok {
		delete(s.docs, location)
		s.used -= int64(len(data))
	}
	tooLarge = s.dropped[location]
	delete(s.dropped, location)
	return data, ok, tooLarge
}

// excerptLine is one line of a document shown under a finding. On the
// line of the finding (Hit), Before/At/After split the text at the column.
type excerptLine struct {
	N                 int
	Text              string
	Hit               bool
	Before, At, After string
}

// Bounds of excerpts: the lines around a finding's line, the characters
// shown of one line, and the findings per document that get an excerpt
// (a document with 50,000 findings must not make a report of gigabytes).
const (
	excerptContext  = 2
	excerptWidth    = 240
	excerptFindings = 500
)

// lineIndex finds lines in a document's text.
type lineIndex struct {
	data   []byte
	starts []int // offset of each line start, scanned lazily
	done   bool
}

// line returns the text of line n (from 1) and whether it exists.
func (x *lineIndex) line(n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	if x.starts == nil {
		x.starts = []int{0}
	}
	for len(x.starts) <= n && !x.done {
		last := x.starts[len(x.starts)-1]
		i := bytes.IndexByte(x.data[last:], '\n')
		if i < 0 {
			x.done = true
			break
		}
		x.starts = append(x.starts, last+i+1)
	}
	if n > len(x.starts) || (n == len(x.starts) && x.done && x.starts[n-1] >= len(x.data)) {
		return "", false
	}
	start := x.starts[n-1]
	end := len(x.data)
	if n < len(x.starts) {
		end = x.starts[n] - 1
	}
	return strings.TrimRight(strings.ToValidUTF8(string(x.data[start:end]), "\uFFFD"), "\r"), true
}

// excerpt is the lines around line:col of the document, the hit line split
// at the column; nil when the line is not in the text.
func (x *lineIndex) excerpt(line, col int) []excerptLine {
	if _, ok := x.line(line); !ok {
		return nil
	}
	var out []excerptLine
	for n := max(1, line-excerptContext); n <= line+excerptContext; n++ {
		text, ok := x.line(n)
		if !ok {
			break
		}
		l := excerptLine{N: n}
		if n == line {
			l.Hit = true
			l.Before, l.At, l.After = splitAt(text, col)
		} else {
			l.Text = clip(text, 0)
		}
		out = append(out, l)
	}
	return out
}

// clip shortens a line to excerptWidth characters, keeping the window
// around rune index at.
func clip(s string, at int) string {
	n := utf8.RuneCountInString(s)
	if n <= excerptWidth {
		return s
	}
	r := []rune(s)
	start := min(max(0, at-excerptWidth/2), n-excerptWidth)
	out := string(r[start : start+excerptWidth])
	if start > 0 {
		out = "…" + out
	}
	if start+excerptWidth < n {
		out += "…"
	}
	return out
}

// splitAt splits a line at column col (from 1, in characters) into what
// comes before, the character at the column and what follows, within the
// clipped window. A column of 0 or beyond the line marks nothing.
func splitAt(s string, col int) (before, at, after string) {
	r := []rune(s)
	if col < 1 || col > len(r) {
		return clip(s, 0), "", ""
	}
	start := 0
	if len(r) > excerptWidth {
		start = min(max(0, col-1-excerptWidth/2), len(r)-excerptWidth)
	}
	end := min(len(r), start+excerptWidth)
	before = string(r[start : col-1])
	at = string(r[col-1 : col])
	after = string(r[col:end])
	if start > 0 {
		before = "…" + before
	}
	if end < len(r) {
		after += "…"
	}
	return before, at, after
}

// sameDocument reports whether a finding's location is in the document r
// (a location with no name is).
func sameDocument(l engine.Location, r engine.Result) bool {
	n := l.Name()
	return n == "" || n == r.Location
}
