// Package benchdata generates the deterministic inputs of rsconform's
// benchmarks in-process. The documents are byte for byte those that
// bench/gen.py writes for bench/validate.sh, so that the Go benchmarks
// (go test -bench) and the scripts measure the same input.
package benchdata

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
)

// Base is the URL every generated location starts with.
const Base = "http://bench.example.org"

const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

var types = [3][2]string{{"txt", "text/plain"}, {"html", "text/html"}, {"json", "application/json"}}

// ts is 2025-01-01T00:00:00Z plus sec seconds (sec within 2025).
func ts(sec int) string {
	d, s := sec/86400, sec%86400
	months := [12]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	m := 0
	for d >= months[m] {
		d -= months[m]
		m++
	}
	return fmt.Sprintf("2025-%02d-%02dT%02d:%02d:%02dZ", m+1, d+1, s/3600, s/60%60, s%60)
}

func hashes(i int) (string, string) {
	b := []byte("resource " + strconv.Itoa(i))
	m, s := md5.Sum(b), sha256.Sum256(b)
	return hex.EncodeToString(m[:]), hex.EncodeToString(s[:])
}

// ResourceList returns a Resource List of n entries, each with <lastmod>
// and <rs:md hash="md5:… sha-256:…" length type> (about 281 bytes an
// entry: 14 MB for 50,000), as bench/gen.py resourcelist writes it.
func ResourceList(n int) []byte {
	buf := make([]byte, 0, 300*n+400)
	buf = append(buf, head...)
	buf = append(buf, `  <rs:ln rel="up" href="`+Base+`/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="2025-12-31T00:00:00Z"/>
`...)
	for i := 0; i < n; i++ {
		t := types[i%3]
		md, sh := hashes(i)
		buf = fmt.Appendf(buf, "  <url>\n    <loc>%s/res/%07d.%s</loc>\n    <lastmod>%s</lastmod>\n"+
			"    <rs:md hash=\"md5:%s sha-256:%s\" length=\"%d\" type=\"%s\"/>\n  </url>\n",
			Base, i, t[0], ts((i*7919)%31_000_000), md, sh, 200+(i*37)%4000, t[1])
	}
	return append(buf, "</urlset>\n"...)
}

// ChangeList returns a Change List of n entries in forward chronological
// order (change and datetime on every entry; a quarter are deletions), with
// an up link, as bench/gen.py changelist writes it.
func ChangeList(n int) []byte {
	changes := [4]string{"created", "updated", "updated", "deleted"}
	buf := make([]byte, 0, 300*n+400)
	buf = append(buf, head...)
	buf = append(buf, `  <rs:ln rel="up" href="`+Base+`/dataset1/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2025-01-01T00:00:00Z"/>
`...)
	for i := 0; i < n; i++ {
		t := types[i%3]
		when := ts(60 + i*300)
		loc := fmt.Sprintf("%s/res/%07d.%s", Base, (i*104729)%1_000_000, t[0])
		if ch := changes[i%4]; ch == "deleted" {
			buf = fmt.Appendf(buf, "  <url>\n    <loc>%s</loc>\n    <rs:md change=\"deleted\" datetime=\"%s\"/>\n  </url>\n", loc, when)
		} else {
			md, sh := hashes(i)
			buf = fmt.Appendf(buf, "  <url>\n    <loc>%s</loc>\n    <lastmod>%s</lastmod>\n"+
				"    <rs:md change=\"%s\" datetime=\"%s\" hash=\"md5:%s sha-256:%s\" length=\"%d\" type=\"%s\"/>\n  </url>\n",
				loc, when, ch, when, md, sh, 200+(i*37)%4000, t[1])
		}
	}
	return append(buf, "</urlset>\n"...)
}

var (
	once50k sync.Once
	rl50k   []byte
)

// ResourceList50k is ResourceList(50000), generated once per process and
// shared: callers must not modify it.
func ResourceList50k() []byte {
	once50k.Do(func() { rl50k = ResourceList(50000) })
	return rl50k
}
