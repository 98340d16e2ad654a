package reporter

import (
	"bytes"
	"encoding/json"
	"testing"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
)

// The json format is written document by document; its bytes are those of
// the whole report encoded at once, as they were when it was built in
// memory (the format is a contract).
func TestJSONStreamsTheSameBytes(t *testing.T) {
	results := []engine.Result{
		{Location: "https://example.com/cl.xml?a=<b>&c", Kind: rs.ChangeList, Status: engine.StatusInvalid,
			Diagnostics: []engine.Diagnostic{
				{Rule: "RS-CL-ORDER", Severity: engine.SeverityError, Section: "12.1", Message: "listed <before> & \"after\" \u2028 \xff",
					Location: engine.Location{Line: 12, Column: 3}, Related: []engine.Location{{URL: "https://example.com/cl.xml", Line: 10, Column: 3}}},
				{Rule: "RS-TIME-UTC", Severity: engine.SeverityWarning, Section: "4.2", Message: "not UTC"},
			}},
		{Location: "bad.xml", Kind: rs.KindUnknown, Status: engine.StatusError, Error: "not well-formed"},
		{Location: "ok.xml", Kind: rs.ResourceList, Status: engine.StatusValid},
	}
	sampling := &graph.Sampling{Resources: 3, Skipped: map[string]int{"budget": 2}}
	for _, tc := range []struct {
		name     string
		results  []engine.Result
		sampling *graph.Sampling
	}{{"none", nil, nil}, {"one", results[:1], nil}, {"three", results, nil}, {"three, sampled", results, sampling}, {"none, sampled", nil, sampling}} {
		o := Options{Tool: "rsconform", Version: "test", Spec: "1.1", Strict: true}
		// The whole report, encoded at once.
		want := newJSON(nil, o)
		var sum Summary
		for _, r := range tc.results {
			sum.Add(r)
			want.rep.Documents = append(want.rep.Documents, jsonDocumentOf(r))
		}
		if tc.sampling != nil {
			want.rep.Sampling = jsonSamplingOf(tc.sampling)
		}
		want.rep.Summary = JSONSummary{Documents: sum.Documents, Valid: sum.Valid, Invalid: sum.Invalid,
			Unprocessed: sum.Errors, Skipped: sum.Skipped, Errors: sum.ErrorFindings, Warnings: sum.Warnings, Infos: sum.Infos}
		var wb bytes.Buffer
		enc := json.NewEncoder(&wb)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(want.rep); err != nil {
			t.Fatal(err)
		}
		// Streamed.
		var got bytes.Buffer
		j := newJSON(&got, o)
		for _, r := range tc.results {
			if err := j.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if tc.sampling != nil {
			j.SetSampling(tc.sampling)
		}
		if err := j.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != wb.String() {
			t.Errorf("%s: streamed\n%s\nwant\n%s", tc.name, got.String(), wb.String())
		}
	}
}
