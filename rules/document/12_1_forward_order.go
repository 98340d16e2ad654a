package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// ForwardOrder is the forward chronological order check of RS-CL-ORDER for
// the rules of another package that walk the entries themselves (the
// archives' RS-ARCHIVE-CL-ORDER): the one comparison (compareInstants)
// and the one message. One ForwardOrder checks one time of the entries.
type ForwardOrder struct{ o orderCheck }

// Next takes the time of the next entry, its attribute what at pos (ok
// false when the entry has none), and reports it when it is earlier than
// the latest listed before it; it returns whether it did.
func (c *ForwardOrder) Next(p *engine.Pass, what string, t rs.Datetime, pos rs.Pos, ok bool) bool {
	f, bad := c.o.next(t, pos, ok)
	if bad {
		f.report(p, what, forwardOrder)
	}
	return bad
}
