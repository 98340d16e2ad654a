package graph

import (
	"sort"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// A Resource List is a snapshot at its at: it reflects every change its
// Source's Change Lists record before that time. The Graph keeps no
// entries of Resource Lists, only fingerprints of their <loc>s, and the
// claims of the entries whose resources were sampled; the History keeps
// every change the crawl read.

// snapshot is a Resource List document (or an index's) with the time its
// snapshot started and the end of the window in which a change may or may
// not show in it.
type snapshot struct {
	n        *Node
	at, done time.Time
}

// snapshotOf reads n's at and completed, falling back to those of index
// (its Resource List Index, nil when none); ok is false without an at.
func snapshotOf(n, index *Node) (s snapshot, ok bool) {
	s.n = n
	var ats, dones []string
	for _, d := range []*Node{n, index} {
		if d != nil && d.Doc != nil && d.Doc.Md != nil {
			ats = append(ats, d.Doc.Md.At)
			dones = append(dones, d.Doc.Md.Completed, d.Doc.Md.At)
		}
	}
	for _, v := range ats {
		if s.at, ok = instant(v); ok {
			break
		}
	}
	if !ok {
		return s, false
	}
	s.done = s.at
	for _, v := range dones {
		if t, ok := instant(v); ok && t.After(s.done) {
			s.done = t
		}
	}
	return s, true
}

// judge returns the latest change recorded before the snapshot's at by a
// list in lists, or nil when there is none or when a change may fall in
// the snapshot's window [at, completed] (it may or may not show): a change
// is before at when every clue the History has puts it there (its Latest
// bound), after the window when they put it after completed.
func (s snapshot) judge(c *RecordedChange, lists map[string]bool) *Change {
	var last *Change
	for i := range c.Series {
		ch := &c.Series[i]
		if !lists[ch.List] {
			continue
		}
		switch {
		case !ch.Latest.IsZero() && ch.Latest.Before(s.at):
			last = ch
		case ch.Earliest.After(s.done):
		default:
			return nil
		}
	}
	return last
}

// changeListsOf returns the URLs of the Change Lists of the Capability
// List cap: those it names, those of the index or archive it names, and
// any whose up link points at it.
func changeListsOf(g *Graph, cap *Node) map[string]bool {
	out := map[string]bool{}
	isCap := func(u string) bool { return u == cap.URL }
	upIsCap := func(n *Node) bool {
		for _, l := range n.Doc.LinksByRel("up") {
			if isCap(targetURL(n.URL, l.Href)) {
				return true
			}
		}
		return false
	}
	for _, n := range g.docs() {
		if n.Kind != rs.ChangeList {
			continue
		}
		belongs := upIsCap(n)
		for _, e := range n.In {
			if f := g.Node(e.From); isCap(e.From) || f.Parsed() && f.Kind != rs.CapabilityList && upIsCap(f) {
				belongs = true
			}
		}
		if belongs {
			out[n.URL] = true
		}
	}
	return out
}

// snapshotFinding is one finding of RS-RL-AT-CHANGES, sorted before it is
// reported: the History is a map.
type snapshotFinding struct {
	url     string
	pos     rs.Pos
	related engine.Location
	msg     string
}

// reportFindings reports out in a stable order (document, line, message),
// so two crawls of one Source list them alike.
func reportFindings(p *Pass, out []snapshotFinding) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.url != b.url {
			return a.url < b.url
		}
		if a.pos.Line != b.pos.Line {
			return a.pos.Line < b.pos.Line
		}
		return a.msg < b.msg
	})
	for _, f := range out {
		p.ReportRelated(f.url, f.pos, []engine.Location{f.related}, "%s", f.msg)
	}
}

// 7: "It thus provides a guarantee that each resource state represented in
// the document is the result of all changes to the resource at least up
// until the datetime expressed as the value of the at attribute."
var SnapshotChanges = &engine.Rule{
	ID: "RS-RL-AT-CHANGES", Section: "7", Level: engine.Must,
	Title: "A Resource List reflects every change its Change Lists record before its at",
	Quote: "It thus provides a guarantee that each resource state represented in the document is the result of all changes to the resource at least up until the datetime expressed as the value of the at attribute.",
	Doc: "Checked per Capability List that names a Resource List (or Resource List Index) and whose Change Lists the crawl read (open and closed, archived ones when reached, the open ones fetched once more after the resources), for every resource those Change Lists record. " +
		"The change that counts is the latest one recorded before the Resource List's at (a document of an index without its own at takes the index's). " +
		"A change recorded in the snapshot's window, from at up to completed (at itself when there is no completed), may or may not show in the snapshot (10.1: the list is taken over that interval, during which resources may change): the resource is not judged against that list. Changes after the window do not concern the snapshot. So a live Source that changes while it is crawled is never flagged. " +
		"Errors: a resource whose latest change before at is a deletion and that the list still lists; a listed resource whose entry (kept for sampled resources) gives a hash that differs, algorithm by algorithm, from the one the Change List entry of that change gives, or a <lastmod> earlier than that entry's <lastmod>; a resource created or updated before at that no document of the Resource List lists (judged only when the crawl read every document of an index, against the index's at). " +
		"Resources are matched by <loc> as written, or by the URL a Change List's <loc> resolves to.",
	CheckGraph: Check(func(p *Pass) error {
		var out []snapshotFinding
		for _, cap := range p.Graph.docs() {
			if cap.Kind != rs.CapabilityList {
				continue
			}
			out = append(out, checkSnapshots(p.Graph, cap)...)
		}
		reportFindings(p, out)
		return nil
	}),
}

