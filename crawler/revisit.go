package crawler

// revisit pauses for Options.Revisit, then reads the lists, dumps and
// closed documents once more, so that the rules can compare (rules/graph/revisit.go).
func (c *crawl) revisit() {
	if err := c.pause(c.opts.Revisit); err != nil {
		return
	}
	c.mu.Lock()
	var urls []string
	for _, n := range c.graph.Sorted() {
		if n.Revisits() && n.Skipped == "" && n.FetchError == "" {
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
			c.graph.SetRevisit(c.graph.Node(u), d)
			c.stats.Revisited++
		})
	}
}
