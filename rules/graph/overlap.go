package graph

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// clInterval is the interval a Change List covers: from, and until when it
// is closed (open: zero).
type clInterval struct {
	n           *Node
	from, until time.Time
}

func intervalOf(n *Node) (clInterval, bool) {
	if !n.Parsed() || n.Kind != rs.ChangeList || n.Doc.Md == nil {
		return clInterval{}, false
	}
	from, ok, err := n.Doc.Md.Time("from")
	if !ok || err != nil {
		return clInterval{}, false
	}
	iv := clInterval{n: n, from: from.Time.UTC()}
	if until, ok, err := n.Doc.Md.Time("until"); ok && err == nil {
		iv.until = until.Time.UTC()
	}
	return iv, true
}

// 12.1: "The from attribute indicates that the Change List includes all
// changes that occurred to the set of resources at the Source since the
// datetime expressed as the value of the attribute."
var ChangeListOverlap = &engine.Rule{
	ID: "RS-CL-OVERLAP", Section: "12.1", Level: engine.Must,
	Title: "Change Lists whose intervals overlap record the same changes inside the overlap",
	Quote: "The from attribute indicates that the Change List includes all changes that occurred to the set of resources at the Source since the datetime expressed as the value of the attribute.",
	Doc: "Section 7 says the same of from and until: \"all changes that occurred to the set of resources at the Source since the datetime expressed (and up until the datetime expressed in the until attribute, if it exists) are included in the document to which the attribute pertains.\" " +
		"When two Change Lists the crawl read cover overlapping intervals (RS-CLI-CONTIGUOUS checks the gaps between them), a change one of them records strictly inside the overlap must be in the other too. Checked for every pair of which at least one is closed (two open lists were read at different moments, and a change may have come between). " +
		"A change is placed by the History's bounds (docs/history.md: datetime, else <lastmod>, the order of the entries, the list's from and until); only a change that every clue puts strictly inside the overlap is required, and the other list satisfies it with any change of the same resource whose bounds allow the same time. Reported at the entry that records the change, with the other list as related location.",
	CheckGraph: Check(func(p *Pass) error {
		g := p.Graph
		var lists []clInterval
		for _, n := range g.docs() {
			if iv, ok := intervalOf(n); ok {
				lists = append(lists, iv)
			}
		}
		if len(lists) < 2 {
			return nil
		}
		partners := overlapsOf(lists)
		var out []snapshotFinding
		g.History.Each(func(_ uint64, c *RecordedChange) {
			for i := range c.Series {
				x := &c.Series[i]
				for _, o := range partners[x.List] {
					if !x.Earliest.After(o.start) || x.Latest.IsZero() || !x.Latest.Before(o.end) {
						continue
					}
					if recordedIn(c, o.other.URL, x) {
						continue
					}
					out = append(out, snapshotFinding{url: x.List, pos: x.Pos, related: loc(o.other.URL, o.other.Doc.Md.Pos),
						msg: "this change of " + c.Loc + " (" + x.Change + ", " + x.When() + ") falls between " + rs.FormatDatetime(o.start) + " and " + rs.FormatDatetime(o.end) +
							", which " + o.other.URL + " covers too (its from and until), but that list records no change of it then: a Change List includes all changes of its interval"})
				}
			}
		})
		reportFindings(p, out)
		return nil
	}),
}

// clOverlap is the overlap of a Change List's interval with that of
// another list, other: from start to end, both set.
type clOverlap struct {
	other      *Node
	start, end time.Time
}

// overlapsOf maps each list's URL to the lists whose intervals overlap its
// own, in the order of lists, for every pair of which at least one is
// closed; computed once, not per change.
func overlapsOf(lists []clInterval) map[string][]clOverlap {
	out := map[string][]clOverlap{}
	for _, a := range lists {
		for _, b := range lists {
			if b.n == a.n || a.until.IsZero() && b.until.IsZero() {
				continue
			}
			start, end := a.from, a.until
			if b.from.After(start) {
				start = b.from
			}
			if end.IsZero() || !b.until.IsZero() && b.until.Before(end) {
				end = b.until
			}
			if start.Before(end) {
				out[a.n.URL] = append(out[a.n.URL], clOverlap{other: b.n, start: start, end: end})
			}
		}
	}
	return out
}

// recordedIn reports whether the list at url records a change of the
// resource whose bounds allow the time of x.
func recordedIn(c *RecordedChange, url string, x *Change) bool {
	for i := range c.Series {
		y := &c.Series[i]
		if y.List != url {
			continue
		}
		if !y.Latest.IsZero() && y.Latest.Before(x.Earliest) || !x.Latest.IsZero() && x.Latest.Before(y.Earliest) {
			continue
		}
		return true
	}
	return false
}

func init() { engine.Register(ChangeListOverlap) }
