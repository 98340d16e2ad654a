package graph

import (
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// History is what the Source's Change Lists record about its resources, as
// far as the crawl read them (open and closed lists, archived ones when the
// crawl reached them, and the open lists fetched once more after the
// sampled resources, and again with --revisit: see crawler). A live Source
// changes while it is crawled; a resource is judged against the Source's
// own record of its changes, so that a change the Source recorded is never
// a finding.
//
// The History places each change in time from every clue the Source gives
// (docs/history.md has the table): the entry's datetime, else its
// <lastmod> (the time of the change in 1.0; in 1.1 the resource's last
// modification, which the change follows: a lower bound), each to its
// granularity; the
// forward chronological order of the entries of a Change List, which 12.1
// makes mandatory (a later entry is a later change whatever its time says,
// and it happened no earlier than any entry before it, no later than any
// after it); and the list's from and until. A change no clue places is
// "at an unknown time": it may come after any claim.
//
// Per resource it keeps every recorded change in the Source's order, keyed
// by a 64-bit fingerprint of the URL: memory grows with the changes the
// crawl reads (times, the change, hash, length, lastmod and the entry's
// location each), plus 8 bytes per entry of each Change List read.
type History struct {
	// Spec is the profile the lists are read under. Under 1.0 <lastmod>
	// is the time of the change, and bounds it on both sides; under 1.1
	// it is the last modification of the resource, which the change
	// follows (the spec's own example in 12.1 has a created resource whose
	// <lastmod> is earlier than the list's from): it bounds the change
	// from below only.
	Spec    engine.Spec
	changes map[uint64]*RecordedChange
	// lists holds, per Change List URL, the fingerprints of the entries
	// of its latest reading, and its generation.
	lists map[string]*listReading
	// reread is set when a Change List was read again after the sampled
	// resources were fetched (RecordAgain).
	reread bool
}

// listReading is what the History knows of the readings of one list.
type listReading struct {
	gen    int
	prints []uint64
}

// RecordedChange is what the Change Lists record of one resource.
type RecordedChange struct {
	// Loc is the <loc> of the latest change's entry, as written.
	Loc string
	// Series is every change recorded of the resource, in the Source's
	// order (see History); a list read twice adds nothing twice.
	Series []Change
}

// Last is the latest change recorded, nil when none.
func (c *RecordedChange) Last() *Change {
	if c == nil || len(c.Series) == 0 {
		return nil
	}
	return &c.Series[len(c.Series)-1]
}

// Change is one change a Change List entry records.
type Change struct {
	// At is the time the entry gives: its datetime, else its <lastmod>
	// (Clue says which: "datetime", "lastmod", "" for none, At then zero).
	At   time.Time
	Clue string
	// Earliest and Latest bound when the change happened, from every clue
	// (see History); a zero Latest is unbounded: the entry is in an open
	// list and no entry after it gives a time.
	Earliest, Latest time.Time
	// Change is the change attribute; Hash, Length and Lastmod what the
	// entry says of the resource after the change ("" when it does not
	// say).
	Change, Hash, Length, Lastmod string
	// List and Pos locate the entry; Index is its number in the list
	// (from 0), Gen the list's generation: a list read again whose earlier
	// entries are not those of the previous reading was rewritten, and
	// all of its entries count as later than the previous reading's.
	List       string
	Pos        rs.Pos
	Index, Gen int
}

// When says when the change happened, as far as the clues tell.
func (ch *Change) When() string {
	switch {
	case ch.Clue != "":
		return ch.Clue + " " + rs.FormatDatetime(ch.At)
	case !ch.Earliest.IsZero() && !ch.Latest.IsZero():
		return "between " + rs.FormatDatetime(ch.Earliest) + " and " + rs.FormatDatetime(ch.Latest)
	case !ch.Earliest.IsZero():
		return "after " + rs.FormatDatetime(ch.Earliest)
	case !ch.Latest.IsZero():
		return "before " + rs.FormatDatetime(ch.Latest)
	}
	return "at a time no clue gives"
}

// describe names a change for messages: what, when, where.
func (ch *Change) describe() string {
	return ch.Change + ", " + ch.When() + ", entry " + strconv.Itoa(ch.Index+1) + " of " + ch.List
}

// sameList reports whether a and b are entries of one reading of one list.
func sameList(a, b *Change) bool { return a.List == b.List && a.Gen == b.Gen }

// order places change a against change b in the Source's record: -1 a is
// earlier, 1 a is later, 0 the clues cannot tell (or they are one entry).
// Entries of one list are ordered by their place in it (12.1), whatever
// their times say; entries of different lists by the bounds of their
// times, a later generation of a list being later.
func order(a, b *Change) int {
	switch {
	case sameList(a, b) && a.Index < b.Index:
		return -1
	case sameList(a, b) && a.Index > b.Index:
		return 1
	case sameList(a, b):
		return 0
	case a.List == b.List && a.Gen > b.Gen:
		return 1
	case a.List == b.List:
		return -1
	case !a.Latest.IsZero() && a.Latest.Before(b.Earliest):
		return -1
	case !b.Latest.IsZero() && b.Latest.Before(a.Earliest):
		return 1
	}
	return 0
}

// add inserts ch in the Source's order, or updates the bounds of the same
// entry read before.
func (c *RecordedChange) add(ch Change) {
	for i := range c.Series {
		if o := &c.Series[i]; sameList(o, &ch) && o.Index == ch.Index {
			o.Earliest, o.Latest = ch.Earliest, ch.Latest
			return
		}
	}
	i := len(c.Series)
	for i > 0 && earlier(&ch, &c.Series[i-1]) {
		i--
	}
	c.Series = append(c.Series, Change{})
	copy(c.Series[i+1:], c.Series[i:])
	c.Series[i] = ch
}

// earlier is the order Series is kept in: order where it tells, else the
// earliest time.
func earlier(a, b *Change) bool {
	if o := order(a, b); o != 0 {
		return o < 0
	}
	return a.Earliest.Before(b.Earliest)
}

// Each calls fn for every resource the History records, by the
// fingerprint of its URL.
func (h *History) Each(fn func(key uint64, c *RecordedChange)) {
	if h == nil {
		return
	}
	for k, c := range h.changes {
		fn(k, c)
	}
}

func historyKey(url string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(url))
	return h.Sum64()
}

