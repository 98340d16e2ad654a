package crawler

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rsconform/rsconform/discovery"
	"github.com/rsconform/rsconform/internal/filelock"
	"github.com/rsconform/rsconform/internal/safefile"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// A crawl's state (Options.State) is a journal of what it fetched: a
// header line, then one JSON line per completed fetch, appended as the
// fetch completes. A crawl given the journal of an earlier run of the same
// crawl replays it: every fetch the journal records is served from it
// instead of the network, through the same code that read it the first
// time, so the resumed crawl walks, samples, judges and reports exactly as
// an uninterrupted one, and nothing recorded is fetched again.
//
// What a record keeps is what the crawl read: for a document (or a
// discovery page, robots.txt, a document read again for the History or
// --revisit) the HTTP facts (status, headers, among them Date and
// Last-Modified, the time evidence the rules judge by; redirects; the
// error) and the body bytes the crawl read; for a sampled resource the
// HTTP facts and what was measured of its body (length, digests), never
// the body; for a package the same, what was found in it, and its
// manifest's bytes. A fetch in flight when the crawl stopped has no record
// and is made again by the next run: no result of it was kept. Nor has a
// fetch the transport left incomplete (sourcehttp.Response.Incomplete):
// without an answer (refused, reset, a time-out), or with its body cut
// (the connection reset or closed, or the time-out, before the body's
// end): a resumed crawl makes it again, and the server may serve it whole.
// The live crawl reports it all the same (a fetch failure, a body error
// on a document, a resource not measured); the next run's fetch stands
// instead. An answer of any status (a 404, a 500), read to its end or as
// far as the crawl wanted (--max-size, --max-bytes, a package limit), and
// a refusal of the client's own (the origin policy, too many redirects)
// are recorded, and so is a server certificate the client does not trust.
//
// An older rsconform (the same format, version 2) recorded a fetch without
// an answer too, as it records a refusal: its error's text, no status.
// Nothing else in such a record tells the two apart (the error's kind,
// which Unanswered judges, is not kept), so a record with an error is
// replayed only when it bears the answered mark every record with an error
// has been written with since (add); one without it is stale: load does
// not index it, and its fetch is made again, counted as one the file does
// not hold (a refusal in an older file, or a package's failure status,
// which its record keeps as an error, is thus fetched once more, then
// recorded with the mark). The finished line of a run that left a stale
// record does not count, nor does any while a stale record stands that
// no later record of its fetch replaces. The format is unchanged: an
// older rsconform reading a newer file ignores the mark. An older
// rsconform recorded a body cut short too (a document's body error, a
// resource or package truncated); such a record is replayed as it stands.
//
// Lines are written whole, one write each, and synced to disk every
// stateSyncEvery records or stateSyncPeriod of the crawl's clock, and when
// the crawl ends. A crawl killed while writing leaves its last line cut: the
// next run drops that line (its fetch is made again). Any other damage is
// an error, never a guess.

// StateVersion is the version of the state file's format. Version 2: a
// --map crawl records its files without Last-Modified (version 1 recorded
// the files' modification times, which no rule may read). The answered
// mark of a record with an error came later within version 2: a file
// without it is read, its records with an error made again (stale).
const StateVersion = 2

const stateFormat = "rsconform crawl state"

// The state file is synced every stateSyncEvery records or stateSyncPeriod.
const (
	stateSyncEvery  = 100
	stateSyncPeriod = 10 * time.Second
)

// Record operations: what a record's fetch was for.
const (
	opGet      = "get"      // a document, a discovery page, robots.txt
	opRefresh  = "refresh"  // a Change List read again for the History
	opRevisit  = "revisit"  // a document read again by --revisit
	opResource = "resource" // a sampled resource
	opPackage  = "package"  // a dump package
	opLinked   = "linked"   // the target of a describedby link (HEAD, or GET)
	opPause    = "pause"    // the --revisit pause was waited
	opFinished = "finished" // the crawl ran to its end
)

// StateError says why a state file cannot be used; the crawl does not
// start.
type StateError struct {
	File string
	Line int // 0 when the error is not on one line
	Msg  string
}

