//go:build unix

package inputs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// A named pipe (validate <(command)) may block in a Read: ValidateAll does
// not read it inline (Expand gives it no size; nor does validateOne, should
// it have become one since) (engine.Validator.Inline), where a cancel would wait
// for the Read to return, even when every worker has a document.
func TestValidateAllStopsOnCancelReadingAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.xml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	// The writer writes 100 KB of a document (beyond the 64 KiB read
	// before libxml2 sees any), then holds the pipe open for 10 s.
	release := make(chan struct{})
	defer close(release)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		var b bytes.Buffer
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for b.Len() < 100_000 {
			b.WriteString("<url><loc>http://example.com/r</loc></url>\n")
		}
		if _, err := w.Write(b.Bytes()); err != nil {
			return
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}()
	// Given a size, as if it had been a regular file when Expand saw it:
	// the open-time check must still keep it from being read inline.
	ins := []Input{{Name: fifo, Size: 1}}
	for _, name := range []string{"a.xml", "b.xml", "c.xml"} {
		p := filepath.Join(dir, name)
		doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://example.com/` + name + `</loc></url></urlset>`
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Name: p, Size: int64(len(doc))})
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	results := ValidateAll(ctx, &engine.Validator{Schema: frontend.Must()}, nil, ins, 2)
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("ValidateAll returned %v after the cancel", took-300*time.Millisecond)
	}
	if r := results[0]; r.Status != engine.StatusError || !strings.Contains(r.Error, "context canceled") {
		t.Errorf("the pipe: %v %q, want an error saying the run was canceled", r.Status, r.Error)
	}
	for _, r := range results[1:] {
		if r.Status == engine.StatusError {
			t.Errorf("%s: %v %q", r.Location, r.Status, r.Error)
		}
	}
}
