package graph

import (
	"net/http"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// A resource sampled from a live Source may have changed between the claim
// a list makes of it and the crawl's fetch. What the Source's own Change
// Lists say decides (docs/history.md holds the table): a discrepancy they
// explain is no error but "changed during the crawl", an info; one they do
// not explain stands.

// hashDiffers lists, for every algorithm of hashes that rsconform computed
// on the body, a message when the body's digest is not the one given.
func hashDiffers(hashes []rs.Hash, n *Node) []string {
	var out []string
	for _, h := range hashes {
		if got, known := n.Body.Digests[h.Algorithm()]; known && !h.Matches(got) {
			out = append(out, "hash gives "+h.Algorithm()+":"+h.Digest+" but "+n.URL+" returns a body with "+h.Algorithm()+":"+got)
		}
	}
	return out
}

// lengthDiffers says how the length the edge's entry gives differs from
// the body received or the Content-Length served ("" when it does not,
// or when the entry gives none).
func lengthDiffers(n *Node, e Edge) string {
	want, ok, err := e.Md.ContentLength()
	if !ok || err != nil {
		return ""
	}
	switch {
	case n.Body != nil && !n.Body.Truncated && n.Body.Length != want:
		return "length=" + strconv.FormatInt(want, 10) + " but " + n.URL + " returns " + strconv.FormatInt(n.Body.Length, 10) + " bytes"
	case n.Header.Get("Content-Length") != "" && n.Header.Get("Content-Length") != strconv.FormatInt(want, 10):
		return "length=" + strconv.FormatInt(want, 10) + " but " + n.URL + " is served with Content-Length: " + n.Header.Get("Content-Length")
	}
	return ""
}

// A state is what an entry says the resource is after a change: matches
// says whether the body fetched is it, known whether the entry says
// enough to tell.
type stateTest func(n *Node, hash, length string) (matches, known bool)

func hashState(n *Node, hash, _ string) (matches, known bool) {
	if n.Body == nil || n.Body.Truncated {
		return false, false
	}
	matches = true
	for _, h := range rs.ParseHashes(hash) {
		if got, ok := n.Body.Digests[h.Algorithm()]; ok {
			known = true
			matches = matches && h.Matches(got)
		}
	}
	return matches && known, known
}

func lengthState(n *Node, _, length string) (matches, known bool) {
	if n.Body == nil || n.Body.Truncated {
		return false, false
	}
	// A length is decimal digits only (section 7), as lengthDiffers reads
	// it: "+12" or "-0" says no length.
	want, err := rs.ParseLength(strings.TrimSpace(length))
	if err != nil {
		return false, false
	}
	return want == n.Body.Length, true
}

// revisited reports whether the crawl read a Change List again after a
// pause (--revisit).
func changeListsRevisited(g *Graph) bool {
	for _, n := range g.docs() {
		if n.Kind == rs.ChangeList && n.Revisit != nil {
			return true
		}
	}
	return false
}

// unrecordedState says, with --revisit, how the body of the resource n is
// that of no state the Source recorded since the claim the edge carries:
// neither the claim's nor that of any change recorded after it. The lists
// were read again after the resource was fetched and cover the time since
// the claim (their from), so every state the resource went through up to
// the fetch is among them. "" when the body is one of them, or when one of
// them says too little to tell, or without --revisit.
func unrecordedState(g *Graph, n *Node, e Edge, from *Node, test stateTest) string {
	if !g.History.reread || !changeListsRevisited(g) {
		return ""
	}
	t, ok := claimTime(g, n, e, from)
	if !ok {
		return ""
	}
	if covered, _ := changeListCoverage(g, t); !covered {
		return ""
	}
	later, _ := laterChanges(g, n, e, from)
	if len(later) == 0 {
		return ""
	}
	length, _ := e.Md.Get("length")
	if m, known := test(n, e.Md.Hash, length); m || !known {
		return ""
	}
	for _, ch := range later {
		if ch.Change == "deleted" {
			continue
		}
		if m, known := test(n, ch.Hash, ch.Length); m || !known {
			return ""
		}
	}
	return "neither the claim's nor that of the " + strconv.Itoa(len(later)) + " later change(s) recorded, the last " + later[len(later)-1].describe()
}

// 12.1: "The forward chronological order of changes in a Change List, the
// datetime of a resource change (if provided), and the URI of a changed
// resource help the Destination to determine the first unprocessed change
// in a not fully processed Change List."
var RepChanged = &engine.Rule{
	ID: "RS-REP-CHANGED", Section: "12.1", Level: engine.Info,
	Title: "A sampled resource changed during the crawl, as the Source's Change Lists record",
	Quote: "The forward chronological order of changes in a Change List, the datetime of a resource change (if provided), and the URI of a changed resource help the Destination to determine the first unprocessed change in a not fully processed Change List.",
	Doc: "A sampled resource whose status, hash or length differs from what a list says of it is not judged against that entry when the Source's own Change Lists show that it changed, or may have changed, after the entry: a later entry of the same Change List (forward chronological order makes it a later change, whatever its time), an entry of a later list, or one whose datetime, else <lastmod>, else place between timed entries and within the list's from and until, may be later than the claim (a Resource List's at to completed; a Change List entry's change); or a Last-Modified later than the claim (and not later than the response's Date). " +
		"This info says so, with what differs and the latest such change. With --revisit, the body is compared with every state the Change Lists record after the claim: one that matches none of them (when each gives a hash, or a length) is an error of RS-REP-HASH or RS-REP-LENGTH. " +
		"A resource that never changed and is served wrong stays an error. The table of evidence and verdicts is in docs/history.md.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Role != RoleResource {
				continue
			}
			for _, e := range n.In {
				from := p.Graph.Node(e.From)
				if !from.Parsed() {
					continue
				}
				var what []string
				switch {
				case n.HTTPFailed():
					what = append(what, "it answers HTTP "+strconv.Itoa(n.StatusCode)+" "+http.StatusText(n.StatusCode))
				case httpOK(n) && e.Md != nil:
					if n.Body != nil && !n.Body.Truncated {
						what = append(what, hashDiffers(e.Md.Hashes(), n)...)
					}
					if m := lengthDiffers(n, e); m != "" {
						what = append(what, m)
					}
				}
				if len(what) == 0 {
					continue
				}
				why := laterChange(p.Graph, n, e, from)
				if why == "" || httpOK(n) && (unrecordedState(p.Graph, n, e, from, hashState) != "" || unrecordedState(p.Graph, n, e, from, lengthState) != "") {
					continue
				}
				more := ""
				if len(what) > 1 {
					more = " (and " + strconv.Itoa(len(what)-1) + " more)"
				}
				p.Reportf(e.From, e.Pos, "%s changed during the crawl or since this entry, so it is not judged against it: %s; what differs: %s%s", n.URL, why, what[0], more)
			}
		}
		return nil
	}),
}
