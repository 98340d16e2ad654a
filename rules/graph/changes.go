package graph

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Change List Indexes (12.2) and Change Dump Indexes (13.1): the Change
// Lists they enumerate are contiguous and only the last one is open.

// interval is the from/until of one child of an index, from the child's
// own <rs:md> when it was fetched, else from the index entry.
type interval struct {
	entry       *rs.Entry
	url         string
	from, until time.Time
	hasFrom     bool
	open        bool // no until
	known       bool // the openness is known (child fetched or entry has <rs:md>)
	ownFrom     string
	fromPos     rs.Pos
}

func childIntervals(g *Graph, n *Node) []interval {
	var out []interval
	for _, e := range n.Doc.Entries {
		if e.Loc == "" {
			continue
		}
		iv := interval{entry: e, url: targetURL(n.URL, e.Loc), fromPos: entryLocPos(e)}
		md := e.Md
		if t := g.Node(iv.url); t.Parsed() && t.Doc.Md != nil {
			md = t.Doc.Md
		}
		if md != nil {
			iv.known = true
			if v, ok := md.Get("from"); ok {
				iv.from, iv.hasFrom = instant(v)
				iv.ownFrom = v
			}
			if v, ok := md.Get("until"); ok {
				iv.until, _ = instant(v)
			} else {
				iv.open = true
			}
		}
		out = append(out, iv)
	}
	return out
}

func isChangeIndex(k rs.Kind) bool {
	return k == rs.ChangeListIndex || k == rs.ChangeDumpIndex
}

// 12.2: "It also has the mandatory from and the optional until attributes
// to convey the temporal interval covered by the Change List Index. The
// semantics of these attributes are as explained in detail for Change Lists
// (see 12.1)." The mandatory from says the index includes all changes since
// it; the order of the lists (12.2's "must enumerate Change Lists in forward
// chronological order") is RS-CLI-ORDER's.
var ChangeIndexContiguous = &engine.Rule{
	ID: "RS-CLI-CONTIGUOUS", Section: "12.2", Level: engine.Must,
	Title: "The Change Lists of an index follow each other in time without gaps, from the index's from on",
	Quote: "It also has the mandatory from and the optional until attributes to convey the temporal interval covered by the Change List Index. The semantics of these attributes are as explained in detail for Change Lists (see 12.1).",
	Doc: "The index's from says that \"all changes that occurred to the set of resources at the Source since the datetime expressed ... are included in the document\" (section 7), and its Change Lists are what it includes: so the first starts no later than the index's from, and each starts no later than the until of the one before it. " +
		"A gap leaves changes unreported; overlaps are allowed. The order of the entries is RS-CLI-ORDER. " +
		"The interval of each Change List is read from the Change List itself when it was fetched, else from its index entry. Change Dump Indexes are built \"in a manner similar\" (13.1) and checked alike.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			if !isChangeIndex(n.Kind) {
				continue
			}
			ivs := childIntervals(p.Graph, n)
			if len(ivs) > 0 && n.Doc.Md != nil && ivs[0].hasFrom {
				if v, ok := n.Doc.Md.Get("from"); ok {
					if from, ok := instant(v); ok && ivs[0].from.After(from) {
						p.ReportRelated(n.URL, ivs[0].fromPos, []engine.Location{loc(n.URL, n.Doc.Md.AttrPosition("from"))},
							"the first %s starts at %s, after the index's from=%q: the changes in between are in no %s", n.Kind.Base().Title(), ivs[0].ownFrom, v, n.Kind.Base().Title())
					}
				}
			}
			for i := 1; i < len(ivs); i++ {
				prev, cur := ivs[i-1], ivs[i]
				if !cur.hasFrom || !prev.hasFrom {
					continue
				}
				switch {
				case cur.from.Before(prev.from):
					// Out of order: RS-CLI-ORDER reports it from the index.
				case !prev.open && !prev.until.IsZero() && cur.from.After(prev.until):
					p.ReportRelated(n.URL, cur.fromPos, []engine.Location{loc(n.URL, prev.fromPos)},
						"%s starts at %s but %s ends at %s: the changes in between are in no %s", cur.url, cur.ownFrom, prev.url, prev.until.UTC().Format(time.RFC3339), n.Kind.Base().Title())
				}
			}
		}
		return nil
	}),
}

// 12.2: "If the Change List is closed the use of <until> is required. If
// the Change List is open <until> must not be provided."
var ChangeIndexOpen = &engine.Rule{
	ID: "RS-CLI-OPEN", Section: "12.2", Level: engine.Must,
	Title: "An index entry carries until exactly when its Change List is closed",
	Quote: "If the Change List is closed the use of <until> is required. If the Change List is open <until> must not be provided.",
	Doc: "Whether a Change List is closed is read from the Change List itself (section 12.1: \"When a document carries the until attribute, this indicates that the document will not be updated anymore\"), so this needs the crawl. " +
		"Entries without <rs:md> are not checked (the element is recommended, not mandatory). Change Dump Indexes are checked alike. That only the last entry may announce an open Change List is a fact of the index alone: RS-CLI-OPEN-LAST.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			if !isChangeIndex(n.Kind) {
				continue
			}
			ivs := childIntervals(p.Graph, n)
			for _, iv := range ivs {
				e := iv.entry
				t := p.Graph.Node(iv.url)
				if t.Parsed() && t.Doc.Md != nil && e.Md != nil {
					_, entryUntil := e.Md.Get("until")
					_, ownUntil := t.Doc.Md.Get("until")
					switch {
					case ownUntil && !entryUntil:
						p.ReportRelated(n.URL, e.Md.Pos, []engine.Location{loc(t.URL, t.Doc.Md.AttrPosition("until"))}, "%s is closed (it has until), so its entry must give until", t.URL)
					case !ownUntil && entryUntil:
						p.ReportRelated(n.URL, e.Md.AttrPosition("until"), []engine.Location{loc(t.URL, t.Doc.Md.Pos)}, "%s is open (it has no until), so its entry must not give until", t.URL)
					}
				}
			}
		}
		return nil
	}),
}

