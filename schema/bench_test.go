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

// BenchmarkSchemaStart50k is what rules.Validator does: Start (libxml2
// parse, model built from it, validation started in the background), then
// wait for the validation.
func BenchmarkSchemaStart50k(b *testing.B) {
	v, data := validator(b)
	for b.Loop() {
		doc, perrs, wait, err := v.Start(data)
		if err != nil || doc == nil || len(perrs) > 0 {
			b.Fatalf("start: %v %v", err, perrs)
		}
		errs, err := wait()
		if err != nil || len(errs) > 0 {
			b.Fatalf("wait: %v %v", err, errs)
		}
		if len(doc.Entries) != 50000 {
			b.Fatalf("%d entries", len(doc.Entries))
		}
	}
}

// BenchmarkSchemaCheck50k is Start and wait in one call.
func BenchmarkSchemaCheck50k(b *testing.B) {
	v, data := validator(b)
	for b.Loop() {
		doc, errs, err := v.Check(data)
		if err != nil || doc == nil || len(errs) > 0 {
			b.Fatalf("check: %v %v", err, errs)
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
