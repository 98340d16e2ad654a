package crawler

import (
	"fmt"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
)

// ParseSample reads a sample size as --sample (crawl, suite source) and a
// monitor's Sources file give it: a count, all (SampleAll), or 0. Its
// error quotes the value; the caller names where it came from.
func ParseSample(s string) (int, error) {
	if strings.EqualFold(s, "all") {
		return SampleAll, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: want a number of resources per list, all or 0", s)
	}
	return n, nil
}

// sample picks the resources of the list at u to fetch, spread evenly over
// it, and records what it left and why. A closed Change List is not sampled
// (it describes the past); of an open Change List only the last change of
// each resource, unless a deletion: only then does the entry describe what
// the Source serves now. Whether the list is archived is decided once every
// document is fetched (sampleLists).
func (c *crawl) sample(u string, d *rs.Document) (*graph.SampledList, []*rs.Entry) {
	sl := &graph.SampledList{Location: u, Kind: d.Kind(), Skipped: map[string]int{}}
	var cand []*rs.Entry
	for _, e := range d.Entries {
		if e.Loc != "" {
			sl.Entries++
			cand = append(cand, e)
		}
	}
	c.mu.Lock()
	c.sampled = append(c.sampled, sl)
	c.mu.Unlock()
	switch {
	case d.Kind() == rs.ChangeList && (d.Md == nil || d.Md.Has("until")):
		sl.Skipped[graph.SkipClosed] = len(cand)
		return sl, nil
	case d.Kind() == rs.ChangeList:
		last := map[string]int{}
		for i, e := range cand {
			last[strings.TrimSpace(e.Loc)] = i
		}
		kept := cand[:0:0]
		for i, e := range cand {
			switch {
			case last[strings.TrimSpace(e.Loc)] != i:
				sl.Skipped[graph.SkipEarlier]++
			case e.Md != nil && e.Md.Change == "deleted":
				sl.Skipped[graph.SkipDeleted]++
			default:
				kept = append(kept, e)
			}
		}
		cand = kept
	}
	n := c.opts.Sample
	if n == SampleAll || n >= len(cand) {
		return sl, cand
	}
	sl.Skipped[graph.SkipLimit] = len(cand) - n
	out := make([]*rs.Entry, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cand[i*len(cand)/n])
	}
	return sl, out
}

// listSample is a list's sampled resources, held until every document is
// fetched.
type listSample struct {
	sl    *graph.SampledList
	tasks []task
}

// sampleLists schedules the resources the lists' samples picked, once every
// document is fetched: only then is it known, whatever order the fetches
// took, which lists an archive reaches. An archived list is not sampled (it
// describes the past).
func (c *crawl) sampleLists() {
	c.mu.Lock()
	lists := c.lists
	c.lists = nil
	c.mu.Unlock()
	for _, l := range lists {
		if c.archived(l.sl.Location) {
			c.mu.Lock()
			l.sl.Skipped = map[string]int{graph.SkipArchived: l.sl.Entries}
			c.mu.Unlock()
			continue
		}
		for _, t := range l.tasks {
			c.enqueue(t)
		}
	}
}

// sampling assembles what was sampled once the crawl is done: the entries
// picked whose resource was not fetched count by the reason it was not.
func (c *crawl) sampling() *graph.Sampling {
	s := &graph.Sampling{Skipped: map[string]int{}}
	byList := map[string]*graph.SampledList{}
	for _, sl := range c.sampled {
		byList[sl.Location] = sl
	}
	for _, n := range c.graph.Sorted() {
		if n.Role != graph.RoleResource {
			// A listed URL the crawl read as something else (its entry
			// page: a Source may list its home page; a document; a
			// describedby target): not judged against the list's claim.
			for _, e := range n.In {
				if sl := byList[e.From]; sl != nil && e.Rel == "loc" {
					sl.Skipped[graph.SkipPage]++
				}
			}
			continue
		}
		if n.Skipped == "" {
			s.Resources++
		}
		for _, e := range n.In {
			sl := byList[e.From]
			if sl == nil {
				continue
			}
			switch {
			case n.Skipped == "":
				sl.Sampled++
			case strings.Contains(n.Skipped, "budget") || strings.Contains(n.Skipped, "max-documents"):
				sl.Skipped[graph.SkipBudget]++
			case strings.Contains(n.Skipped, "host"):
				sl.Skipped[graph.SkipHost]++
			default:
				sl.Skipped[graph.SkipOther]++
			}
		}
	}
	for _, sl := range c.sampled {
		s.Lists = append(s.Lists, *sl)
		for r, k := range sl.Skipped {
			s.Skipped[r] += k
		}
	}
	return s
}