// 9: "For example, if a Capability List enumerates a Resource List, a
// Resource Dump, and a Change List, then a given resource that appears in
// a Resource List must also appear in a Resource Dump"
var CapabilityCoverage = &engine.Rule{
	ID: "RS-CAPLIST-COVERAGE", Section: "9", Level: engine.Must,
	Title: "Every resource of the Resource List appears in the Resource Dump of the same Capability List",
	Quote: "For example, if a Capability List enumerates a Resource List, a Resource Dump, and a Change List, then a given resource that appears in a Resource List must also appear in a Resource Dump, and changes to the resource must be conveyed in the Change List.",
	Doc: "Checked only when the crawl fetched the whole Resource List (every document of an index) and the manifest of every package of the Resource Dump (a manifest copy from a contents link, or the manifest.xml of the package with --packages), comparing fingerprints of the <loc>s. " +
		"Resources created after the Resource Dump's snapshot cannot be in it: when the Resource List's at is after the Resource Dump's completed (or at), nothing is reported.",
	CheckGraph: Check(func(p *Pass) error {
		for _, cl := range p.Graph.docs() {
			if cl.Kind != rs.CapabilityList {
				continue
			}
			var rl, rd *Node
			var rdEntry *rs.Entry
			for _, e := range cl.Doc.Entries {
				if e.Md == nil || e.Loc == "" {
					continue
				}
				switch rs.Capability(e.Md.Capability) {
				case rs.CapResourceList:
					rl = p.Graph.Target(cl.URL, e.Loc)
				case rs.CapResourceDump:
					rd, rdEntry = p.Graph.Target(cl.URL, e.Loc), e
				}
			}
			if !rl.Parsed() || !rd.Parsed() || rdEntry == nil {
				continue
			}
			lists := documentsOf(p.Graph, rl, rs.ResourceList)
			dumps := documentsOf(p.Graph, rd, rs.ResourceDump)
			if lists == nil || dumps == nil || snapshotAfter(rl, rd) {
				continue
			}
			dumped := map[uint64]struct{}{}
			complete := true
			for _, d := range dumps {
				for _, e := range d.Doc.Entries {
					m := ManifestOf(p.Graph, d, e)
					if m == nil {
						complete = false
						break
					}
					for f := range m.LocFingerprints {
						dumped[f] = struct{}{}
					}
				}
			}
			if !complete {
				continue
			}
			for _, l := range lists {
				missing := 0
				for f := range l.LocFingerprints {
					if _, ok := dumped[f]; !ok {
						missing++
					}
				}
				if missing > 0 {
					p.ReportRelated(l.URL, l.Doc.Pos, []engine.Location{loc(rd.URL, rd.Doc.Pos)},
						"%d of the %d resources of this Resource List appear in no package of the Resource Dump %s of the same Capability List", missing, len(l.LocFingerprints), rd.URL)
				}
			}
		}
		return nil
	}),
}

// documentsOf returns the <urlset> documents of kind base behind n (n
// itself, or every document of its index), or nil when one was not fetched.
func documentsOf(g *Graph, n *Node, base rs.Kind) []*Node {
	if n.Kind == base {
		return []*Node{n}
	}
	if n.Kind != base.Index() {
		return nil
	}
	var out []*Node
	for _, e := range n.Doc.Entries {
		t := g.Target(n.URL, e.Loc)
		if !t.Parsed() || t.Kind != base {
			return nil
		}
		out = append(out, t)
	}
	return out
}

// ManifestOf is the manifest of a dump entry's package: the copy its
// contents link gives, or the manifest.xml of the package.
func ManifestOf(g *Graph, dump *Node, e *rs.Entry) *Node {
	for _, l := range e.LinksByRel("contents") {
		if t := g.Target(dump.URL, l.Href); t.Parsed() && t.Kind.IsManifest() {
			return t
		}
	}
	if pkg := g.Target(dump.URL, e.Loc); pkg != nil && pkg.Package != nil && pkg.Package.Manifest != "" {
		if m := g.Node(pkg.Package.Manifest); m.Parsed() && m.Kind.IsManifest() {
			return m
		}
	}
	return nil
}

// snapshotAfter reports whether the Resource List's snapshot started after
// the Resource Dump's ended.
func snapshotAfter(rl, rd *Node) bool {
	if rl.Doc.Md == nil || rd.Doc.Md == nil {
		return false
	}
	at, ok := instant(rl.Doc.Md.At)
	if !ok {
		return false
	}
	end := rd.Doc.Md.Completed
	if end == "" {
		end = rd.Doc.Md.At
	}
	dumpEnd, ok := instant(end)
	return ok && at.After(dumpEnd)
}

func init() { engine.Register(ChangeIndexContiguous, ChangeIndexOpen, CapabilityCoverage) }
