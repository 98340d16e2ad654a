package graph

import (
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// A <lastmod> that moves while the content stays: a repository platform
// seen in the wild renders its Resource List with lastmod = now(), so
// every resource looks modified at every visit and a Destination that
// goes by <lastmod> downloads everything again for nothing.

// maxClaims bounds the entries of one Resource List kept for the second
// visit (the Sitemap limit of a document).
const maxClaims = 50000

// EntryClaims is what the entries of a Resource List said at the first
// visit: <lastmod> and the hash, by <loc>, for the entries that have both.
type EntryClaims struct {
	byLoc map[string]entryClaim
}

type entryClaim struct {
	lastmod, hash string
	pos           rs.Pos
}

// NoteClaims keeps the <lastmod> and hash of entries (at most maxClaims
// of them); nil when none has both.
func NoteClaims(entries []*rs.Entry) *EntryClaims {
	c := &EntryClaims{byLoc: map[string]entryClaim{}}
	for _, e := range entries {
		if len(c.byLoc) >= maxClaims {
			break
		}
		if e.Md == nil || strings.TrimSpace(e.Md.Hash) == "" || strings.TrimSpace(e.Lastmod) == "" {
			continue
		}
		pos := e.LastmodPos
		if !pos.IsValid() {
			pos = e.Pos
		}
		c.byLoc[strings.TrimSpace(e.Loc)] = entryClaim{lastmod: strings.TrimSpace(e.Lastmod), hash: strings.TrimSpace(e.Md.Hash), pos: pos}
	}
	if len(c.byLoc) == 0 {
		return nil
	}
	return c
}

// LastmodMove is a resource whose <lastmod> changed between two visits of
// a Resource List while its hash did not.
type LastmodMove struct {
	Loc, Was, Now, Hash string
	// Pos is the <lastmod> of the first visit.
	Pos rs.Pos
}

// Moves lists the entries of the second visit whose <lastmod> denotes
// another instant than at the first while their hash is the same, in the
// order of entries (at most maxClaims: the engine keeps
// --max-findings-per-rule of their findings and counts the others).
func (c *EntryClaims) Moves(entries []*rs.Entry) (moves []LastmodMove) {
	if c == nil {
		return nil
	}
	for _, e := range entries {
		if e.Md == nil {
			continue
		}
		was, ok := c.byLoc[strings.TrimSpace(e.Loc)]
		now := strings.TrimSpace(e.Lastmod)
		if !ok || now == "" || now == was.lastmod || strings.TrimSpace(e.Md.Hash) != was.hash {
			continue
		}
		t1, err1 := rs.ParseDatetime(was.lastmod)
		t2, err2 := rs.ParseDatetime(now)
		if err1 != nil || err2 != nil || t1.Time.Equal(t2.Time) && t1.Granularity == t2.Granularity {
			continue
		}
		moves = append(moves, LastmodMove{Loc: e.Loc, Was: was.lastmod, Now: now, Hash: was.hash, Pos: was.pos})
	}
	return moves
}

// 7: "<lastmod> -- An element that conveys the last modification time of
// the resource with the URI provided in <loc>"
var RevisitLastmod = &engine.Rule{
	ID: "RS-REVISIT-LASTMOD", Section: "7", Level: engine.Should,
	Title: "<lastmod> does not move while the resource's hash stays the same (--revisit)",
	Quote: "<lastmod> -- An element that conveys the last modification time of the resource with the URI provided in <loc>, as defined in RFC 2616, Sec. 14.29.",
	Doc: "RFC 2616 14.29 defines it as \"the date and time at which the origin server believes the variant was last modified\"; section 4.2 of ResourceSync says what it is for: \"when the Source expresses the datetime of the most recent modification for a resource, a Destination can determine whether or not it already holds the current version\". " +
		"Seen in the wild: a repository platform that writes the time it renders the list as every <lastmod>. Then every resource looks modified at every visit, and a Destination that goes by <lastmod> downloads everything again for nothing. " +
		"With --revisit the crawl reads each Resource List twice; an entry whose <lastmod> denotes another instant at the second visit while its hash is the same is reported at its <lastmod> of the first. " +
		"Section 7 also notes that \"there is significant variation in practices for the use and maintenance of last modification times\" and states no requirement, so this is a warning: it fails a run only under --strict. " +
		"Every such entry is reported; as for every rule, a document keeps at most --max-findings-per-rule of them, the others counted (the JSON report's omitted).",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			rv := n.Revisit
			if rv == nil || len(rv.LastmodMoves) == 0 {
				continue
			}
			for _, m := range rv.LastmodMoves {
				p.Reportf(n.URL, m.Pos, "<lastmod> of %s moved from %s to %s between two visits, its hash %s the same: a Destination that goes by <lastmod> downloads it again for nothing", m.Loc, m.Was, m.Now, m.Hash)
			}
		}
		return nil
	}),
}

func init() { engine.Register(RevisitLastmod) }