func (e *StateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("state file %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("state file %s: %s", e.File, e.Msg)
}

// StateInfo says what a crawl did with its state file.
type StateInfo struct {
	File string
	// Replayed counts the fetches served from the state file; Recorded
	// those made by this run and added to it; Incomplete those made by
	// this run that the transport left incomplete (no answer, or a body
	// cut short), not added: the next run makes them again.
	Replayed, Recorded, Incomplete int
	// Resumed is set when the file held an earlier run's fetches;
	// Finished when that run had ended with every fetch complete (this
	// one then fetched nothing new, unless the earlier run's budget ran
	// out in another order).
	Resumed, Finished bool
	// Dropped is set when the file's last line was cut (the writing run
	// was killed while writing it) and was dropped.
	Dropped bool
	// Err is why the state could not be written (disk full): the crawl
	// went on, but the file may not hold everything it did.
	Err error
}

type stateHeader struct {
	Format  string            `json:"format"`
	Version int               `json:"version"`
	Entry   string            `json:"entry"`
	Options map[string]string `json:"options"`
}

// record is one line of the journal.
type record struct {
	Op  string `json:"op"`
	URL string `json:"url,omitempty"`
	// HTTP facts of the response.
	Final      string        `json:"final,omitempty"`
	Status     int           `json:"status,omitempty"`
	Header     http.Header   `json:"header,omitempty"`
	Redirects  []string      `json:"redirects,omitempty"`
	Err        string        `json:"err,omitempty"`
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
	MaxWait    time.Duration `json:"maxWait,omitempty"`
	Requests   int64         `json:"requests,omitempty"`
	Bytes      int64         `json:"bytes,omitempty"`
	// Method is the method of a linked target's answer when not GET;
	// Earlier the statuses answered before it (a HEAD's 405).
	Method  string `json:"method,omitempty"`
	Earlier []int  `json:"earlier,omitempty"`
	// Body is what the crawl read of a document's body; BodyErr the error
	// that ended the reading ("" for its end, or when the crawl stopped
	// reading).
	Body    []byte `json:"body,omitempty"`
	BodyErr string `json:"bodyErr,omitempty"`
	// What was measured of a resource or package.
	Facts *graph.BodyFacts `json:"facts,omitempty"`
	// A package: what was found in it, its manifest, the members read.
	Package     *graph.PackageFacts `json:"package,omitempty"`
	Manifest    *manifestInput      `json:"manifest,omitempty"`
	MembersRead int                 `json:"membersRead,omitempty"`
	// Answered marks a record with Err as one of a fetch that got an
	// answer, or a refusal of the client's own: add sets it on every
	// record with Err it writes. A record with Err without it is stale
	// (an older rsconform's, maybe of a fetch without an answer).
	Answered bool `json:"answered,omitempty"`
	// incomplete marks a fetch the transport left incomplete (without an
	// answer, or its body cut: sourcehttp.Response.Incomplete): it is not
	// recorded (add).
	incomplete bool
}

func (r *record) key() string { return stateKey(r.Op, r.URL) }

// recordKey is what load decodes of a record: what the index files it
// under, and whether it is stale. The whole record (its body, base64, and
// headers) is decoded once, by lookup, when the crawl replays it.
type recordKey struct {
	Op       string `json:"op"`
	URL      string `json:"url,omitempty"`
	Err      string `json:"err,omitempty"`
	Answered bool   `json:"answered,omitempty"`
}

// stale reports a record of a fetch an older rsconform recorded with an
// error, without the answered mark: it may have got no answer, and is
// never replayed.
func (r *recordKey) stale() bool { return r.Err != "" && !r.Answered }

// stateKey is what the journal's index files the record of op on u under.
func stateKey(op, u string) string { return op + " " + u }

// span is where a record stands in the file: its bytes, and its line.
type span struct {
	off, n int64
	line   int
}

// journal is an open state file.
type journal struct {
	path  string
	clock sourcehttp.Clock
	// maxLine bounds a line read into memory (maxRecordBytes); maxFile
	// the file (Options.MaxStateBytes).
	maxLine int
	maxFile int64

	mu       sync.Mutex
	f        *os.File
	end      int64 // where the next record goes: the file's end
	lines    int   // the lines up to end
	index    map[string]span
	info     StateInfo
	unsynced int
	synced   time.Time
}

// stateOptions are the options that decide what a crawl fetches, as the
// state file's header keeps them, each under its flag's name (a refusal
// names the flag): a run with other values would not make the fetches the
// file records.
func stateOptions(o Options) map[string]string {
	cfg := o.Validator.Config.WithDefaults()
	limits, spec := cfg.Limits, string(cfg.Spec)
	hosts := append([]string(nil), o.AllowHosts...)
	sort.Strings(hosts)
	var maps []string
	for _, m := range o.Maps {
		maps = append(maps, m.String())
	}
	sort.Strings(maps)
	sample := strconv.Itoa(o.Sample)
	if o.Sample == SampleAll {
		sample = "all"
	}
	pl := o.PackageLimits
	return map[string]string{
		"spec":                     spec,
		"sample":                   sample,
		"packages":                 strconv.FormatBool(o.Packages),
		"max-documents":            strconv.Itoa(o.MaxDocuments),
		"max-bytes":                strconv.FormatInt(o.MaxBytes, 10),
		"max-entries":              strconv.Itoa(limits.MaxEntries),
		"max-size":                 strconv.FormatInt(o.maxSize(), 10),
		"allow-host":               strings.Join(hosts, ","),
		"map":                      strings.Join(maps, ","),
		"revisit":                  o.Revisit.String(),
		"max-package-size":         strconv.FormatInt(pl.MaxBytes, 10),
		"max-package-entries":      strconv.Itoa(pl.MaxEntries),
		"max-package-uncompressed": strconv.FormatInt(pl.MaxUncompressed, 10),
		"max-package-ratio":        strconv.FormatFloat(pl.MaxRatio, 'g', -1, 64),
	}
}

// stateFactsBytes is what the default bound of a state file
// (Options.MaxStateBytes) gives the records' HTTP facts besides the
// bodies: 1 GiB, a few hundred bytes a resource for millions of them.
const stateFactsBytes = 1 << 30

// defaultMaxStateBytes is the default bound of a state file: the bodies
// its records hold, base64, and stateFactsBytes, at most math.MaxInt64.
// A record holds a body as the crawl read it: a document decoded (gzip
// on the wire), within --max-size, so the documents count as
// --max-documents of --max-size each, read up to three times (fetched,
// read again for the History, revisited); what is kept undecoded
// (robots.txt) is within --max-bytes.
func defaultMaxStateBytes(o Options) int64 {
	documents := saturatingMul(saturatingMul(3, int64(o.MaxDocuments)), saturatingAdd(o.maxSize(), 1))
	bodies := saturatingAdd(o.MaxBytes, documents)
	return saturatingAdd(base64Bytes(bodies), stateFactsBytes)
}

// base64Bytes is the length of n bytes in base64, at most math.MaxInt64.
func base64Bytes(n int64) int64 {
	return saturatingMul(4, n/3+min(n%3, 1))
}

// saturatingAdd is a+b for a, b >= 0, at most math.MaxInt64.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// saturatingMul is a*b for a, b >= 0, at most math.MaxInt64.
func saturatingMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// maxRecordBytes bounds one line of a crawl's state file, the most that
// is read into memory at once: a record holds at most what the crawl read
// of a body (a document within --max-size, an HTML page or robots.txt
// within discovery.MaxPageBytes), base64 in JSON, and its HTTP facts,
// given 8 MiB (response headers are at most 1 MiB, escaped). A longer
// line is refused: no crawl with these options wrote it.
func maxRecordBytes(opts Options) int {
	body := max(opts.maxSize(), discovery.MaxPageBytes) + 1
	return int(base64Bytes(body) + 8<<20)
}

// openJournal opens (or creates) the state file at path for a crawl of
// entry with opts, and indexes the records it holds.
func openJournal(path, entry string, opts Options) (*journal, error) {
	f, err := safefile.OpenOwn(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("crawler: the state file: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("crawler: the state file: %w", err)
		}
		return nil, &StateError{File: path, Msg: (&safefile.NotRegularError{Name: path, What: "state file", Mode: st.Mode()}).Error()}
	}
	clock := opts.HTTP.Clock
	if clock == nil {
		clock = sourcehttp.RealClock{}
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, &StateError{File: path, Msg: "in use by another crawl (locked): two crawls cannot share a state file"}
		}
		return nil, fmt.Errorf("crawler: locking the state file: %w", err)
	}
	j := &journal{path: path, f: f, clock: clock, maxLine: maxRecordBytes(opts), maxFile: opts.MaxStateBytes, index: map[string]span{}, info: StateInfo{File: path}}
	want := stateHeader{Format: stateFormat, Version: StateVersion, Entry: entry, Options: stateOptions(opts)}
	if err := j.load(want); err != nil {
		f.Close()
		return nil, err
	}
	j.synced = clock.Now()
	return j, nil
}

