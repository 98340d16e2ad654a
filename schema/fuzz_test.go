package schema_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rsconform/rsconform/schema"
)

// FuzzValidate feeds arbitrary bytes to the validator: it must neither
// crash nor fail to run, and every finding must carry a message.
// Run with: go test -run '^$' -fuzz FuzzValidate ./schema/
func FuzzValidate(f *testing.F) {
	v, err := schema.New()
	if err != nil {
		f.Fatal(err)
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
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