// entryPrint fingerprints what an entry of a Change List says, to tell a
// list that grew from one that was rewritten.
func entryPrint(e *rs.Entry) uint64 {
	h := fnv.New64a()
	writeEntry(h, e)
	return h.Sum64()
}

// timeClue is the time an entry gives for its change: datetime, else
// <lastmod> (surrounding space trimmed), as the period its granularity
// denotes; clue says which, "" when neither parses.
func timeClue(md *rs.Md, lastmod string) (start, end time.Time, clue string) {
	if md != nil {
		if d, ok, err := md.Time("datetime"); ok && err == nil {
			return d.Time.UTC(), d.End().UTC(), "datetime"
		}
	}
	if d, err := rs.ParseDatetime(strings.TrimSpace(lastmod)); err == nil {
		return d.Time.UTC(), d.End().UTC(), "lastmod"
	}
	return time.Time{}, time.Time{}, ""
}

// Record adds the changes a Change List at list records; resolve maps an
// entry's <loc> to the URL the crawl fetches it at.
func (h *History) Record(list string, d *rs.Document, resolve func(loc string) string) {
	if d == nil || d.Kind() != rs.ChangeList {
		return
	}
	if h.changes == nil {
		h.changes = map[uint64]*RecordedChange{}
		h.lists = map[string]*listReading{}
	}
	// The list's interval bounds every entry; the entries' own times
	// bound those around them (forward chronological order).
	var from, until time.Time
	if d.Md != nil {
		if t, ok, err := d.Md.Time("from"); ok && err == nil {
			from = t.Time.UTC()
		}
		if t, ok, err := d.Md.Time("until"); ok && err == nil {
			until = t.End().UTC()
		}
	}
	n := len(d.Entries)
	starts, ends, clues := make([]time.Time, n), make([]time.Time, n), make([]string, n)
	for i, e := range d.Entries {
		starts[i], ends[i], clues[i] = timeClue(e.Md, e.Lastmod)
		if clues[i] == "lastmod" && h.Spec != engine.Spec10 {
			ends[i] = time.Time{}
		}
	}
	earliest, latest := make([]time.Time, n), make([]time.Time, n)
	lo := from
	for i := range n {
		if starts[i].After(lo) {
			lo = starts[i]
		}
		earliest[i] = lo
	}
	hi := until
	for i := n - 1; i >= 0; i-- {
		if !ends[i].IsZero() && (hi.IsZero() || ends[i].Before(hi)) {
			hi = ends[i]
		}
		latest[i] = hi
	}
	// A new reading of a list read before: the entries it had are kept
	// (their bounds may be narrower now), unless the list was rewritten.
	prints := make([]uint64, n)
	for i, e := range d.Entries {
		prints[i] = entryPrint(e)
	}
	r := h.lists[list]
	if r == nil {
		r = &listReading{}
		h.lists[list] = r
	} else {
		for i := 0; i < len(r.prints); i++ {
			if i >= n || prints[i] != r.prints[i] {
				r.gen++
				break
			}
		}
	}
	r.prints = prints
	for i, e := range d.Entries {
		if e.Md == nil || e.Loc == "" {
			continue
		}
		lo, hi := earliest[i], latest[i]
		if !hi.IsZero() && hi.Before(lo) {
			// Times out of order (RS-CL-ORDER says so): trust neither
			// bound beyond the other.
			lo, hi = hi, lo
		}
		k := historyKey(resolve(e.Loc))
		c := h.changes[k]
		if c == nil {
			c = &RecordedChange{}
			h.changes[k] = c
		}
		ch := Change{At: starts[i], Clue: clues[i], Earliest: lo, Latest: hi,
			Change: strings.TrimSpace(e.Md.Change), Hash: strings.TrimSpace(e.Md.Hash), Length: strings.TrimSpace(e.Md.Length),
			Lastmod: strings.TrimSpace(e.Lastmod), List: list, Pos: entryLocPos(e), Index: i, Gen: r.gen}
		c.add(ch)
		if last := c.Last(); last.List == list && last.Gen == r.gen && last.Index == i {
			c.Loc = strings.TrimSpace(e.Loc)
		}
	}
}