// errLongLine is readLine's error for a line over its bound.
var errLongLine = errors.New("line too long")

// readLine is br.ReadBytes('\n') reading at most limit bytes: beyond, it
// stops with errLongLine.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// load reads the file: it writes the header into an empty file, checks
// the header of another, and indexes its records.
func (j *journal) load(want stateHeader) error {
	bad := func(line int, format string, args ...any) error {
		return &StateError{File: j.path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	st, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("crawler: the state file: %w", err)
	}
	if st.Size() == 0 {
		return j.append(want)
	}
	if st.Size() > j.maxFile {
		return j.tooLarge()
	}
	// The file is read within its bound even should it grow meanwhile.
	br := bufio.NewReaderSize(safefile.LimitReader(j.f, j.maxFile, j.tooLarge()), 1<<20)
	var off int64
	// stale holds the keys of stale records no later record replaces.
	stale := map[string]bool{}
	for line := 1; ; line++ {
		data, err := readLine(br, j.maxLine)
		if errors.Is(err, errLongLine) {
			return bad(line, "a line longer than %d bytes, more than any record of a crawl with these options: the file was changed or damaged; start a new state file", j.maxLine)
		}
		var se *StateError
		if errors.As(err, &se) {
			return se
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("crawler: reading the state file: %w", err)
		}
		if len(data) == 0 {
			break
		}
		if data[len(data)-1] != '\n' {
			// The last line was cut by a run killed while writing it.
			if line == 1 {
				return bad(1, "the header line is cut short: not an rsconform crawl state file, or a damaged one")
			}
			if err := j.f.Truncate(off); err != nil {
				return fmt.Errorf("crawler: the state file: %w", err)
			}
			j.info.Dropped = true
			break
		}
		if line == 1 {
			if err := checkHeader(data, want); err != nil {
				return bad(1, "%s", err.Error())
			}
		} else {
			// Unmarshal checks the whole line is JSON before it decodes
			// the key: a line cut or garbled is refused here.
			var r recordKey
			if err := json.Unmarshal(data, &r); err != nil {
				return bad(line, "a damaged record (%v): the file was changed or damaged; start a new state file", err)
			}
			switch r.Op {
			case opGet, opRefresh, opRevisit, opResource, opPackage, opLinked, opPause:
				if r.URL == "" && r.Op != opPause {
					return bad(line, "a %s record without a URL", r.Op)
				}
				key := stateKey(r.Op, r.URL)
				if r.stale() {
					// Stale unless a good record of the fetch came first
					// (it is replayed; no later record replaces it).
					if _, good := j.index[key]; !good {
						stale[key] = true
					}
					break
				}
				delete(stale, key)
				j.index[key] = span{off, int64(len(data)), line}
				j.info.Resumed = true
			case opFinished:
				// A run that left stale records (an older rsconform's) did
				// not finish with every fetch answered.
				j.info.Finished = j.info.Finished || len(stale) == 0
				j.info.Resumed = true
			default:
				return bad(line, "a record of unknown kind %q", r.Op)
			}
		}
		off += int64(len(data))
		j.lines = line
	}
	if len(stale) > 0 {
		j.info.Finished = false
	}
	j.end = off
	_, err = j.f.Seek(off, io.SeekStart)
	return err
}

// tooLarge is the refusal of a state file beyond its bound.
func (j *journal) tooLarge() *StateError {
	return &StateError{File: j.path, Msg: fmt.Sprintf("larger than %d bytes, more than a crawl with these options records: "+
		"the file was changed or damaged; start a new state file", j.maxFile)}
}

// checkHeader compares a state file's header with the crawl's.
func checkHeader(data []byte, want stateHeader) error {
	var h stateHeader
	if err := json.Unmarshal(data, &h); err != nil || h.Format != stateFormat {
		return errors.New("not an rsconform crawl state file")
	}
	if h.Version != want.Version {
		return fmt.Errorf("written in state format version %d, and this rsconform reads version %d: start a new state file", h.Version, want.Version)
	}
	if h.Entry != want.Entry {
		return fmt.Errorf("a crawl of %s, not of %s: give another state file", h.Entry, want.Entry)
	}
	var diffs []string
	for k, v := range want.Options {
		if was, ok := h.Options[k]; !ok || was != v {
			if !ok {
				was = "(not recorded)"
			}
			diffs = append(diffs, fmt.Sprintf("--%s was %s, is now %s", k, was, v))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("a crawl with other options, which decide what is fetched (%s): resume with the same options, or start a new state file", strings.Join(diffs, "; "))
	}
	return nil
}

// append writes v as one line at the file's end.
func (j *journal) append(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("crawler: the state file: %w", err)
	}
	data = append(data, '\n')
	if j.end+int64(len(data)) > j.maxFile {
		return &StateError{File: j.path, Msg: fmt.Sprintf("reached its bound of %d bytes: the fetches after it are not recorded, and are made again by a resumed crawl", j.maxFile)}
	}
	n, err := j.f.Write(data)
	j.end += int64(n)
	j.lines++
	if err != nil {
		return fmt.Errorf("crawler: writing the state file: %w", err)
	}
	return nil
}

// has reports whether the journal records op on u.
func (j *journal) has(op, u string) bool {
	if j == nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.index[stateKey(op, u)]
	return ok
}

// lookup returns the record of op on u, or nil. A record it cannot read
// or decode (JSON whose fields are not a record's: no crawl wrote it) is
// fetched again, and the state's Err says so.
func (j *journal) lookup(op, u string) *record {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	sp, ok := j.index[stateKey(op, u)]
	if !ok {
		return nil
	}
	buf := make([]byte, sp.n)
	_, err := j.f.ReadAt(buf, sp.off)
	var r record
	if err == nil {
		err = json.Unmarshal(buf, &r)
	}
	if err != nil {
		if j.info.Err == nil {
			j.info.Err = &StateError{File: j.path, Line: sp.line, Msg: fmt.Sprintf("a damaged record (%v): "+
				"its fetch was made again, and the fetches after it are not recorded; start a new state file", err)}
		}
		return nil
	}
	j.info.Replayed++
	return &r
}

// add appends a record, unless its fetch did not complete (then counted),
// syncing the file every stateSyncEvery records or stateSyncPeriod.
func (j *journal) add(r *record) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if r.incomplete {
		j.info.Incomplete++
		return
	}
	if j.info.Err != nil {
		return
	}
	if _, done := j.index[r.key()]; done {
		return
	}
	// What is written is complete: an error it holds is an
	// answer's or a refusal's, replayed by the next run (recordKey.stale).
	r.Answered = r.Err != ""
	off := j.end
	if err := j.append(r); err != nil {
		j.info.Err = err
		return
	}
	j.index[r.key()] = span{off, j.end - off, j.lines}
	j.info.Recorded++
	j.unsynced++
	if now := j.clock.Now(); j.unsynced >= stateSyncEvery || now.Sub(j.synced) >= stateSyncPeriod {
		j.sync(now)
	}
}

