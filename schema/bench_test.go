package schema_test

import (
	"testing"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/schema"
)

// The schema benchmarks validate a 50,000-entry Resource List (about 14 MB)
// with libxml2; MB/s is of the document. Compare runs with benchstat:
//
//	go test -run '^$' -bench . -benchmem -count 10 ./schema | tee new.txt

func validator(b *testing.B) (*schema.Validator, []byte) {
	v, err := schema.New()
	if err != nil {
		b.Fatal(err)
	}
	data := benchdata.ResourceList50k()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	return v, data
}

// BenchmarkSchemaRead50k is what engine.Validator does: the front end's
// one pass (libxml2 parse and XSD validation, model built from it).
func BenchmarkSchemaRead50k(b *testing.B) {
	v, data := validator(b)
	for b.Loop() {
		doc, errs, err := v.Read(data, true)
		if err != nil || len(errs) > 0 {
			b.Fatalf("read: %v %v", err, errs)
		}
		if len(doc.Entries) != 50000 {
			b.Fatalf("%d entries", len(doc.Entries))
		}
	}
}

// BenchmarkSchemaParse50k is the front end without XSD validation (what
// sync and a run without RS-XSD do).
func BenchmarkSchemaParse50k(b *testing.B) {
	v, data := validator(b)
	for b.Loop() {
		doc, _, err := v.Read(data, false)
		if err != nil || len(doc.Entries) != 50000 {
			b.Fatalf("read: %v", err)
		}
	}
}

// BenchmarkSchemaValidate50k is the XSD validation alone, no model: the
// work xmllint --schema does.
func BenchmarkSchemaValidate50k(b *testing.B) {
	v, data := validator(b)
	for b.Loop() {
		errs, err := v.Validate(data)
		if err != nil || len(errs) > 0 {
			b.Fatalf("validate: %v %v", err, errs)
		}
	}
}
