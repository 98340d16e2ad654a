package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// The rules benchmarks check a 50,000-entry Resource List (about 14 MB) with
// every rule of the catalogue; MB/s is of the document. Compare runs with
// benchstat:
//
//	go test -run '^$' -bench . -benchmem -count 10 ./rules | tee new.txt

func mustClean(b *testing.B, res engine.Result) {
	if res.Status != engine.StatusValid {
		b.Fatalf("status %s %s: %v", res.Status, res.Error, res.Diagnostics[:min(3, len(res.Diagnostics))])
	}
	if e, w, i := res.Count(); e+w+i > 0 {
		b.Fatalf("%d errors, %d warnings, %d infos: %v", e, w, i, res.Diagnostics[:min(3, len(res.Diagnostics))])
	}
}

// reportCPU reports the CPU time (user + system, every goroutine, the GC's
// included) per op since start, as cpu-ns/op, beside the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRules50k runs the document rules (engine.Run) on a document
// parsed once, outside the loop.
func BenchmarkRules50k(b *testing.B) {
	data := benchdata.ResourceList50k()
	doc, err := resourcesync.ParseBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuNow()
	defer reportCPU(b, start)
	for b.Loop() {
		mustClean(b, engine.Run("bench.xml", engine.Input{Doc: doc}, engine.Config{}))
	}
}

// BenchmarkValidate50k is engine.Validator end to end with the libxml2
// schema validator, as 'rsconform validate' runs it on a file in memory.
func BenchmarkValidate50k(b *testing.B) {
	sv, err := frontend.New()
	if err != nil {
		b.Fatal(err)
	}
	v := &engine.Validator{Schema: sv}
	data := benchdata.ResourceList50k()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuNow()
	defer reportCPU(b, start)
	for b.Loop() {
		mustClean(b, v.ValidateBytes(context.Background(), "bench.xml", data))
	}
}

// BenchmarkValidate50kNoSchema is engine.Validator with RS-XSD deselected:
// the front end parses without XSD validation, then the rules run.
func BenchmarkValidate50kNoSchema(b *testing.B) {
	sel, err := engine.ParseSelector("*,-RS-XSD")
	if err != nil {
		b.Fatal(err)
	}
	v := &engine.Validator{Config: engine.Config{Select: sel}, Schema: frontend.Must()}
	data := benchdata.ResourceList50k()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuNow()
	defer reportCPU(b, start)
	for b.Loop() {
		mustClean(b, v.ValidateBytes(context.Background(), "bench.xml", data))
	}
}

// BenchmarkValidateChangeList50k is BenchmarkValidate50k on a 50,000-entry
// Change List (more rules apply: order, change, datetime, intervals).
func BenchmarkValidateChangeList50k(b *testing.B) {
	data := benchdata.ChangeList(50000)
	sv, err := frontend.New()
	if err != nil {
		b.Fatal(err)
	}
	v := &engine.Validator{Schema: sv}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuNow()
	defer reportCPU(b, start)
	for i := 0; i < b.N; i++ {
		if res := v.ValidateBytes(context.Background(), "changelist.xml", data); res.Status != engine.StatusValid {
			b.Fatalf("status %s: %v", res.Status, res.Diagnostics)
		}
	}
}