func (j *journal) sync(now time.Time) {
	if err := j.f.Sync(); err != nil && j.info.Err == nil {
		j.info.Err = fmt.Errorf("crawler: syncing the state file: %w", err)
	}
	j.unsynced, j.synced = 0, now
}

// close records that the crawl finished, when it did with every fetch
// complete, syncs and closes the file, and says what was done with it.
func (j *journal) close(finished bool) *StateInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	if finished && !j.info.Finished && j.info.Err == nil && j.info.Incomplete == 0 {
		if err := j.append(&record{Op: opFinished}); err != nil {
			j.info.Err = err
		}
	}
	j.sync(j.clock.Now())
	filelock.Unlock(j.f)
	if err := j.f.Close(); err != nil && j.info.Err == nil {
		j.info.Err = fmt.Errorf("crawler: closing the state file: %w", err)
	}
	info := j.info
	return &info
}

// interrupted reports whether an outcome must not be recorded: the crawl
// was cancelled and the fetch did not complete (err, or a body not read
// to its end). A fetch that completed before the cancellation is kept.
func (c *crawl) interrupted(failed bool) bool {
	return c.ctx.Err() != nil && failed
}

// replay returns the state file's record of op on u, or nil; the requests
// and bytes it recorded count toward this crawl's totals and byte budget.
func (c *crawl) replay(op, u string) *record {
	rec := c.state.lookup(op, u)
	if rec != nil {
		c.f.Count(rec.Requests, rec.Bytes)
	}
	return rec
}