// RecordAgain is Record for a list read again after the sampled resources
// were fetched (the crawl's refresh, --revisit): the History then covers
// the time of those fetches, as far as the lists cover it.
func (h *History) RecordAgain(list string, d *rs.Document, resolve func(loc string) string) {
	h.Record(list, d, resolve)
	if d != nil && d.Kind() == rs.ChangeList {
		h.reread = true
	}
}

// Latest is what the Change Lists record of the resource at url, or nil.
func (h *History) Latest(url string) *RecordedChange {
	if h == nil || h.changes == nil {
		return nil
	}
	return h.changes[historyKey(url)]
}

// entry is the change the entry at pos of list records of the resource at
// url, from the list's first reading; nil when the History does not hold it.
func (h *History) entry(url, list string, pos rs.Pos) *Change {
	var out *Change
	c := h.Latest(url)
	if c == nil {
		return nil
	}
	for i := range c.Series {
		if ch := &c.Series[i]; ch.List == list && ch.Pos == pos && (out == nil || ch.Gen < out.Gen) {
			out = ch
		}
	}
	return out
}

// claim is when a claim about a resource was made: lo and hi bound it
// (a zero hi is unbounded). A Resource List's claim is its snapshot, from
// at to completed (a change during the snapshot may or may not show in
// it); a Change List entry's is the change it records (own), placed by
// the History. ok is false when the claim gives no time at all.
type claim struct {
	lo, hi time.Time
	own    *Change
	ok     bool
}

func claimOf(g *Graph, n *Node, e Edge, from *Node) (c claim) {
	switch from.Kind {
	case rs.ChangeList:
		if c.own = g.History.entry(n.URL, e.From, e.Pos); c.own != nil {
			c.lo, c.hi = c.own.Earliest, c.own.Latest
			c.ok = !c.lo.IsZero() || !c.hi.IsZero()
			return c
		}
		if lo, hi, clue := timeClue(e.Md, e.Lastmod); clue != "" {
			return claim{lo: lo, hi: hi, ok: true}
		}
	case rs.ResourceList:
		if from.Doc.Md != nil {
			if at, ok, err := from.Doc.Md.Time("at"); ok && err == nil {
				c.lo, c.hi, c.ok = at.Time.UTC(), at.End().UTC(), true
				if done, ok, err := from.Doc.Md.Time("completed"); ok && err == nil && done.End().After(c.hi) {
					c.hi = done.End().UTC()
				}
			}
		}
	}
	return c
}

// claimTime is the earliest time a claim may have been made, for the
// coverage of the Change Lists; ok is false when it gives none.
func claimTime(g *Graph, n *Node, e Edge, from *Node) (time.Time, bool) {
	c := claimOf(g, n, e, from)
	if !c.ok {
		return time.Time{}, false
	}
	if c.lo.IsZero() {
		return c.hi, true
	}
	return c.lo, true
}

// after places a recorded change against a claim: 1 certainly later, 0
// perhaps later (the clues cannot tell), -1 earlier (or the claim's own
// entry).
func (c claim) after(ch *Change) int {
	if c.own != nil {
		if ch == c.own {
			return -1
		}
		if o := order(ch, c.own); o != 0 {
			return o
		}
		return 0
	}
	switch {
	case !c.ok:
		return 0
	case !ch.Latest.IsZero() && ch.Latest.Before(c.lo):
		return -1
	case !c.hi.IsZero() && ch.Earliest.After(c.hi):
		return 1
	}
	return 0
}

