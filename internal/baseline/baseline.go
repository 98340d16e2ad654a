// Package baseline reads and writes the baseline file (--baseline FILE of
// validate and crawl): the set of findings a project has accepted, so that
// CI fails only on new ones, and removes those findings from results. The
// file is JSON:
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
package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"sort"
	"sync"

	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/internal/safefile"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// File is the baseline file.
type File struct {
	Tool     string  `json:"tool"`
	Format   int     `json:"format"`
	Findings []Entry `json:"findings"`
}

// Entry is one accepted finding and how many there are.
type Entry struct {
	Document string `json:"document"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Count    int    `json:"count"`
	Sampled  bool   `json:"sampled,omitempty"`
}

// Set counts known findings by their fingerprint, the one rsconform
// monitor uses across runs too.
type Set map[fingerprint.Key]int

// MaxBytes bounds the baseline file read: an entry of the format
// (a document, a rule ID, a message, a count, indented) takes about 250
// bytes, so 128 MiB holds half a million distinct findings, ten documents
// of 50,000 entries each with one finding per entry, far beyond what
// anyone reviews. Memory is about the size of the keys read (entries are
// decoded one at a time), not a multiple of the file's.
const MaxBytes = 128 << 20

// Read reads the baseline at path: a regular file of at most
// MaxBytes, not a symbolic link (the tool writes it, and never
// through a link, as sync its state file). A missing file gives an error
// that is fs.ErrNotExist.
func Read(path string) (Set, error) {
	r, err := safefile.Open(path, "baseline", MaxBytes, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var f File
	b := Set{}
	err = decode(json.NewDecoder(r), &f, func(e Entry) {
		b[fingerprint.Key{Document: e.Document, Rule: e.Rule, Message: fingerprint.Message(e.Message), Sampled: e.Sampled}] += max(e.Count, 1)
	})
	var le *safefile.LimitError
	if errors.As(err, &le) {
		return nil, le
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a baseline file: %w", path, err)
	}
	if f.Tool != "rsconform" || f.Format != 1 {
		return nil, fmt.Errorf("%s: not an rsconform baseline (format 1)", path)
	}
	return b, nil
}

// decode reads a baseline file's object, its fields into f but
// for the findings, each handed to add as it is read.
func decode(dec *json.Decoder, f *File, add func(Entry)) error {
	if t, err := dec.Token(); err != nil {
		return err
	} else if t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case "tool":
			err = dec.Decode(&f.Tool)
		case "format":
			err = dec.Decode(&f.Format)
		case "findings":
			err = decodeFindings(dec, add)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

func decodeFindings(dec *json.Decoder, add func(Entry)) error {
	if t, err := dec.Token(); err != nil {
		return err
	} else if t == nil {
		return nil
	} else if t != json.Delim('[') {
		return errors.New("findings is not a list")
	}
	for dec.More() {
		var e Entry
		if err := dec.Decode(&e); err != nil {
			return err
		}
		add(e)
	}
	_, err := dec.Token()
	return err
}

// Write writes every finding of results to path, never through a
// symbolic link nor over a file, and returns the Set it wrote (what Read
// reads of the file) and how many findings it holds.
func Write(path string, results []engine.Result) (Set, int, error) {
	counts := fingerprint.Counts(results)
	f := File{Tool: "rsconform", Format: 1, Findings: []Entry{}}
	n := 0
	for k, c := range counts {
		f.Findings = append(f.Findings, Entry{Document: k.Document, Rule: k.Rule, Message: k.Message, Count: c, Sampled: k.Sampled})
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
		return nil, 0, err
	}
	// Written only where no file is: never through a symbolic link,
	// dangling or not, planted where the baseline goes.
	w, err := safefile.OpenOwn(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, 0, err
	}
	_, err = w.Write(append(data, '\n'))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	// The keys are those Read makes of the entries: fingerprint.Message
	// leaves a key's message as it is.
	return Set(counts), n, nil
}

// Keeps is engine.Config.Keep for b: it says yes to the findings b knows,
// as many of each key as b counts (a sampled key: any number), in the
// order the documents' rules report them.
func (b Set) Keeps() func(location string, k rs.Kind, d engine.Diagnostic) bool {
	var mu sync.Mutex
	left := maps.Clone(b)
	return func(location string, k rs.Kind, d engine.Diagnostic) bool {
		key := fingerprint.Of(&engine.Result{Location: location, Kind: k}, d)
		mu.Lock()
		defer mu.Unlock()
		if left[key] <= 0 {
			return false
		}
		if !key.Sampled {
			left[key]--
		}
		return true
	}
}

// Filter removes the known findings from results (in place) and returns
// how many it removed. A document whose error findings were all known
// becomes valid; a document that could not be processed because of
// findings that were all known is skipped, saying so; one that could not
// be processed for another reason (no answer, no file) stays in error.
func (b Set) Filter(results []engine.Result) int {
	known := b.Keeps()
	removed := 0
	for i := range results {
		r := &results[i]
		kept := r.Diagnostics[:0]
		for _, d := range r.Diagnostics {
			if known(r.Location, r.Kind, d) {
				removed++
				continue
			}
			kept = append(kept, d)
		}
		had := len(r.Diagnostics) > 0
		r.Diagnostics = kept
		switch {
		case r.Status == engine.StatusInvalid:
			r.Status = ""
			r.Finish()
		case r.Status == engine.StatusError && had && len(kept) == 0 && len(r.Omitted) == 0:
			// A document that could not be checked for a finding the
			// baseline accepts (not well-formed, too large): the known
			// finding does not make the run fail (exit 2); the document
			// is reported as not checked, and why.
			r.Status = engine.StatusSkipped
			r.Error = "not checked, its finding is in the baseline: " + r.Error
		}
	}
	return removed
}
