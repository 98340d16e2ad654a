package archives_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/archives"
	"github.com/rsconform/rsconform/rules/engine"
)

// doc is a urlset (or, with index, a sitemapindex) of the given
// capability, with header lines and entries as written.
func doc(capability string, index bool, header string, entries ...string) string {
	root, entry := "urlset", "url"
	if index {
		root, entry = "sitemapindex", "sitemap"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<%s xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:rs=\"http://www.openarchives.org/rs/terms/\">\n", root)
	fmt.Fprintf(&b, "<rs:ln rel=\"up\" href=\"http://example.com/capabilitylist.xml\"/>\n%s<rs:md capability=%q/>\n", header, capability)
	for i, e := range entries {
		fmt.Fprintf(&b, "<%s><loc>http://example.com/d%d.xml</loc>%s</%s>\n", entry, i+1, e, entry)
	}
	fmt.Fprintf(&b, "</%s>\n", root)
	return b.String()
}

// finding is what a test expects of a finding: its line, and words of its
// message.
type finding struct {
	line int
	msg  string
}

// check runs rule alone on the document and compares its findings.
func check(t *testing.T, rule *engine.Rule, data string, want []finding) {
	t.Helper()
	d, err := rs.ParseBytes([]byte(data))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, data)
	}
	sel, err := engine.ParseSelector(rule.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Run("test.xml", engine.Input{Doc: d}, engine.Config{Select: sel})
	if res.Error != "" {
		t.Fatalf("%s could not run: %s", rule.ID, res.Error)
	}
	var got []string
	for _, g := range res.Diagnostics {
		got = append(got, fmt.Sprintf("%d %s %s: %s", g.Location.Line, g.Rule, g.Severity, g.Message))
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d findings, want %d:\n%s\n%s", rule.ID, len(got), len(want), strings.Join(got, "\n"), data)
	}
	for i, w := range want {
		g := res.Diagnostics[i]
		if g.Rule != rule.ID || g.Location.Line != w.line || !strings.Contains(g.Message, w.msg) {
			t.Errorf("finding %d: got %s, want line %d with %q", i, got[i], w.line, w.msg)
		}
	}
}

func TestArchivesLinkPlace(t *testing.T) {
	archivesLink := `<rs:ln rel="archives" href="http://example.com/archive.xml"/>` + "\n"
	// Lines: 3 the up link, 4 the header given (or the capability's
	// <rs:md>), then one line an entry.
	check(t, archives.ArchivesLinkPlace, doc("changelist", false, archivesLink, `<rs:md change="updated"/>`), nil)
	check(t, archives.ArchivesLinkPlace, doc("capabilitylist", false, archivesLink, `<rs:md capability="changelist"/>`),
		[]finding{{4, "a Capability List has no corresponding archive"}})
	check(t, archives.ArchivesLinkPlace, doc("resourcelist-archive", false, "",
		`<rs:md at="2013-01-01T00:00:00Z"/><rs:ln rel="archives" href="http://example.com/a.xml"/>`),
		[]finding{{5, "an archives link on the entry for"}})
}

func TestArchiveEntryAt(t *testing.T) {
	for _, c := range []struct {
		rule       *engine.Rule
		capability string
	}{
		{archives.ArchiveResourceListEntryAt, "resourcelist-archive"},
		{archives.ArchiveResourceDumpEntryAt, "resourcedump-archive"},
	} {
		check(t, c.rule, doc(c.capability, false, "", `<rs:md at="2013-01-01T00:00:00Z" completed="2013-01-01T01:00:00Z"/>`, ``), nil)
		check(t, c.rule, doc(c.capability, false, "", `<rs:md at="2013-01-01T00:00:00Z"/>`, `<rs:md completed="2013-01-02T01:00:00Z"/>`, `<rs:md/>`),
			[]finding{{6, "has completed without at"}, {7, "has an <rs:md> without at"}})
	}
}

func TestArchiveIndexLastmod(t *testing.T) {
	check(t, archives.ArchiveIndexLastmod, doc("changelist-archive", true, ""), nil)
	check(t, archives.ArchiveIndexLastmod, doc("changelist-archive", true, "", ``), nil)
	check(t, archives.ArchiveIndexLastmod, doc("resourcedump-archive", true, "", `<lastmod>2013-01-01T00:00:00Z</lastmod>`, `<lastmod>2013-02-01T00:00:00Z</lastmod>`),
		[]finding{{5, "2 entries have <lastmod> (the first here)"}})
}

// The archives' order is RS-CL-ORDER's: its comparison (fractions of a
// second exactly, beyond the nanoseconds time.Time holds) and its words.
func TestArchiveOrder(t *testing.T) {
	const words = "of an entry listed before it (line 5): entries must be in forward chronological order, least recent first"
	for _, c := range []struct {
		rule       *engine.Rule
		capability string
	}{
		{archives.ArchiveChangeListOrder, "changelist-archive"},
		{archives.ArchiveChangeDumpOrder, "changedump-archive"},
	} {
		check(t, c.rule, doc(c.capability, false, "",
			`<rs:md from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/>`,
			`<rs:md/>`,
			`<rs:md from="2013-01-02T00:00:00Z" until="2013-01-02T00:00:00.5Z"/>`,
			`<rs:md until="2013-01-03T00:00:00+01:00"/>`), nil)
		check(t, c.rule, doc(c.capability, false, "",
			`<rs:md from="2013-01-03T00:00:00Z" until="2013-01-04T00:00:00Z"/>`,
			`<rs:md from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"/>`,
			`<rs:md until="2013-01-03T12:00:00Z"/>`),
			[]finding{
				{6, "from 2013-01-02T00:00:00Z is earlier than the from 2013-01-03T00:00:00Z " + words},
				{7, "until 2013-01-03T12:00:00Z is earlier than the until 2013-01-04T00:00:00Z " + words},
			})
		check(t, c.rule, doc(c.capability, false, "",
			`<rs:md from="2013-01-01T00:00:00.0000000002Z"/>`,
			`<rs:md from="2013-01-01T00:00:00.0000000001Z"/>`),
			[]finding{{6, "from 2013-01-01T00:00:00.0000000001Z is earlier than the from 2013-01-01T00:00:00.0000000002Z " + words}})
	}
}
