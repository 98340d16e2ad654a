package engine

import (
	"reflect"
	"strings"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// TestEntryTimesAsParseTime holds EntryTimes, which reads only the
// datetime attributes an <rs:md> has (Md.AttrSet), to ParseTime of each
// attribute as Get finds it, computed into the storage of every other
// entry (the previous window's): entries with none, one, some, empty and
// invalid datetimes, no <rs:md>, and <rs:md> built by hand.
func TestEntryTimesAsParseTime(t *testing.T) {
	doc, err := rs.Parse(strings.NewReader(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<url><loc>a</loc><lastmod>2013-01-02</lastmod><rs:md hash="md5:00"/></url>
<url><loc>b</loc><rs:md at="2013-01-02T00:00:00Z" completed="x" datetime=""/></url>
<url><loc>c</loc><lastmod></lastmod></url>
<url><loc>d</loc><rs:md from="2013" until="2014-01-01T00:00Z" datetime="2013-05-05T01:02:03+01:00"/></url>
<url><loc>e</loc><rs:md length="1"/></url>
<url><loc>f</loc><rs:md at="2013"/></url>
<url><loc>g</loc><rs:md completed="2013"/></url>
<url><loc>h</loc><rs:md from="2013"/></url>
<url><loc>i</loc><rs:md until="2013"/></url>
<url><loc>j</loc><rs:md datetime="2013"/></url>
</urlset>`))
	if err != nil {
		t.Fatal(err)
	}
	entries := doc.Entries
	entries = append(entries, &rs.Entry{Md: &rs.Md{Until: "2015"}}, &rs.Entry{Md: &rs.Md{}})
	for _, reuse := range entries {
		for _, e := range entries {
			got := EntryTimes.Compute(e, EntryTimes.Compute(reuse, nil))
			want := new(EntryDatetimes)
			for i, a := range MdTimeAttrs {
				v, ok := e.Md.Get(a)
				want.Md[i] = ParseTime(v, ok)
			}
			want.Lastmod = ParseTime(e.Lastmod, e.Lastmod != "" || e.LastmodPos.IsValid())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("entry %s after %s: %+v, want %+v", e.Loc, reuse.Loc, got, want)
			}
		}
	}
}