func checkSnapshots(g *Graph, cap *Node) []snapshotFinding {
	var top *Node
	for _, e := range cap.Doc.Entries {
		if e.Md != nil && rs.Capability(e.Md.Capability) == rs.CapResourceList {
			top = g.Target(cap.URL, e.Loc)
		}
	}
	if !top.Parsed() || top.Kind.Base() != rs.ResourceList {
		return nil
	}
	lists := changeListsOf(g, cap)
	if len(lists) == 0 {
		return nil
	}
	members := documentsOf(g, top, rs.ResourceList)
	complete := members != nil
	var index *Node
	if top.Kind == rs.ResourceList.Index() {
		index = top
		if !complete {
			for _, e := range top.Doc.Entries {
				if t := g.Target(top.URL, e.Loc); t.Parsed() && t.Kind == rs.ResourceList {
					members = append(members, t)
				}
			}
		}
	}
	var snaps []snapshot
	for _, m := range members {
		if s, ok := snapshotOf(m, index); ok {
			snaps = append(snaps, s)
		}
	}
	whole, wholeOK := snapshotOf(top, nil)
	// claims[list URL][resource fingerprint] is the entry a sampled
	// resource was listed with.
	claims := map[string]map[uint64]Edge{}
	for _, n := range g.Sorted() {
		if n.Role != RoleResource {
			continue
		}
		for _, e := range n.In {
			if claims[e.From] == nil {
				claims[e.From] = map[uint64]Edge{}
			}
			claims[e.From][historyKey(n.URL)] = e
		}
	}
	var out []snapshotFinding
	g.History.Each(func(key uint64, c *RecordedChange) {
		locKey := LocFingerprint(c.Loc)
		listedIn := func(s snapshot) bool {
			_, a := s.n.LocFingerprints[key]
			_, b := s.n.LocFingerprints[locKey]
			return a || b
		}
		listed := false
		for _, s := range snaps {
			if !listedIn(s) {
				continue
			}
			listed = true
			ch := s.judge(c, lists)
			if ch == nil {
				continue
			}
			claim, sampled := claims[s.n.URL][key]
			pos := s.n.Doc.Md.Pos
			if sampled {
				pos = claim.Pos
			}
			f := snapshotFinding{url: s.n.URL, pos: pos, related: loc(ch.List, ch.Pos)}
			if ch.Change == "deleted" {
				f.msg = "lists " + c.Loc + ", whose deletion (" + ch.When() + ") the Change Lists record before the snapshot's at (" + s.n.Doc.Md.At + ")"
				out = append(out, f)
				continue
			}
			if !sampled {
				continue
			}
			if msg := staleClaim(claim, ch); msg != "" {
				f.msg = c.Loc + ": " + msg + " (" + ch.Change + " at " + ch.When() + ", before the snapshot's at)"
				out = append(out, f)
			}
		}
		if listed || !complete || !wholeOK {
			return
		}
		if ch := whole.judge(c, lists); ch != nil && ch.Change != "deleted" {
			out = append(out, snapshotFinding{url: top.URL, pos: top.Doc.Md.Pos, related: loc(ch.List, ch.Pos),
				msg: "the Change Lists record " + c.Loc + " " + ch.Change + " (" + ch.When() + "), before the snapshot's at (" + top.Doc.Md.At + "), but no document of the Resource List lists it"})
		}
	})
	return out
}

// staleClaim says how a Resource List entry predates the change ch: a
// hash that differs from the one the change's entry gives, algorithm by
// algorithm, or a <lastmod> earlier than the entry's; "" when it does not.
func staleClaim(claim Edge, ch *Change) string {
	if claim.Md != nil && ch.Hash != "" {
		recorded := map[string]string{}
		for _, h := range rs.ParseHashes(ch.Hash) {
			recorded[h.Algorithm()] = h.Digest
		}
		for _, h := range claim.Md.Hashes() {
			if d, ok := recorded[h.Algorithm()]; ok && h.Token != "" && !h.Matches(d) {
				return "the list gives " + h.Algorithm() + ":" + h.Digest + ", the Change List entry of its latest change " + h.Algorithm() + ":" + d
			}
		}
	}
	if claim.Lastmod != "" && ch.Lastmod != "" {
		listed, ok1 := instant(claim.Lastmod)
		changed, ok2 := instant(ch.Lastmod)
		if ok1 && ok2 && listed.Before(changed) {
			return "the list gives lastmod " + claim.Lastmod + ", earlier than the " + ch.Lastmod + " of the Change List entry of its latest change"
		}
	}
	return ""
}

func init() { engine.Register(SnapshotChanges) }
