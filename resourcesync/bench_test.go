package resourcesync_test

import (
	"testing"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/resourcesync"
)

// BenchmarkParse50k measures the pure-Go reader on a 50,000-entry Resource
// List (about 14 MB; every entry has lastmod, md5 and sha-256 hashes,
// length and type). MB/s is of the document. Run with
//
//	go test -run '^$' -bench . -benchmem -count 10 ./resourcesync | tee new.txt
//
// and compare runs with benchstat.
func BenchmarkParse50k(b *testing.B) {
	data := benchdata.ResourceList50k()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := resourcesync.ParseBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(doc.Entries) != 50000 {
			b.Fatalf("%d entries", len(doc.Entries))
		}
	}
}

// BenchmarkAppendCheckedHashes splits and checks the hash attribute of a
// Resource List entry (md5 and sha-256), as the rules' EntryHashes does
// for every entry.
func BenchmarkAppendCheckedHashes(b *testing.B) {
	v := "md5:73b8a4d223b00f120d9a121b08baccc9 sha-256:ce0d145953ea736df1d115ddfe454fde5ac1957702144691a160e2179da403ee"
	var hs []resourcesync.CheckedHash
	for b.Loop() {
		hs = resourcesync.AppendCheckedHashes(hs[:0], v)
	}
	if len(hs) != 2 || hs[0].Fault != "" || hs[1].Fault != "" {
		b.Fatal(hs)
	}
}

// BenchmarkAttrCounter50k is the attribute count the front end runs over
// every chunk before libxml2 sees it (128 KiB pieces, as schema pushes).
func BenchmarkAttrCounter50k(b *testing.B) {
	data := benchdata.ResourceList50k()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c := resourcesync.AttrCounter{Limit: resourcesync.MaxAttributes}
		for i := 0; i < len(data); i += 128 << 10 {
			if err := c.Scan(data[i:min(i+128<<10, len(data))]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
