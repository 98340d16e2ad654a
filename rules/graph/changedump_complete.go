package graph

import (
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// 13.2: "bitstreams for all resource changes that occurred during the
// specified interval must be included in the ZIP package and the Change
// Dump Manifest must refer to each."
var ChangeDumpComplete = &engine.Rule{
	ID: "RS-CD-CHANGES", Section: "13.2", Level: engine.Must,
	Title: "A Change Dump package's manifest refers to every change the Change Lists record in its interval",
	Quote: "The from and until attributes are used to convey the temporal interval covered by the package and hence bitstreams for all resource changes that occurred during the specified interval must be included in the ZIP package and the Change Dump Manifest must refer to each.",
	Doc: "Checked on every package of a Change Dump the crawl read that gives from and until and whose manifest the crawl read (its contents link, or the manifest.xml of the package with --packages), against the Change Lists the crawl read: a creation or update they record strictly inside the package's interval (placed by the History's bounds, docs/history.md) must be referred to by the manifest, by its <loc> as written. " +
		"Deletions are not required (a deletion has no bitstream). Reported at the package's entry in the Change Dump, once per resource, with the Change List entry as related location.",
	CheckGraph: Check(func(p *Pass) error {
		g := p.Graph
		isChangeList := func(u string) bool {
			n := g.Node(u)
			return n.Parsed() && n.Kind == rs.ChangeList
		}
		var out []snapshotFinding
		for _, cd := range g.docs() {
			if cd.Kind != rs.ChangeDump {
				continue
			}
			for _, e := range cd.Doc.Entries {
				if e.Md == nil {
					continue
				}
				from, ok1, err1 := e.Md.Time("from")
				until, ok2, err2 := e.Md.Time("until")
				m := ManifestOf(g, cd, e)
				if !ok1 || !ok2 || err1 != nil || err2 != nil || m == nil || m.LocFingerprints == nil {
					continue
				}
				start, end := from.Time.UTC(), until.Time.UTC()
				g.History.Each(func(_ uint64, c *RecordedChange) {
					if _, ok := m.LocFingerprints[LocFingerprint(c.Loc)]; ok {
						return
					}
					for i := range c.Series {
						x := &c.Series[i]
						if x.Change == "deleted" || !isChangeList(x.List) || !inside(x, start, end) {
							continue
						}
						out = append(out, snapshotFinding{url: cd.URL, pos: entryLocPos(e), related: loc(x.List, x.Pos),
							msg: "the Change Lists record " + c.Loc + " " + x.Change + " (" + x.When() + ") inside this package's interval (" + rs.FormatDatetime(start) + " to " + rs.FormatDatetime(end) + "), but its manifest " + m.URL + " refers to no bitstream of it"})
						return
					}
				})
			}
		}
		reportFindings(p, out)
		return nil
	}),
}

// inside reports whether every clue puts the change strictly inside
// (start, end).
func inside(x *Change, start, end time.Time) bool {
	return x.Earliest.After(start) && !x.Latest.IsZero() && x.Latest.Before(end)
}

func init() { engine.Register(ChangeDumpComplete) }
