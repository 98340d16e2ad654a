package graph

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Archives 5: "The pointers of a Change List Archive must be in
// chronological order." (Archives 6 says the same of a Change Dump
// Archive.)
var ArchiveListOrder = &engine.Rule{
	ID: "RS-ARCHIVE-LISTS-ORDER", Section: "Archives 5", Level: engine.Must,
	Title:   "The lists a Change List or Change Dump Archive points to are in chronological order, by their own from",
	Quote:   "「Change List Archive」のポインタは、時系列でなければなりません。デスティネーションは、アーカイブされた各「Change List」に指定されたfrom属性およびuntil属性を検査するか、あるいは、「Change Lists」をダウンロードすることにより、「Change Lists」が連続していて、時間差がないかどうかを判別することができます。",
	English: "The pointers of a Change List Archive must be in chronological order. A Destination can determine whether the Change Lists are contiguous, without gaps in time, by inspecting the from and until attributes given for each archived Change List, or by downloading the Change Lists.",
	Doc: "RS-ARCHIVE-CL-ORDER and RS-ARCHIVE-CD-ORDER judge the order from the from attributes the archive's entries give; an entry without <rs:md> (the Archives draft makes it optional) gives none, and the Destination downloads the list, as the sentence says. " +
		"This rule does the same in a crawl: each entry's time is the from its <rs:md> gives, else that of the list (or dump) it points to, read by the crawl; an entry whose time is not before the previous one's is reported when one of the two times came from a fetched list (the document rules report the others). Archives 6 says the same of Change Dump Archives, which are checked the same way.",
	CheckGraph: Check(func(p *Pass) error {
		for _, a := range p.Graph.docs() {
			if a.Kind != rs.ChangeListArchive && a.Kind != rs.ChangeDumpArchive {
				continue
			}
			var prev time.Time
			prevFetched, prevURL := false, ""
			for _, e := range a.Doc.Entries {
				t, fetched, ok := archivedFrom(p.Graph, a, e)
				if !ok {
					continue
				}
				u := e.Loc
				if n := p.Graph.Target(a.URL, e.Loc); n != nil {
					u = n.URL
				}
				if !prev.IsZero() && t.Before(prev) && (fetched || prevFetched) {
					p.Reportf(a.URL, entryLocPos(e), "%s (from %s) is listed after %s (from %s): the pointers of an archive must be in chronological order (the times are the lists' own from where the entry gives none)",
						u, rs.FormatDatetime(t), prevURL, rs.FormatDatetime(prev))
				}
				prev, prevFetched, prevURL = t, fetched, u
			}
		}
		return nil
	}),
}

// archivedFrom is the from of an archive's entry: the one the entry gives,
// else that of the document it points to, when the crawl read it (fetched
// then true).
func archivedFrom(g *Graph, a *Node, e *rs.Entry) (time.Time, bool, bool) {
	if e.Md != nil {
		if d, ok, err := e.Md.Time("from"); ok && err == nil {
			return d.Time.UTC(), false, true
		}
	}
	t := g.Target(a.URL, e.Loc)
	if !t.Parsed() || t.Doc.Md == nil {
		return time.Time{}, false, false
	}
	if d, ok, err := t.Doc.Md.Time("from"); ok && err == nil {
		return d.Time.UTC(), true, true
	}
	return time.Time{}, false, false
}

func init() { engine.Register(ArchiveListOrder) }
