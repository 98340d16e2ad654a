package mocksource_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// discard is a ResponseWriter that keeps nothing, so that the benchmark
// measures the Source.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

func benchSource(b *testing.B, resources int) http.Handler {
	sc, err := scenario.Load("large-source")
	if err != nil {
		b.Fatal(err)
	}
	src, err := mocksource.New(mocksource.Options{Scenario: sc, Resources: resources, BaseURL: "http://bench.example", LogSize: 1024})
	if err != nil {
		b.Fatal(err)
	}
	return src.Handler()
}

// BenchmarkServeResource measures one GET of a resource, body generated.
func BenchmarkServeResource(b *testing.B) {
	h := benchSource(b, 1_000_000)
	req := httptest.NewRequest(http.MethodGet, "/res/0123456.txt", nil)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// BenchmarkServeResourceParallel is the same from every CPU at once.
func BenchmarkServeResourceParallel(b *testing.B) {
	h := benchSource(b, 1_000_000)
	paths := []string{"/res/0000001.html", "/res/0500000.json", "/res/0999999.txt", "/res/0123456.txt"}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		i := 0
		for pb.Next() {
			clear(w.h)
			req := httptest.NewRequest(http.MethodGet, paths[i%len(paths)], nil)
			h.ServeHTTP(w, req)
			i++
		}
	})
}

// BenchmarkServeIndex measures the Resource List Index of a million
// resources, rendered once and then served from the cache.
func BenchmarkServeIndex(b *testing.B) {
	h := benchSource(b, 1_000_000)
	req := httptest.NewRequest(http.MethodGet, "/dataset1/resourcelist.xml", nil)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}
