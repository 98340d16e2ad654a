package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Time, observed (--revisit): the crawl fetches the Source's lists once
// more after a pause and compares. A closed document must not change; an
// open Change List only grows at its end, in forward order; a Resource
// List's at does not go back.

// Revisit is what a second visit of a document found.
type Revisit struct {
	// Md is the top-level <rs:md> the second visit read; nil when none.
	Md *rs.Md
	// Canonical is the hex sha-256 of the document as resourcesync.Write
	// re-serialises it (see Node.Canonical).
	Canonical string
	// Entries is the number of entries; PrefixDigest the EntriesDigest of
	// the first Node.Entries of them ("" when there are fewer).
	Entries      int
	PrefixDigest string
	// Disorder says how the entries added since the first visit break
	// forward chronological order after the previous last one ("" when
	// they do not), at DisorderPos.
	Disorder    string
	DisorderPos rs.Pos
	// LastmodMoves are the entries of a Resource List whose <lastmod>
	// moved since the first visit while their hash stayed (EntryClaims.Moves).
	LastmodMoves []LastmodMove
}

// EntriesDigest digests what the entries of a list say (<loc>, change,
// datetime, hash, length, <lastmod>), in order: two visits of a list that
// only grew have the same digest over the first visit's entries.
func EntriesDigest(entries []*rs.Entry) string {
	h := sha256.New()
	for _, e := range entries {
		writeEntry(h, e)
		h.Write([]byte{1})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeEntry writes what an entry of a change document says (<loc>,
// <lastmod>, change, datetime, hash, length), each trimmed and separated
// by a NUL, for digests and fingerprints of entries.
func writeEntry(h io.Writer, e *rs.Entry) {
	h.Write([]byte(strings.TrimSpace(e.Loc)))
	h.Write([]byte{0})
	h.Write([]byte(strings.TrimSpace(e.Lastmod)))
	if e.Md != nil {
		for _, v := range []string{e.Md.Change, e.Md.Datetime, e.Md.Hash, e.Md.Length} {
			h.Write([]byte{0})
			h.Write([]byte(strings.TrimSpace(v)))
		}
	}
}

// revisited calls fn for every document visited twice.
func revisited(g *Graph, fn func(n *Node)) {
	for _, n := range g.docs() {
		if n.Revisit != nil && n.Doc.Md != nil {
			fn(n)
		}
	}
}

// 12.1: "When a document carries the until attribute, this indicates that
// the document will not be updated anymore; the Change List is closed."
var RevisitClosed = &engine.Rule{
	ID: "RS-REVISIT-CLOSED", Section: "12.1", Level: engine.Must,
	Title: "A document that carries until does not change",
	Quote: "When a document carries the until attribute, this indicates that the document will not be updated anymore; the Change List is closed.",
	Doc: "Checked with --revisit on every document the crawl read twice that carried until the first time (Change Lists, Change Dumps, their indexes): the second visit must read the same document (compared as resourcesync re-serialises it, so white space and attribute order aside). " +
		"An until that keeps moving, an open list masquerading as closed, is named as such.",
	CheckGraph: Check(func(p *Pass) error {
		revisited(p.Graph, func(n *Node) {
			until := n.Doc.Md.Until
			if until == "" || n.Canonical == "" || n.Revisit.Canonical == n.Canonical {
				return
			}
			if n.Revisit.Md != nil && n.Revisit.Md.Until != until {
				p.Reportf(n.URL, n.Doc.Md.Pos, "the document carried until=%s, but a second visit reads until=%s: a closed document's until does not move", until, n.Revisit.Md.Until)
				return
			}
			p.Reportf(n.URL, n.Doc.Md.Pos, "the document carries until=%s (closed), but a second visit reads a different document (%d entries, %d before)", until, n.Revisit.Entries, n.Entries)
		})
		return nil
	}),
}

// 12.1: "All entries in a Change List must be provided in forward
// chronological order: the least recently changed resource must be listed
// at the beginning of the Change List, while the most recently changed
// resource must be listed at the end of the document."
var RevisitAppend = &engine.Rule{
	ID: "RS-REVISIT-APPEND", Section: "12.1", Level: engine.Must,
	Title: "An open Change List only grows at its end, in forward order",
	Quote: "All entries in a Change List must be provided in forward chronological order: the least recently changed resource must be listed at the beginning of the Change List, while the most recently changed resource must be listed at the end of the document.",
	Doc: "Checked with --revisit on every open Change List (no until) the crawl read twice. A change that happened records a new entry at the end: the entries of the first visit must still be there, unchanged and first, and those added after them must not be older than the previous last one. " +
		"A list that closed in between (gained until) is judged the same way.",
	CheckGraph: Check(func(p *Pass) error {
		revisited(p.Graph, func(n *Node) {
			if n.Kind != rs.ChangeList || n.Doc.Md.Until != "" || n.EntriesDigest == "" {
				return
			}
			switch {
			case n.Revisit.Entries < n.Entries:
				p.Reportf(n.URL, n.Doc.Md.Pos, "an open Change List lost entries between two visits (%d, then %d): changes are only added at the end", n.Entries, n.Revisit.Entries)
			case n.Revisit.PrefixDigest != n.EntriesDigest:
				p.Reportf(n.URL, n.Doc.Md.Pos, "the first %d entries of the open Change List changed between two visits: changes are only added at the end", n.Entries)
			case n.Revisit.Disorder != "":
				p.Reportf(n.URL, n.Revisit.DisorderPos, "%s", n.Revisit.Disorder)
			}
		})
		return nil
	}),
}

// 7: "The at attribute conveys the datetime at which the process of taking
// a snapshot of resources for their inclusion in the document to which
// the attribute pertains started."
var RevisitAt = &engine.Rule{
	ID: "RS-REVISIT-AT", Section: "7", Level: engine.Must,
	Title: "A Resource List that changes moves its at forward",
	Quote: "The at attribute conveys the datetime at which the process of taking a snapshot of resources for their inclusion in the document to which the attribute pertains started.",
	Doc:   "Checked with --revisit on every Resource List and Resource List Index the crawl read twice: a new snapshot started later than the previous one, so at must not go back, and a list whose entries changed is a new snapshot, so its at must have moved forward.",
	CheckGraph: Check(func(p *Pass) error {
		revisited(p.Graph, func(n *Node) {
			if n.Kind.Base() != rs.ResourceList || n.Revisit.Md == nil {
				return
			}
			before, ok1 := instant(n.Doc.Md.At)
			after, ok2 := instant(n.Revisit.Md.At)
			switch {
			case !ok1 || !ok2:
			case after.Before(before):
				p.Reportf(n.URL, n.Doc.Md.Pos, "at went back between two visits, from %s to %s", n.Doc.Md.At, n.Revisit.Md.At)
			case after.Equal(before) && n.Canonical != "" && n.Revisit.Canonical != n.Canonical:
				p.Reportf(n.URL, n.Doc.Md.Pos, "the Resource List changed between two visits but its at (%s) did not move: a new snapshot has a new at", n.Doc.Md.At)
			}
		})
		return nil
	}),
}

func init() { engine.Register(RevisitClosed, RevisitAppend, RevisitAt) }
