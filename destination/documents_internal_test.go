package destination

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// A snapshot's index and an archive index are read by one function
// (readLeaves): either refuses a listed document of another kind, naming
// the index's kind.
func TestIndexListingAnotherKind(t *testing.T) {
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		switch r.URL.Path {
		case "/rl-index.xml", "/archive-index.xml":
			capability := map[string]string{"/rl-index.xml": "resourcelist", "/archive-index.xml": "changelist-archive"}[r.URL.Path]
			fmt.Fprintf(w, `<sitemapindex %s><rs:md capability=%q at="2013-01-03T09:00:00Z"/><sitemap><loc>%s/cl.xml</loc></sitemap></sitemapindex>`, ns, capability, srv.URL)
		case "/cl.xml":
			fmt.Fprintf(w, `<urlset %s><rs:md capability="changelist" from="2013-01-03T09:00:00Z"/></urlset>`, ns)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	o := &Options{Source: srv.URL + "/", Dir: t.TempDir()}
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	f, err := newFetcher(o)
	if err != nil {
		t.Fatal(err)
	}
	s := &syncer{o: o, f: f}
	ctx := context.Background()
	_, _, _, err = s.readSnapshot(ctx, srv.URL+"/rl-index.xml", rs.ResourceList)
	if want := "the Resource List Index lists " + srv.URL + "/cl.xml, a Change List"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("readSnapshot: %v, want %q", err, want)
	}
	_, err = s.readArchive(ctx, srv.URL+"/archive-index.xml", rs.ChangeListArchive)
	if want := "the Change List Archive Index lists " + srv.URL + "/cl.xml, a Change List"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("readArchive: %v, want %q", err, want)
	}
}
