package crawler

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// refreshHistory fetches the open Change Lists and Change List Indexes
// once more, after the sampled resources, and records what they hold now;
// a list that an index names for the first time (the open list closed and
// a new one opened) is read too. So is every Change List (or index) that a
// Capability List names, even one that carries until: it is where a
// Destination looks for the latest changes (12.1), and a Source that goes
// on recording in a list it called closed (RS-REVISIT-CLOSED says so under
// --revisit) would otherwise leave a resource it deleted during the crawl
// unexplained in one run and explained in the next. The documents are not
// validated again: they only tell the History what the Source recorded.
func (c *crawl) refreshHistory() {
	c.mu.Lock()
	var open []string
	for _, n := range c.graph.Sorted() {
		if n.Role != graph.RoleDocument || n.Doc == nil || n.Doc.Md == nil {
			continue
		}
		if n.Kind == rs.CapabilityList {
			for _, e := range n.Doc.Entries {
				if e.Md != nil && rs.Capability(e.Md.Capability) == rs.CapChangeList {
					open = append(open, rs.Resolve(n.URL, e.Loc))
				}
			}
			continue
		}
		if n.Doc.Md.Until == "" && (n.Kind == rs.ChangeList || n.Kind == rs.ChangeList.Index()) {
			open = append(open, n.URL)
		}
	}
	c.mu.Unlock()
	seen := map[string]bool{}
	for len(open) > 0 {
		u := open[0]
		open = open[1:]
		if seen[u] || c.archived(u) || c.ctx.Err() != nil {
			continue
		}
		seen[u] = true
		d := c.refetch(opRefresh, u)
		if d == nil {
			continue
		}
		if d.Kind() == rs.ChangeList.Index() {
			for _, e := range d.Entries {
				m := rs.Resolve(u, e.Loc)
				c.mu.Lock()
				known := c.graph.Node(m) != nil
				c.mu.Unlock()
				if !known || e.Md == nil || e.Md.Until == "" {
					open = append(open, m)
				}
			}
		}
		c.update(func() {
			c.graph.RecordChanges(u, d, true)
			c.stats.Refetched++
		})
	}
}

// refetch fetches and parses a document again (op says why); nil when it
// cannot be had.
func (c *crawl) refetch(op, u string) *rs.Document {
	if !c.f.BudgetLeft() {
		return nil
	}
	r := c.get(op, u, sourcehttp.Request{Accept: acceptDocument, Decode: true})
	defer r.Close()
	if r.Failure() != "" {
		return nil
	}
	data, err := rs.ReadAll(r.Body, c.opts.maxSize())
	if err != nil {
		return nil
	}
	d, err := c.v.Parse(data)
	if err != nil {
		return nil
	}
	return d
}
