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

// headerLine is the header a crawl of entry with opts writes.
func headerLine(t *testing.T, entry string, opts Options) string {
	t.Helper()
	data, err := json.Marshal(stateHeader{Format: stateFormat, Version: StateVersion, Entry: entry, Options: stateOptions(opts)})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A state file's records are decoded once, when replayed: load indexes
// them by their key (refusing a line that is not JSON), and a record
// whose fields are not a record's is fetched again and said, with its
// line, in the state's Err.
func TestJournalDecodesRecordsWhenReplayed(t *testing.T) {
	const entry = "http://source.test/"
	opts := Options{Validator: &engine.Validator{}}.withDefaults()
	header := headerLine(t, entry, opts)
	good, err := json.Marshal(&record{Op: opGet, URL: entry, Status: 200, Body: []byte("<urlset/>")})
	if err != nil {
		t.Fatal(err)
	}
	wrongType := `{"op":"get","url":"http://source.test/x","status":"two hundred"}`
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(header+"\n"+string(good)+"\n"+wrongType+"\n"), 0o600); err != nil {
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

// A record with an error is replayed only with the answered mark, which
// add writes on every record with an error it keeps: one without it (an
// older rsconform's, maybe of a fetch without an answer) is not indexed,
// nor counted, and the finished line of the run that left it does not
// count.
func TestJournalStaleRecords(t *testing.T) {
	const entry = "http://source.test/"
	opts := Options{Validator: &engine.Validator{}}.withDefaults()
	header := headerLine(t, entry, opts)
	const refused = `"err":"dial tcp 127.0.0.1:1: connect: connection refused"`
	lines := []string{header,
		`{"op":"get","url":"http://source.test/a",` + refused + `}`,
		`{"op":"resource","url":"http://source.test/b",` + refused + `}`,
		`{"op":"resource","url":"http://source.test/c","status":404}`,
		`{"op":"finished"}`}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *journal {
		t.Helper()
		j, err := openJournal(path, entry, opts)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		return j
	}
	j := open()
	if j.info.Finished || !j.info.Resumed {
		t.Fatalf("Finished %v, Resumed %v: want not finished (stale records), resumed (the 404)", j.info.Finished, j.info.Resumed)
	}
	for _, u := range []string{"a", "b"} {
		if j.has(opGet, entry+u) || j.has(opResource, entry+u) {
			t.Fatalf("the stale record of %s is indexed", u)
		}
	}
	if r := j.lookup(opResource, entry+"c"); r == nil || r.Status != 404 {
		t.Fatalf("the 404: %+v", r)
	}
	// This run: a gets an answer, b a refusal of the client's own, d
	// none (not written).
	j.add(&record{Op: opGet, URL: entry + "a", Status: 200})
	j.add(&record{Op: opResource, URL: entry + "b", Err: "too many redirects: more than 10"})
	j.add(&record{Op: opResource, URL: entry + "d", Err: "dial tcp: connection reset", incomplete: true})
	info := j.close(true)
	if info.Replayed != 1 || info.Recorded != 2 || info.Incomplete != 1 {
		t.Fatalf("Replayed %d, Recorded %d, Incomplete %d; want 1, 2, 1", info.Replayed, info.Recorded, info.Incomplete)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"err":"too many redirects: more than 10","answered":true}`) {
		t.Fatalf("the refusal is written without the answered mark:\n%s", data)
	}
	// The stale records are replaced, but the older run's finished line
	// does not count (this run left d without an answer, so it wrote
	// none); the refusal is replayed, the fetch without an answer not.
	j = open()
	if j.info.Finished {
		t.Fatalf("finished, from the finished line of a run that left stale records:\n%s", data)
	}
	if r := j.lookup(opResource, entry+"b"); r == nil || r.Err != "too many redirects: more than 10" {
		t.Fatalf("the refusal: %+v, want it replayed", r)
	}
	if j.has(opResource, entry+"d") {
		t.Fatal("the fetch without an answer is recorded")
	}
	// d answered, the crawl is finished.
	j.add(&record{Op: opResource, URL: entry + "d", Status: 200})
	j.close(true)
	j = open()
	j.close(false)
	if !j.info.Finished {
		t.Fatal("not finished after a run with every fetch answered")
	}
	// A stale record after a finished line: an older run resumed the
	// finished crawl and recorded a fetch without an answer.
	if err := os.WriteFile(path, []byte(lines[0]+"\n"+lines[4]+"\n"+lines[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := open()
	defer k.close(false)
	if k.info.Finished {
		t.Fatal("finished, with a stale record after the finished line")
	}
}

// A stale record after a good one of the same fetch does not keep a crawl
// from finishing: the good one is replayed, and nothing would replace the
// stale one.
func TestJournalStaleAfterGood(t *testing.T) {
	const entry = "http://source.test/"
	opts := Options{Validator: &engine.Validator{}}.withDefaults()
	lines := []string{headerLine(t, entry, opts),
		`{"op":"get","url":"http://source.test/","status":200}`,
		`{"op":"get","url":"http://source.test/","err":"dial tcp 127.0.0.1:1: connect: connection refused"}`,
		`{"op":"finished"}`}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(path, entry, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if r := j.lookup(opGet, entry); r == nil || r.Status != 200 {
		t.Fatalf("the good record: %+v, want it replayed", r)
	}
	if !j.info.Finished {
		t.Fatal("not finished: the stale record after the good one counted")
	}
	j.close(true)
}