// laterChanges returns the changes the Source's Change Lists record of
// the resource n that come, or may come, after the claim the edge
// carries, in the Source's order, and whether one certainly does.
func laterChanges(g *Graph, n *Node, e Edge, from *Node) (later []*Change, certain bool) {
	rc := g.History.Latest(n.URL)
	if rc == nil {
		return nil, false
	}
	cl := claimOf(g, n, e, from)
	for i := range rc.Series {
		switch cl.after(&rc.Series[i]) {
		case 1:
			certain = true
			later = append(later, &rc.Series[i])
		case 0:
			later = append(later, &rc.Series[i])
		}
	}
	return later, certain
}

// laterChange says why the resource n may rightly differ from the claim
// the edge carries: the Source's Change Lists record a change of it that
// comes, or may come, after the claim (see History), or it was modified
// (Last-Modified, in any common form, no later than the response's Date)
// after the claim. "" when the Source says nothing of the kind, and the
// claim stands.
func laterChange(g *Graph, n *Node, e Edge, from *Node) string {
	later, certain := laterChanges(g, n, e, from)
	if len(later) > 0 {
		last := later[len(later)-1]
		what := "a change that may come after the claim"
		if certain {
			what = "a change after the claim"
		}
		if len(later) > 1 {
			what += " (" + strconv.Itoa(len(later)) + " such changes)"
		}
		return "its Change Lists record " + what + ": " + last.describe()
	}
	cl := claimOf(g, n, e, from)
	if !cl.ok {
		return ""
	}
	lm, _, ok := ParseLastModified(n.Header.Get("Last-Modified"))
	if !ok {
		return ""
	}
	// A Last-Modified later than the response's Date is no clue (RFC 9110,
	// 8.8.2.1: an origin server with a clock does not send one).
	if date, err := http.ParseTime(n.Header.Get("Date")); err == nil && lm.After(date.Add(time.Second)) {
		return ""
	}
	// The claim of a Change List entry is the change itself: only a
	// modification after the latest time it may have been made is a later
	// one; a snapshot's claims are from its at on.
	t := cl.lo
	if cl.own != nil && !cl.hi.IsZero() {
		t = cl.hi
	}
	if lm.After(t) {
		return "it was modified since (Last-Modified: " + n.Header.Get("Last-Modified") + ")"
	}
	return ""
}

// lastModifiedLayouts are the forms of Last-Modified met in the wild
// beyond RFC 9110's three: numeric zones, other zone names, ISO 8601.
var lastModifiedLayouts = []string{
	time.RFC1123Z, time.RFC1123, time.RFC850, time.ANSIC, time.RFC3339Nano,
	"Mon, 2 Jan 2006 15:04:05 MST", "Mon, 2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05 MST",
	"Monday, 02 Jan 2006 15:04:05 MST",
}

// ParseLastModified reads a Last-Modified value: httpDate is true when it
// is an RFC 9110 HTTP-date (IMF-fixdate or one of the two obsolete forms,
// in GMT), ok when it parses in any common form at all.
func ParseLastModified(v string) (t time.Time, httpDate, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false, false
	}
	if t, err := http.ParseTime(v); err == nil {
		return t, true, true
	}
	for _, l := range lastModifiedLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), false, true
		}
	}
	if t, ok := instant(v); ok {
		return t, false, true
	}
	return time.Time{}, false, false
}

// changeListCoverage says whether the Change Lists the crawl read cover
// the time since t (up to now: an open list covers up to now), and which
// intervals they do cover, for messages.
func changeListCoverage(g *Graph, t time.Time) (covered bool, intervals []string) {
	type span struct {
		from, until time.Time
		open        bool
	}
	var spans []span
	for _, n := range g.Sorted() {
		if !n.Parsed() || n.Kind != rs.ChangeList || n.Doc.Md == nil {
			continue
		}
		from, ok := instant(n.Doc.Md.From)
		if !ok {
			continue
		}
		s := span{from: from, open: true}
		if until, ok := instant(n.Doc.Md.Until); ok {
			s.until, s.open = until, false
		}
		spans = append(spans, s)
		if s.open {
			intervals = append(intervals, "from "+n.Doc.Md.From+" on")
		} else {
			intervals = append(intervals, n.Doc.Md.From+" to "+n.Doc.Md.Until)
		}
	}
	// Walk forward from t through lists that start at or before the point
	// reached, until an open one.
	reached := t
	for progress := true; progress; {
		progress = false
		for _, s := range spans {
			if s.from.After(reached) {
				continue
			}
			if s.open {
				return true, intervals
			}
			if s.until.After(reached) {
				reached, progress = s.until, true
			}
		}
	}
	return false, intervals
}
