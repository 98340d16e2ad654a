package baseline

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

func finding(rule, msg string, line int) engine.Diagnostic {
	return engine.Diagnostic{Rule: rule, Severity: engine.SeverityError, Message: msg, Location: engine.Location{Line: line}}
}

// TestWriteReadFilter writes the findings of one run, reads them back and
// filters a later run: the known findings go (wherever their lines moved),
// a further one with a known key stays, a document left with no error is
// valid, one that could not be checked for a known finding is skipped.
func TestWriteReadFilter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	if _, err := Read(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing file: %v, want fs.ErrNotExist", err)
	}
	first := []engine.Result{
		{Location: "cl.xml", Kind: rs.ChangeList, Status: engine.StatusInvalid,
			Diagnostics: []engine.Diagnostic{finding("RS-CL-ORDER", "change time out of order (line 6)", 6)}},
		{Location: "big.xml", Status: engine.StatusError, Error: "too large",
			Diagnostics: []engine.Diagnostic{finding("RS-SIZE", "50001 entries", 0)}},
	}
	wrote, n, err := Write(path, first)
	if err != nil || n != 2 {
		t.Fatalf("Write: %d, %v; want 2 findings", n, err)
	}
	if _, _, err := Write(path, first); err == nil {
		t.Fatal("Write over an existing baseline succeeded")
	}
	known, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(wrote, known) {
		t.Fatalf("Write returned %v, Read reads %v", wrote, known)
	}
	later := []engine.Result{
		{Location: "cl.xml", Kind: rs.ChangeList, Status: engine.StatusInvalid, Diagnostics: []engine.Diagnostic{
			finding("RS-CL-ORDER", "change time out of order (line 9)", 9),
			finding("RS-CL-ORDER", "change time out of order (line 12)", 12)}},
		{Location: "big.xml", Status: engine.StatusError, Error: "too large",
			Diagnostics: []engine.Diagnostic{finding("RS-SIZE", "50002 entries", 0)}},
		{Location: "other.xml", Status: engine.StatusInvalid,
			Diagnostics: []engine.Diagnostic{finding("RS-CL-ORDER", "change time out of order (line 6)", 6)}},
	}
	if removed := known.Filter(later); removed != 2 {
		t.Errorf("Filter removed %d findings, want 2", removed)
	}
	if got := later[0]; got.Status != engine.StatusInvalid || len(got.Diagnostics) != 1 || got.Diagnostics[0].Location.Line != 12 {
		t.Errorf("cl.xml: %s with %v; want invalid with the second finding only", got.Status, got.Diagnostics)
	}
	if got := later[1]; got.Status != engine.StatusSkipped {
		t.Errorf("big.xml: %s (%s); want skipped", got.Status, got.Error)
	}
	if got := later[2]; got.Status != engine.StatusInvalid || len(got.Diagnostics) != 1 {
		t.Errorf("other.xml: %s with %v; want its finding kept (another document)", got.Status, got.Diagnostics)
	}
}

// TestReadRefuses refuses what is not an rsconform baseline.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"not-json.json":   "findings",
		"other-tool.json": `{"tool": "other", "format": 1, "findings": []}`,
		"format-2.json":   `{"tool": "rsconform", "format": 2, "findings": []}`,
		"findings.json":   `{"tool": "rsconform", "format": 1, "findings": {}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil {
			t.Errorf("%s: read as a baseline", name)
		}
	}
}
