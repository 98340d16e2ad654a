package engine

import (
	"context"
	"errors"
	"iter"
	"slices"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Scope is what of a document a rule's Check reads. A document whose rules
// all read the header, or the entries once in order, is checked while it is
// read, and its entries are cleared as soon as every rule has seen them,
// for the next ones to be built in: memory then stays bounded by the rules'
// own state, not by the document (issue 13), and a rule must keep nothing
// of an entry but copies of its values: the front end writes the strings
// of later entries over those of a window once it is given back (the
// streaming test poisons them to show a rule that keeps one). Every document rule of the
// catalogue reads the header or the entries once (its self-test sees to
// it), but for the rules on the input's facts (Rule.Input), which run at
// the end. A rule of ScopeDocument, which needs the whole model, still
// works: it makes the document be checked as a whole, after it is read, its
// entries kept.
type Scope int

const (
	// ScopeDocument rules may read anything of the document, Doc.Entries
	// included, in any order and as often as they like. No document rule
	// of the catalogue is: one would keep every entry of the documents it
	// applies to in memory.
	ScopeDocument Scope = iota
	// ScopeHeader rules read the root element, its attributes and its
	// children other than the entries (top-level <rs:md>, <rs:ln>,
	// unknown and misplaced elements), never an entry. They run once the
	// document is read.
	ScopeHeader
	// ScopeEntries rules read the header and the entries, the entries
	// only through Pass.Entries (or the helpers built on it:
	// Pass.EntriesWith, ElementsWith, WalkWith, Lns) and
	// only once, in document order, keeping whatever state they need.
	// While a document is read, Check starts when its first entries are
	// complete, is suspended between windows of entries, and ends after
	// the last; Pass.Doc is the header as read so far (its <rs:md> is
	// there: the schema puts it before the entries), complete once
	// Pass.Entries has ended.
	ScopeEntries
)

// streamWindow is the number of entries checked at a time while a
// document is read. A few windows are in flight or pooled at a time:
// 256 rather than 512 took 0.9 MB off the peak on a 50,000-entry list,
// and no time on a directory of 8 (1,604 ms of CPU against 1,616, medians
// of 10 alternating runs); 128 rather than 256 another 0.3-0.4 MB, and
// no time (see schema's chunkSize).
var streamWindow = 128

// errEntriesTwice is the error of a ScopeEntries rule that iterates the
// entries twice: while streaming, the first iteration consumed them.
var errEntriesTwice = errors.New("rule of ScopeEntries iterates the entries twice")

// feed hands the entries of a document being read to one rule's Check,
// window by window.
type feed struct {
	shared  *window
	suspend func() bool // waits for the next window; false when the rule must stop
	used    bool
}

// window is the entries completed since the previous window, and whether
// they are the last ones, with what they hold: the parts of all of them,
// and the attributes of all their elements, for Pass.EntriesWith,
// ElementsWith and Lns to skip the windows where there is nothing they
// look for.
type window struct {
	entries []*rs.Entry
	last    bool
	parts   EntryParts
	mdAttrs rs.MdAttrSet
	lnAttrs rs.LnAttrSet
}

// newWindow is the window of entries, with what they hold.
func newWindow(entries []*rs.Entry, last bool) window {
	w := window{entries: entries, last: last}
	for _, e := range entries {
		w.parts |= partsOf(e)
		if e.Md != nil {
			w.mdAttrs |= e.Md.AttrSet()
		}
		for _, m := range e.ExtraMd {
			w.mdAttrs |= m.AttrSet()
		}
		for _, l := range e.Links {
			w.lnAttrs |= l.AttrSet()
		}
	}
	return w
}

// EntryParts is a set of parts an entry may have, for a rule that reads
// only the entries with one (Pass.EntriesWith).
type EntryParts uint8

const (
	EntryExtraMd    EntryParts = 1 << iota // a second <rs:md>
	EntryLinks                             // an <rs:ln>
	EntryUnknown                           // an element ResourceSync does not define (Entry.Unknown)
	EntryChangefreq                        // <changefreq>
	EntryPriority                          // <priority>
)

// partsOf is the set of the parts e has.
func partsOf(e *rs.Entry) EntryParts {
	var s EntryParts
	if len(e.ExtraMd) > 0 {
		s |= EntryExtraMd
	}
	if len(e.Links) > 0 {
		s |= EntryLinks
	}
	if len(e.Unknown) > 0 {
		s |= EntryUnknown
	}
	if e.ChangefreqPos.IsValid() {
		s |= EntryChangefreq
	}
	if e.PriorityPos.IsValid() {
		s |= EntryPriority
	}
	return s
}

// Entries yields the document's entries once, in document order. Rules of
// ScopeEntries read the entries only through it.
func (p *Pass) Entries() iter.Seq[*rs.Entry] { return p.entries(nil) }

// EntriesWith is Entries restricted to the entries that have one of parts.
// While a document is read, a window of entries none of which has one is
// skipped at once: a rule that looks for what most documents do not hold
// (links, a repeated <rs:md>, unknown elements) costs next to nothing.
func (p *Pass) EntriesWith(parts EntryParts) iter.Seq[*rs.Entry] {
	return func(yield func(*rs.Entry) bool) {
		for e := range p.entries(func(w *window) bool { return w.parts&parts != 0 }) {
			if partsOf(e)&parts != 0 && !yield(e) {
				return
			}
		}
	}
}

// entries is Entries, which, while a document is read, skips the windows
// wants (when not nil) says hold nothing the rule looks for.
func (p *Pass) entries(wants func(*window) bool) iter.Seq[*rs.Entry] {
	if p.feed == nil && p.ctx == nil {
		return slices.Values(p.Doc.Entries)
	}
	return func(yield func(*rs.Entry) bool) { p.eachEntry(wants, yield) }
}

// eachEntry calls fn on the document's entries once, in document order,
// until fn returns false (eachEntry then does too): while the document is
// read, window by window, those wants (when not nil) says hold nothing the
// rule looks for skipped, and p.at the index in its window of the entry;
// on the whole model, ending early once the run's context is done (the
// rule's findings are then dropped).
func (p *Pass) eachEntry(wants func(*window) bool, fn func(*rs.Entry) bool) bool {
	f := p.feed
	if f == nil {
		for i, e := range p.Doc.Entries {
			if p.ctx != nil && i%ctxEvery == ctxEvery-1 && p.ctx.Err() != nil {
				return true // the entries end there
			}
			if !fn(e) {
				return false
			}
		}
		return true
	}
	if f.used {
		panic(errEntriesTwice)
	}
	f.used = true
	for {
		if wants == nil || wants(f.shared) {
			for i, e := range f.shared.entries {
				p.at = i
				if !fn(e) {
					return false
				}
			}
		}
		if f.shared.last || !f.suspend() {
			return true
		}
	}
}

// ctxEvery is how many entries Pass.Entries yields between two looks at
// the run's context.
const ctxEvery = 1024

// stream checks a document while the front end reads it: it is the
// OnEntries hook of ReadOptions. The rules of ScopeEntries run as
// coroutines, resumed on every window of entries; once they have seen a
// window, its entries go back to the front end's pool. Nothing is streamed
// before the kind of the document is known (its <rs:md> read): the entries
// are kept until then, and when the <rs:md> never comes, or when a selected
// rule needs the whole model (ScopeDocument: none of the catalogue's does),
// every rule runs on the whole document at the end, as Run does.
type stream struct {
	location string
	cfg      Config

	started bool
	whole   bool // a selected rule needs the whole model: nothing streams
	kind    rs.Kind
	rest    []*Rule // the rules that run at the end
	applied []*Rule
	cos     []*coroutine
	shared  window
	header  *rs.Document // what the rules of ScopeEntries see as Pass.Doc
	values  *values      // the values the rules of ScopeEntries require
	found   *findings    // what every rule of the document reports
	errs    []string

	// pool takes back each window once every rule has seen it: the
	// rules keep nothing of the model (see Scope), and the front end
	// builds the next entries in them.
	pool *rs.EntryPool
}

type coroutine struct {
	next func() (struct{}, bool)
	stop func()
	done bool
}

func newStream(location string, cfg Config) *stream {
	return &stream{location: location, cfg: cfg.WithDefaults(), pool: rs.NewEntryPool()}
}

// entries is the OnEntries hook: d.Entries are complete and not yet seen.
func (s *stream) entries(d *rs.Document) {
	if !s.started {
		if d.Md == nil || s.whole {
			return // kind unknown, or every entry needed: keep them for the end
		}
		if s.whole = !s.start(d); s.whole {
			return
		}
	}
	s.send(d, false)
}

// send resumes the rules on the entries of d not yet seen, with the header
// as read so far, then gives the entries back to the front end's pool.
// The rules run on the front end's goroutine, between two buffers of
// events: libxml2 goes on parsing meanwhile on the reader's (see schema's
// pass), the critical path; or after it, on the same goroutine, when the
// document is read inline (ReadOptions.Inline). On their own goroutine, with windows handed
// over a channel, they made three threads busy on two CPUs and took the
// reader's time: a 50,000-entry list took 0.34 s instead of 0.31 with the
// schema's deeper queue (medians of 25 alternating runs), and 0.1-0.3 MB
// more peak anonymous memory (two more windows in flight).
func (s *stream) send(d *rs.Document, last bool) {
	entries := d.Entries
	*s.header = *d
	s.header.Entries = nil
	d.Entries = nil
	s.feed(entries, last)
	s.pool.Put(entries)
}

// start starts the rules of ScopeEntries once the kind of the document is
// known, unless a selected rule needs the whole model (it returns false).
func (s *stream) start(d *rs.Document) bool {
	kind := d.Kind()
	applied := selectRules(kind, s.cfg, true)
	var entries, rest []*Rule
	for _, r := range applied {
		switch {
		case r.Input || r.Scope == ScopeHeader:
			rest = append(rest, r)
		case r.Scope == ScopeEntries:
			entries = append(entries, r)
		default:
			return false
		}
	}
	s.started, s.kind, s.applied, s.rest = true, kind, applied, rest
	// The rules of ScopeEntries see the header as read so far (complete
	// once Pass.Entries has ended), and no entry but through Pass.Entries.
	s.header = &rs.Document{}
	*s.header = *d
	s.header.Entries = nil
	in := &Input{Doc: s.header}
	s.values = newValues(entries)
	s.found = newFindings(s.location, kind, s.cfg)
	for _, r := range entries {
		co := &coroutine{}
		p := newPass(r, in, s.cfg, s.location, s.found.add)
		p.feed, p.values = &feed{shared: &s.shared}, s.values
		co.next, co.stop = iter.Pull(func(yield func(struct{}) bool) {
			p.feed.suspend = func() bool { return yield(struct{}{}) }
			if err := safeCheck(r, p); err != nil {
				s.errs = append(s.errs, couldNotRun(r, err))
			}
		})
		s.cos = append(s.cos, co)
	}
	return true
}

// feed resumes every rule on a window of entries; with last, the rules run
// to their end.
func (s *stream) feed(entries []*rs.Entry, last bool) {
	s.shared = newWindow(entries, last)
	if s.values != nil {
		s.values.fill(entries)
	}
	for _, co := range s.cos {
		if co.done {
			continue
		}
		if _, ok := co.next(); !ok || last {
			co.done = true
			co.stop()
		}
	}
}

// abort ends the coroutines of a document that will not be checked (it is
// not well-formed, or could not be read).
func (s *stream) abort() {
	for _, co := range s.cos {
		if !co.done {
			co.done = true
			co.stop()
		}
	}
}

// finish checks what is left once the document is read and gives the
// result: as Run when nothing was streamed.
func (s *stream) finish(ctx context.Context, in Input) Result {
	if in.Doc == nil || !s.started || ctx.Err() != nil {
		if s.started {
			s.abort() // the rules end where they are
		}
		return run(ctx, s.location, in, s.cfg)
	}
	s.send(in.Doc, true)
	res := Result{Location: s.location, Kind: s.kind}
	for _, r := range s.applied {
		res.Applied = append(res.Applied, r.ID)
	}
	errs := runChecks(ctx, s.location, &in, s.cfg, s.rest, s.found)
	return finishResult(res, in, s.found, append(s.errs, errs...))
}
