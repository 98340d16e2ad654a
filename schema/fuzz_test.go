package schema_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// addSeeds gives f the documents of testdata as seeds.
func addSeeds(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzValidate feeds arbitrary bytes to the validator: it must neither
// crash nor fail to run, and every finding must carry a message.
// Run with: go test -run '^$' -fuzz FuzzValidate ./schema/
func FuzzValidate(f *testing.F) {
	v, err := schema.New()
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f)
	f.Add([]byte(`<?xml version="1.0" encoding="UTF-16"?><urlset/>`))
	f.Add([]byte(`<?xml version="1.0" encoding="bogus"?><urlset/>`))
	f.Add([]byte("\xef\xbb\xbf<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>"))
	f.Add([]byte("\xff\xfe<\x00u\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs, err := v.Validate(data)
		if err != nil {
			t.Fatalf("validation could not run: %v", err)
		}
		for _, e := range errs {
			if e.Message == "" || len(e.Message) > 1024+3 {
				t.Fatalf("bad message %q", e.Message)
			}
		}
		// Fed in pieces, a well-formed document gets the same findings at
		// the same positions (the pass locates tags across chunks).
		if len(errs) > 0 && errs[0].Parse {
			return
		}
		for _, k := range []int{1, 7} {
			got, err := v.ValidateChunked(data, k)
			if err != nil {
				t.Fatalf("validation in pieces of %d bytes could not run: %v", k, err)
			}
			if !reflect.DeepEqual(got, errs) {
				t.Fatalf("in pieces of %d bytes: %v, whole: %v", k, got, errs)
			}
		}
	})
}

// FuzzRead feeds arbitrary bytes to the front end with the model wanted,
// its entries handed over in windows of 3 and dropped, as validate reads a
// document: it must neither crash nor fail to run (the events a pass
// writes are always ones the decoder reads), and a document that is read
// gets its model.
// Run with: go test -run '^$' -fuzz FuzzRead ./schema/
func FuzzRead(f *testing.F) {
	v, err := schema.New()
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f)
	f.Add([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><url><loc>http://e.com/a</loc><rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" x:y="1" xmlns:x="urn:x"/></url><url><loc>http://e.com/b</loc></url></urlset>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pool := rs.NewEntryPool()
		doc, _, err := v.ReadWith(data, schema.ReadOptions{Validate: true, Window: 3, Pool: pool, OnEntries: func(d *rs.Document) {
			pool.Put(d.Entries)
			d.Entries = nil
		}})
		var se *rs.SyntaxError
		var le *rs.LimitError
		switch {
		case err == nil:
			if doc == nil {
				t.Fatal("no error and no model")
			}
		case errors.As(err, &se), errors.As(err, &le):
		default:
			t.Fatalf("the front end could not read the document: %v", err)
		}
	})
}
