package crawler

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rsconform/rsconform/discovery"
	"github.com/rsconform/rsconform/rules/engine"
)

// readLine reads lines longer than the reader's buffer whole, stops at
// its limit, and leaves a last line without its newline to the caller.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100) + "\n"
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+long+"cut"), 16)
	for i, want := range []string{"a\n", long} {
		got, err := readLine(br, len(long))
		if err != nil || string(got) != want {
			t.Fatalf("line %d: %q, %v; want %q", i+1, got, err, want)
		}
	}
	if _, err := readLine(br, len(long)-1); !errors.Is(err, errLongLine) {
		t.Fatalf("a line one byte over the limit: %v, want errLongLine", err)
	}
	br = bufio.NewReaderSize(strings.NewReader("cut"), 16)
	if got, err := readLine(br, 10); string(got) != "cut" || err != io.EOF {
		t.Fatalf("the last line without its newline: %q, %v", got, err)
	}
}

// The default bound of a state file holds the bodies as records keep
// them, decoded, and saturates rather than overflows.
func TestDefaultMaxStateBytes(t *testing.T) {
	maxSize := engine.Limits{}.WithDefaults().MaxBytes
	base64Of := func(n int64) int64 { return int64(base64.StdEncoding.EncodedLen(int(n))) }
	for _, c := range []struct {
		name      string
		opts      Options
		atLeast   int64 // what the records can hold, base64
		saturated bool
	}{
		// Documents served gzip: a few wire bytes each, max-size each
		// in the records, read up to three times.
		{"decoded documents", Options{MaxBytes: 1 << 20, MaxDocuments: 4}, base64Of(1<<20 + 3*4*maxSize), false},
		{"limits of the crawl flags", Options{MaxBytes: 1 << 30, MaxDocuments: 1000}, 0, false},
		{"huge --max-bytes", Options{MaxBytes: 9e18, MaxDocuments: 1}, 0, true},
		{"largest --max-bytes", Options{MaxBytes: math.MaxInt64, MaxDocuments: 1}, 0, true},
		{"huge --max-documents", Options{MaxBytes: 1, MaxDocuments: math.MaxInt}, 0, true},
	} {
		got := c.opts.withDefaults().MaxStateBytes
		if c.saturated && got != math.MaxInt64 {
			t.Errorf("%s: %d, want math.MaxInt64", c.name, got)
		}
		if got < c.atLeast+stateFactsBytes || got <= 0 {
			t.Errorf("%s: %d, want at least %d (bodies, base64) and %d (facts)", c.name, got, c.atLeast, stateFactsBytes)
		}
	}
	if got := base64Bytes(10); got != 16 {
		t.Errorf("base64Bytes(10) = %d, want 16", got)
	}
}

// The state file's bounds are sized by --max-size as the crawl reads
// documents by it (Options.maxSize): the Validator's limit, its default
// without one.
func TestStateBoundsOfMaxSize(t *testing.T) {
	small := int64(discovery.MaxPageBytes) * 4
	withSize := Options{Validator: &engine.Validator{Config: engine.Config{Limits: engine.Limits{MaxBytes: small}}}}
	for _, c := range []struct {
		name    string
		opts    Options
		maxSize int64
	}{
		{"no Validator: the default", Options{}, engine.Limits{}.WithDefaults().MaxBytes},
		{"a Validator without limits: the default", Options{Validator: &engine.Validator{}}, engine.Limits{}.WithDefaults().MaxBytes},
		{"--max-size", withSize, small},
	} {
		c.opts.MaxDocuments, c.opts.MaxBytes = 1, 3
		if got := c.opts.maxSize(); got != c.maxSize {
			t.Errorf("%s: maxSize %d, want %d", c.name, got, c.maxSize)
		}
		if got, want := maxRecordBytes(c.opts), int(base64Bytes(c.maxSize+1)+8<<20); got != want {
			t.Errorf("%s: maxRecordBytes %d, want %d", c.name, got, want)
		}
		if got, want := defaultMaxStateBytes(c.opts), base64Bytes(3+3*(c.maxSize+1))+stateFactsBytes; got != want {
			t.Errorf("%s: defaultMaxStateBytes %d, want %d", c.name, got, want)
		}
	}
	if got := stateOptions(withSize)["max-size"]; got != strconv.FormatInt(small, 10) {
		t.Errorf("the header's max-size: %s, want %d", got, small)
	}
}

// A state file's records are decoded once, when replayed: load indexes
// them by their key (refusing a line that is not JSON), and a record
// whose fields are not a record's is fetched again and said, with its
// line, in the state's Err.
func TestJournalDecodesRecordsWhenReplayed(t *testing.T) {
	const entry = "http://source.test/"
	opts := Options{Validator: &engine.Validator{}}.withDefaults()
	header, err := json.Marshal(stateHeader{Format: stateFormat, Version: StateVersion, Entry: entry, Options: stateOptions(opts)})
	if err != nil {
		t.Fatal(err)
	}
	good, err := json.Marshal(&record{Op: opGet, URL: entry, Status: 200, Body: []byte("<urlset/>")})
	if err != nil {
		t.Fatal(err)
	}
	wrongType := `{"op":"get","url":"http://source.test/x","status":"two hundred"}`
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(string(header)+"\n"+string(good)+"\n"+wrongType+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(path, entry, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer j.close(false)
	if r := j.lookup(opGet, entry); r == nil || r.Status != 200 || string(r.Body) != "<urlset/>" {
		t.Fatalf("the good record: %+v", r)
	}
	if j.info.Err != nil {
		t.Fatalf("Err after the good record: %v", j.info.Err)
	}
	if r := j.lookup(opGet, entry+"x"); r != nil {
		t.Fatalf("the record of the wrong type: %+v, want nil (fetched again)", r)
	}
	var se *StateError
	if !errors.As(j.info.Err, &se) || se.Line != 3 || !strings.Contains(se.Msg, "a damaged record") {
		t.Fatalf("Err: %v, want a StateError on line 3", j.info.Err)
	}
	if j.info.Replayed != 1 {
		t.Fatalf("Replayed %d, want 1", j.info.Replayed)
	}
	// A record added after the load is found at its line too.
	j.info.Err = nil
	j.add(&record{Op: opResource, URL: entry + "r"})
	if sp := j.index[stateKey(opResource, entry+"r")]; sp.line != 4 {
		t.Fatalf("the added record's line: %d, want 4", sp.line)
	}
}
