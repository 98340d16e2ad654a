package graph

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// 10.1: "One <url> child element of <urlset> should be included for each
// resource."
var IndexDuplicate = &engine.Rule{
	ID: "RS-RLI-DUPLICATE", Section: "10.1", Level: engine.Should,
	Title: "The Resource Lists of a Resource List Index list each resource once",
	Quote: "One <url> child element of <urlset> should be included for each resource.",
	Doc: "A Resource List Index splits one Resource List into several documents (10.2): together they are one snapshot, in which a resource has one state. A resource listed by two documents of the index either repeats itself or contradicts itself (which hash, which length?), as a second entry inside one list would (RS-LOC-DUPLICATE, which checks one document at a time). " +
		"Checked on every Resource List Index the crawl read, over the Resource Lists it lists that the crawl read, in the index's order: a document that lists resources an earlier one already listed is reported, with how many and the first document that listed them. " +
		"<loc>s are compared as written, by the 64-bit fingerprints the crawl keeps of every Resource List (a crawl keeps no entries of lists), so the finding cannot name them; RS-LOC-DUPLICATE finds them once the documents are put together. A warning, from the SHOULD of 10.1.",
	CheckGraph: Check(func(p *Pass) error {
		for _, idx := range p.Graph.docs() {
			if idx.Kind != rs.ResourceList.Index() {
				continue
			}
			first := map[uint64]*Node{}
			seen := map[string]bool{}
			for _, e := range idx.Doc.Entries {
				t := p.Graph.Target(idx.URL, e.Loc)
				if !t.Parsed() || t.Kind != rs.ResourceList || seen[t.URL] {
					continue
				}
				seen[t.URL] = true
				var other *Node
				dup := 0
				for f := range t.LocFingerprints {
					if o := first[f]; o != nil {
						if dup == 0 || o.URL < other.URL {
							other = o
						}
						dup++
						continue
					}
					first[f] = t
				}
				if dup == 0 {
					continue
				}
				pos := rs.Pos{}
				if t.Doc.Md != nil {
					pos = t.Doc.Md.Pos
				}
				p.ReportRelated(t.URL, pos, []engine.Location{loc(idx.URL, entryLocPos(e))},
					"%d of the resources this Resource List lists are listed by another document of the Resource List Index %s too (%s among them): the documents of an index are one snapshot, which lists each resource once", dup, idx.URL, other.URL)
			}
		}
		return nil
	}),
}

func init() { engine.Register(IndexDuplicate) }