// notFetched is why a task the cancellation stopped has no facts.
const notFetched = "not fetched: the crawl was cancelled"

// fetchOnce is the record of op on t's URL: the state file's, or fetch's,
// which is added to the state file (replayed says which). It is nil, the
// node marked notFetched, when the crawl was cancelled and the fetch did
// not complete (cut says whether a record is of a fetch cut short).
func (c *crawl) fetchOnce(op string, t task, fetch func() *record, cut func(*record) bool) (rec *record, replayed bool) {
	if rec = c.replay(op, t.url); rec != nil {
		return rec, true
	}
	rec = fetch()
	if c.interrupted(cut(rec)) {
		c.update(func() { c.graph.Node(t.url).Skipped = notFetched })
		return nil, false
	}
	c.state.add(rec)
	return rec, false
}

// get fetches u for op, or replays it from the state file. A live fetch of
// a document is recorded once the crawl closes its body.
func (c *crawl) get(op, u string, req sourcehttp.Request) *sourcehttp.Response {
	if rec := c.replay(op, u); rec != nil {
		r := replayed(rec)
		r.Body = &replayBody{r: bytes.NewReader(rec.Body), err: rec.BodyErr}
		return r
	}
	r := c.f.Get(c.ctx, u, req)
	if c.state == nil {
		return r
	}
	rec := recordOf(op, u, r)
	if r.Body == nil || r.Failure() != "" {
		// No answer, or one whose body the crawl does not read: its
		// facts are all there is to keep.
		if !c.interrupted(true) {
			c.state.add(rec)
		}
		return r
	}
	// The bytes received, and whether the transport cut them, are the
	// wire body's (Response.Received and Incomplete know only it, not the
	// recordingBody that wraps it below).
	wire := &sourcehttp.Response{Body: r.Body}
	r.Body = &recordingBody{rc: r.Body, done: func(b *recordingBody) {
		// A body the crawl did not read to its end was either not wanted
		// (a failure status, a limit) or cut by the cancellation.
		if c.interrupted(!b.ended || b.err != nil) {
			return
		}
		rec.Body, rec.Bytes, rec.incomplete = b.buf.Bytes(), wire.Received(), wire.Incomplete()
		if b.err != nil {
			rec.BodyErr = b.err.Error()
		}
		c.state.add(rec)
	}}
	return r
}

