package crawler

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
)

// revisits reports whether a document is read again by --revisit: the
// lists and dumps, and whatever carried until.
func revisits(n *rules.Node) bool {
	if n.Role != rules.RoleDocument || n.Doc == nil || n.Doc.Md == nil {
		return false
	}
	switch n.Kind.Base() {
	case rs.ResourceList, rs.ChangeList, rs.ResourceDump, rs.ChangeDump:
		return true
	}
	return n.Doc.Md.Until != ""
}

// noteForRevisit keeps what a second visit is compared with; c.mu held.
func (c *crawl) noteForRevisit(n *rules.Node, d *rs.Document) {
	if c.opts.Revisit <= 0 || !revisits(n) {
		return
	}
	if n.Canonical == "" {
		n.Canonical = canonical(d)
	}
	if d.Kind() == rs.ResourceList {
		n.Claims = rules.NoteClaims(d.Entries)
	}
	if d.Kind() == rs.ChangeList {
		n.EntriesDigest = rules.EntriesDigest(d.Entries)
		if len(d.Entries) > 0 && d.Entries[len(d.Entries)-1].Md != nil {
			n.LastDatetime = d.Entries[len(d.Entries)-1].Md.Datetime
		}
	}
}

// revisit pauses for Options.Revisit, then reads the lists, dumps and
// closed documents once more, so that the rules can compare (rules/graph_revisit.go).
func (c *crawl) revisit() {
	if err := c.pause(c.opts.Revisit); err != nil {
		return
	}
	c.mu.Lock()
	var urls []string
	for _, n := range c.graph.Sorted() {
		if revisits(n) && n.Skipped == "" && n.FetchError == "" {
			urls = append(urls, n.URL)
		}
	}
	c.mu.Unlock()
	for _, u := range urls {
		if c.ctx.Err() != nil {
			return
		}
		d := c.refetch(opRevisit, u)
		if d == nil {
			continue
		}
		c.update(func() {
			n := c.graph.Node(u)
			rv := &rules.Revisit{Canonical: canonical(d), Entries: len(d.Entries)}
			if d.Md != nil {
				rv.Md = d.Detached(false).Md
			}
			if d.Kind() == rs.ChangeList && len(d.Entries) >= n.Entries {
				rv.PrefixDigest = rules.EntriesDigest(d.Entries[:n.Entries])
				rv.Disorder, rv.DisorderPos = rules.AppendedDisorder(n.LastDatetime, d.Entries[n.Entries:])
				c.recordHistory(u, d)
			}
			if d.Kind() == rs.ResourceList {
				rv.LastmodMoves, rv.LastmodCount = n.Claims.Moves(d.Entries)
			}
			n.Revisit = rv
			c.stats.Revisited++
		})
	}
}
