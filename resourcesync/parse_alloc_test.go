package resourcesync_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Parse hands the Builder each start tag alone: the Builder copies the
// tags of <rs:md> and <rs:ln>, so handing it the rest of the document
// (as Parse did) copied the document once per such element: a 411 KB list
// of 4,000 entries allocated 806 MB.
func TestParseAllocatesLinearly(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n" +
		`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>` + "\n")
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&b, "<url><loc>http://example.com/r%d</loc><rs:md length=\"%d\" type=\"text/plain\"/></url>\n", i, i)
	}
	b.WriteString("</urlset>\n")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	doc, err := rs.ParseBytes(data)
	runtime.ReadMemStats(&after)
	if err != nil || len(doc.Entries) != 4000 {
		t.Fatalf("parse: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 100*uint64(len(data)) {
		t.Fatalf("Parse of %d bytes allocated %d bytes", len(data), got)
	}
}