// recordOf is the record of a response's HTTP facts, and of whether the
// transport left it incomplete so far (ask once its body is read).
func recordOf(op, u string, r *sourcehttp.Response) *record {
	rec := &record{Op: op, URL: u, Final: r.Final, Status: r.Status, Header: r.Header, Redirects: r.Redirects,
		RetryAfter: r.RetryAfter, MaxWait: r.MaxWait, Requests: r.Requests, Bytes: r.Received(), incomplete: r.Incomplete()}
	if r.Err != nil {
		rec.Err = r.Err.Error()
	}
	return rec
}

// replayed is the response a record describes, without its body.
func replayed(rec *record) *sourcehttp.Response {
	r := &sourcehttp.Response{URL: rec.URL, Final: rec.Final, Status: rec.Status, Header: rec.Header,
		Redirects: rec.Redirects, RetryAfter: rec.RetryAfter, MaxWait: rec.MaxWait, Requests: rec.Requests}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if rec.Err != "" {
		r.Err = errors.New(rec.Err)
	}
	return r
}

// recordingBody keeps what the crawl reads of a body.
type recordingBody struct {
	rc    io.ReadCloser
	buf   bytes.Buffer
	ended bool
	err   error
	once  sync.Once
	done  func(*recordingBody)
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.buf.Write(p[:n])
	if err != nil {
		b.ended = true
		if err != io.EOF {
			b.err = err
		}
	}
	return n, err
}

func (b *recordingBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() { b.done(b) })
	return err
}

// replayBody serves a recorded body, then the error that ended it.
type replayBody struct {
	r   *bytes.Reader
	err string
}

func (b *replayBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.err != "" {
		return n, errors.New(b.err)
	}
	return n, err
}

func (b *replayBody) Close() error { return nil }

// pause waits the --revisit pause, unless an earlier run did.
func (c *crawl) pause(d time.Duration) error {
	if c.state.has(opPause, "") {
		return nil
	}
	pause := c.opts.Pause
	if pause == nil {
		pause = sourcehttp.RealClock{}.Sleep
	}
	if err := pause(c.ctx, d); err != nil {
		return err
	}
	c.state.add(&record{Op: opPause})
	return nil
}

// manifestInput is what was read of a package's manifest.xml: its bytes,
// or why they could not be had.
type manifestInput struct {
	Data     []byte         `json:"data,omitempty"`
	Problem  string         `json:"problem,omitempty"`
	TooLarge *rs.LimitError `json:"tooLarge,omitempty"`
}
