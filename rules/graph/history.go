package graph

import (
	"hash/fnv"
	"net/http"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// History is what the Source's Change Lists record about its resources, as
// far as the crawl read them (open and closed lists, archived ones when the
// crawl reached them, and the open lists fetched once more after the
// sampled resources: see crawler). A live Source changes while it is
// crawled; a resource is judged against the Source's own record of its
// changes, so that a change the Source recorded is never a finding.
//
// Per resource it keeps the latest change, the latest deletion and every
// recorded change in chronological order (for RS-RL-AT-CHANGES, which
// needs the latest change before a Resource List's at), keyed by a 64-bit
// fingerprint of the URL: memory grows with the changes the crawl reads
// (a time, the change, hash, lastmod and the entry's location each).
type History struct {
	changes map[uint64]*RecordedChange
}

// RecordedChange is the latest change a Change List records of a resource.
type RecordedChange struct {
	// At is the datetime of the latest change; Change its change
	// attribute ("created", "updated", "deleted").
	At     time.Time
	Change string
	// Deleted is the datetime of the latest deletion (zero: none).
	Deleted time.Time
	// List and Pos locate the entry of the latest change.
	List string
	Pos  rs.Pos
	// Loc is the <loc> of the latest change's entry, as written.
	Loc string
	// Series is every change recorded of the resource, oldest first; a
	// list read twice (the open lists fetched once more) adds nothing.
	Series []Change
}

// Change is one change a Change List entry records.
type Change struct {
	At time.Time
	// Change is the change attribute; Hash and Lastmod what the entry says
	// of the resource after the change ("" when it does not say).
	Change, Hash, Lastmod string
	// List and Pos locate the entry.
	List string
	Pos  rs.Pos
}

// add inserts ch in chronological order, unless the same change is
// already there.
func (c *RecordedChange) add(ch Change) {
	i := len(c.Series)
	for i > 0 && c.Series[i-1].At.After(ch.At) {
		i--
	}
	for j := i - 1; j >= 0 && c.Series[j].At.Equal(ch.At); j-- {
		if o := c.Series[j]; o.Change == ch.Change && o.Hash == ch.Hash && o.Lastmod == ch.Lastmod {
			return
		}
	}
	c.Series = append(c.Series, Change{})
	copy(c.Series[i+1:], c.Series[i:])
	c.Series[i] = ch
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

// Record adds the changes a Change List at list records; resolve maps an
// entry's <loc> to the URL the crawl fetches it at. Entries without a
// datetime that parses are ignored.
func (h *History) Record(list string, d *rs.Document, resolve func(loc string) string) {
	if d == nil || d.Kind() != rs.ChangeList {
		return
	}
	if h.changes == nil {
		h.changes = map[uint64]*RecordedChange{}
	}
	for _, e := range d.Entries {
		if e.Md == nil || e.Loc == "" {
			continue
		}
		t, ok := instant(e.Md.Datetime)
		if !ok {
			continue
		}
		k := historyKey(resolve(e.Loc))
		c := h.changes[k]
		if c == nil {
			c = &RecordedChange{}
			h.changes[k] = c
		}
		change := strings.TrimSpace(e.Md.Change)
		if change == "deleted" && t.After(c.Deleted) {
			c.Deleted = t
		}
		if c.List == "" || t.After(c.At) {
			c.At, c.Change, c.List, c.Pos, c.Loc = t, change, list, entryLocPos(e), strings.TrimSpace(e.Loc)
		}
		c.add(Change{At: t, Change: change, Hash: strings.TrimSpace(e.Md.Hash), Lastmod: strings.TrimSpace(e.Lastmod), List: list, Pos: entryLocPos(e)})
	}
}

// Latest is the latest change recorded of the resource at url, or nil.
func (h *History) Latest(url string) *RecordedChange {
	if h == nil || h.changes == nil {
		return nil
	}
	return h.changes[historyKey(url)]
}

// claimTime is the time a claim about a resource was made: the datetime
// of a Change List entry, the at of a Resource List (the start of its
// snapshot: a change during the snapshot may or may not show in it).
func claimTime(e Edge, from *Node) (time.Time, bool) {
	switch from.Kind {
	case rs.ChangeList:
		if e.Md != nil {
			return instant(e.Md.Datetime)
		}
	case rs.ResourceList:
		if from.Doc.Md != nil {
			return instant(from.Doc.Md.At)
		}
	}
	return time.Time{}, false
}

// laterChange says why the resource n may rightly differ from the claim
// the edge carries: the Source's Change Lists record a change of it after
// the claim's time, or it was modified (Last-Modified, in any common form)
// after it. "" when the Source says nothing of the kind, and the claim
// stands.
func laterChange(g *Graph, n *Node, e Edge, from *Node) string {
	t, ok := claimTime(e, from)
	c := g.History.Latest(n.URL)
	switch {
	case !ok && c != nil:
		return "its Change Lists record a change (" + c.Change + " at " + rs.FormatDatetime(c.At) + ")"
	case !ok:
		return ""
	case c != nil && c.At.After(t):
		return "its Change Lists record a later change (" + c.Change + " at " + rs.FormatDatetime(c.At) + ")"
	}
	if lm, _, ok := ParseLastModified(n.Header.Get("Last-Modified")); ok && lm.After(t) {
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
		if !parsed(n) || n.Kind != rs.ChangeList || n.Doc.Md == nil {
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
