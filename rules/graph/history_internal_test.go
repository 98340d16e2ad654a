package graph

import (
	"strings"
	"testing"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// historyGraph builds a Graph of the Change Lists given (URL → XML, in
// the order read), a Resource List at rl (at the given at) and the sampled
// resource http://example.com/r, served with the given header.
func historyGraph(t *testing.T, spec engine.Spec, lists [][2]string, at string) *Graph {
	t.Helper()
	g := New()
	g.History.Spec = spec
	for _, l := range lists {
		d, err := rs.ParseBytes([]byte(l[1]))
		if err != nil {
			t.Fatal(err)
		}
		g.History.Record(l[0], d, func(loc string) string { return loc })
		if g.Node(l[0]) == nil {
			g.Add(&Node{URL: l[0], Kind: rs.ChangeList, Doc: d.Detached(false), Role: RoleDocument, StatusCode: 200})
		}
	}
	rl := &rs.Document{}
	rl.Md = &rs.Md{Capability: "resourcelist", At: at}
	rlNode := &Node{URL: "http://example.com/rl.xml", Kind: rs.ResourceList, Doc: rl, Role: RoleDocument, StatusCode: 200}
	g.Add(rlNode)
	g.Add(&Node{URL: "http://example.com/r", Role: RoleResource, StatusCode: 200,
		In: []Edge{{From: rlNode.URL, Rel: "loc", Md: &rs.Md{Hash: "md5:00"}}}})
	return g
}

func changeList(from, until string, entries ...string) string {
	md := `<rs:md capability="changelist" from="` + from + `"`
	if until != "" {
		md += ` until="` + until + `"`
	}
	return `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		md + `/>` + strings.Join(entries, "") + `</urlset>`
}

func entry(loc, change, datetime, lastmod string) string {
	s := `<url><loc>` + loc + `</loc>`
	if lastmod != "" {
		s += `<lastmod>` + lastmod + `</lastmod>`
	}
	s += `<rs:md change="` + change + `"`
	if datetime != "" {
		s += ` datetime="` + datetime + `"`
	}
	return s + `/></url>`
}

// A Resource List's claim (at 10:00) against the changes recorded of the
// resource: whether one comes, or may come, after it.
func TestHistoryAgainstSnapshot(t *testing.T) {
	const r, other = "http://example.com/r", "http://example.com/o"
	for _, tc := range []struct {
		name  string
		spec  engine.Spec
		lists [][2]string
		later bool // a change comes or may come after the claim
	}{
		{"datetime before at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "2013-01-03T09:00:00Z", ""))}}, false},
		{"datetime after at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "2013-01-03T11:00:00Z", ""))}}, true},
		{"datetime in the second of at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "2013-01-03T10:00:00Z", ""))}}, true},
		{"1.1 lastmod before at, open list: the change may be later", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "", "2013-01-03T09:00:00Z"))}}, true},
		{"1.1 lastmod before at, then a timed entry before at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "",
			entry(r, "updated", "", "2013-01-03T08:00:00Z"), entry(other, "updated", "2013-01-03T09:00:00Z", ""))}}, false},
		{"1.1 lastmod before at, closed list until before at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "2013-01-02T00:00:00Z", entry(r, "updated", "", "2013-01-01T09:00:00Z"))}}, false},
		{"1.0 lastmod before at", engine.Spec10, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "deleted", "", "2013-01-03T09:00:00Z"))}}, false},
		{"1.0 lastmod after at", engine.Spec10, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "", entry(r, "deleted", "", "2013-01-03T11:00:00Z"))}}, true},
		{"untimed deletion after a timed entry before at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "",
			entry(other, "updated", "2013-01-02T00:00:00Z", ""), entry(r, "deleted", "", ""))}}, true},
		{"untimed deletion before a timed entry before at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "",
			entry(r, "deleted", "", ""), entry(other, "updated", "2013-01-02T00:00:00Z", ""))}}, false},
		{"untimed entry in a list from after at", engine.Spec11, [][2]string{{"cl", changeList("2013-01-03T10:30:00Z", "", entry(r, "updated", "", ""))}}, true},
		{"a later entry whose datetime says earlier: order wins over the time", engine.Spec11, [][2]string{{"cl", changeList("2013-01-01T00:00:00Z", "",
			entry(other, "updated", "2013-01-03T12:00:00Z", ""), entry(r, "updated", "2013-01-03T09:00:00Z", ""))}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := historyGraph(t, tc.spec, tc.lists, "2013-01-03T10:00:00Z")
			n := g.Node(r)
			e := n.In[0]
			got := laterChange(g, n, e, g.Node(e.From)) != ""
			if got != tc.later {
				t.Fatalf("laterChange: got %v, want %v (series %+v)", got, tc.later, g.History.Latest(r))
			}
		})
	}
}

// A Change List entry's claim: a later entry of the same list is a later
// change whatever its time says; a list read again that only grew keeps
// its entries; a rewritten one counts as later.
func TestHistoryAgainstChangeListEntry(t *testing.T) {
	const r = "http://example.com/r"
	first := changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "2013-01-03T10:00:00Z", ""))
	grown := changeList("2013-01-01T00:00:00Z", "", entry(r, "updated", "2013-01-03T10:00:00Z", ""), entry(r, "updated", "2013-01-03T09:00:00Z", ""))
	rewritten := changeList("2013-01-01T00:00:00Z", "", entry(r, "created", "2013-01-03T10:00:00Z", ""))
	for _, tc := range []struct {
		name     string
		readings []string
		later    bool
		series   int
	}{
		{"one reading", []string{first}, false, 1},
		{"read again unchanged", []string{first, first}, false, 1},
		{"grown by an entry whose datetime is earlier", []string{first, grown}, true, 2},
		{"rewritten", []string{first, rewritten}, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			for _, x := range tc.readings {
				d, err := rs.ParseBytes([]byte(x))
				if err != nil {
					t.Fatal(err)
				}
				g.History.Record("cl", d, func(loc string) string { return loc })
				if g.Node("cl") == nil {
					g.Add(&Node{URL: "cl", Kind: rs.ChangeList, Doc: d.Detached(false), Role: RoleDocument, StatusCode: 200})
				}
			}
			c := g.History.Latest(r)
			if len(c.Series) != tc.series {
				t.Fatalf("series: %d changes, want %d: %+v", len(c.Series), tc.series, c.Series)
			}
			n := &Node{URL: r, Role: RoleResource, StatusCode: 200, In: []Edge{{From: "cl", Rel: "loc", Pos: c.Series[0].Pos, Md: &rs.Md{}}}}
			g.Add(n)
			if got := laterChange(g, n, n.In[0], g.Node("cl")) != ""; got != tc.later {
				t.Fatalf("laterChange: got %v, want %v", got, tc.later)
			}
		})
	}
}

// A resource created and deleted again inside the open Change List, which
// answers 404 (fixtures/sites/RS-REP-GONE/pass-created-then-deleted): the
// crawl does not sample it (its last entry is a deletion), so that site
// shows the sampler's choice; this judges the 404 itself, as if the
// creation's entry had been sampled. The deletion recorded after it is a
// later change: no RS-REP-GONE, no RS-REP-STATUS, an RS-REP-CHANGED info.
// Without the deletion the same 404 is an RS-REP-GONE error.
func TestCreatedThenDeletedAnswers404(t *testing.T) {
	const r = "http://example.com/res/res4.txt"
	created := entry(r, "created", "2013-01-03T10:00:00Z", "")
	deleted := entry(r, "deleted", "2013-01-03T10:30:00Z", "")
	judge := func(list string) map[string][]engine.Severity {
		g := New()
		d, err := rs.ParseBytes([]byte(list))
		if err != nil {
			t.Fatal(err)
		}
		g.History.Record("cl", d, func(loc string) string { return loc })
		g.Add(&Node{URL: "cl", Kind: rs.ChangeList, Doc: d.Detached(false), Role: RoleDocument, StatusCode: 200})
		g.Add(&Node{URL: r, Role: RoleResource, StatusCode: 404,
			In: []Edge{{From: "cl", Rel: "loc", Pos: entryLocPos(d.Entries[0]), Md: d.Entries[0].Md}}})
		got := map[string][]engine.Severity{}
		for _, rule := range []*engine.Rule{RepGone, RepStatus, RepChanged} {
			p := &Pass{Rule: rule, Graph: g, Spec: engine.Spec11, report: func(_ string, d engine.Diagnostic) {
				got[d.Rule] = append(got[d.Rule], d.Severity)
			}}
			if err := safeCheck(rule, p); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	got := judge(changeList("2013-01-02T00:00:00Z", "", created, deleted))
	if len(got["RS-REP-GONE"]) > 0 || len(got["RS-REP-STATUS"]) > 0 || len(got["RS-REP-CHANGED"]) != 1 || got["RS-REP-CHANGED"][0] != engine.SeverityInfo {
		t.Errorf("created then deleted, 404: got %v, want one RS-REP-CHANGED info and nothing else", got)
	}
	got = judge(changeList("2013-01-02T00:00:00Z", "", created))
	if len(got["RS-REP-GONE"]) != 1 || got["RS-REP-GONE"][0] != engine.SeverityError {
		t.Errorf("created, no deletion, 404: got %v, want an RS-REP-GONE error", got)
	}
}

// A History change and a Change List edge's claim read <lastmod> through one
// timeClue, which trims space around it (claimOf trimmed, the History did not).
func TestTimeClueTrimsLastmod(t *testing.T) {
	start, end, clue := timeClue(nil, " 2020-01-02T03:04:05Z\n")
	want := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if clue != "lastmod" || !start.Equal(want) || !end.After(start) {
		t.Fatalf("timeClue = %v, %v, %q; want the second from %v, lastmod", start, end, clue, want)
	}
	if _, _, clue := timeClue(nil, " "); clue != "" {
		t.Fatalf("timeClue of a blank lastmod = %q, want no clue", clue)
	}
}

// lengthState reads a length as section 7 writes one, decimal digits only:
// "+12" and "-0" say no length (strconv.ParseInt took them).
func TestLengthStateTakesDigitsOnly(t *testing.T) {
	n := &Node{Body: &BodyFacts{Length: 12}}
	if m, known := lengthState(n, "", "12"); !m || !known {
		t.Fatalf("lengthState(12) = %v, %v; want a known match", m, known)
	}
	if m, known := lengthState(n, "", "13"); m || !known {
		t.Fatalf("lengthState(13) = %v, %v; want a known mismatch", m, known)
	}
	for _, v := range []string{"+12", "-0", "", "1 2"} {
		if m, known := lengthState(n, "", v); m || known {
			t.Errorf("lengthState(%q) = %v, %v; want no length known", v, m, known)
		}
	}
	n.Body.Length = 0
	if _, known := lengthState(n, "", "-0"); known {
		t.Errorf("lengthState(-0) took -0 as a length")
	}
}
