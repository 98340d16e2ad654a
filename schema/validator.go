// Package schema validates ResourceSync documents against rsconform's own
// XML Schemas (sitemap.xsd and rs.xsd, embedded in the binary) with libxml2,
// and reports each problem with its line.
//
// libxml2 is used safely: the schemas are compiled once per process; a
// process-wide entity loader serves the embedded schemas and refuses every
// other URL, so neither a schema nor a document can make libxml2 read a file
// or fetch a URL; documents are parsed without entity substitution, DTD
// loading or XInclude, and any DOCTYPE is refused; errors are collected in C
// with their lines, capped in number and length.
package schema

/*
#cgo pkg-config: libxml-2.0
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lestrrat-go/libxml2/xsd"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// The embedded schemas and the private URIs they are served under. Only
// these URIs resolve; sitemap.xsd imports rs.xsd relative to its own URI.
const (
	sitemapURI = "rsconform-embedded:///sitemap.xsd"
	rsURI      = "rsconform-embedded:///rs.xsd"
)

//go:embed sitemap.xsd
var sitemapXSD []byte

//go:embed rs.xsd
var rsXSD []byte

// xmlErrWarning is libxml2's XML_ERR_WARNING level.
const xmlErrWarning = 1

// MaxErrors is the number of findings kept per document; one more Error
// says how many were left out.
const MaxErrors = 1000

// Validator validates documents against the embedded schemas. It is safe
// for concurrent use: the compiled schema is shared read-only and every call
// has its own parser and validation contexts.
type Validator struct {
	schema *xsd.Schema
}

var (
	once      sync.Once
	shared    *Validator
	sharedErr error
)

// New returns the process-wide Validator, loading the embedded schemas and
// running a self-test the first time. Later calls return the same Validator
// and error: the schemas are never compiled twice (xsd.Parse leaks memory
// on every call).
func New() (*Validator, error) {
	once.Do(func() { shared, sharedErr = load() })
	return shared, sharedErr
}

func load() (*Validator, error) {
	// libxml2's error handlers are per thread: keep the set-up on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	C.rsc_init()
	for _, d := range []struct {
		uri  string
		data []byte
	}{{sitemapURI, sitemapXSD}, {rsURI, rsXSD}} {
		// Kept for the life of the process: the entity loader serves them.
		if C.rsc_register(C.CString(d.uri), C.CString(string(d.data))) != 0 {
			return nil, errors.New("schema: cannot register the embedded schemas")
		}
	}

	C.rsc_capture_start()
	s, err := xsd.Parse(sitemapXSD, xsd.WithURI(sitemapURI))
	var text *C.char
	n := C.rsc_capture_stop(&text)
	diag := strings.TrimSpace(tidy.Replace(C.GoString(text)))
	C.free(unsafe.Pointer(text))
	if err != nil {
		return nil, fmt.Errorf("schema: cannot compile the embedded XSDs: %w (libxml2: %s)", err, diag)
	}
	if n > 0 {
		// A warning here is typically a skipped import, which would make
		// validation silently lax. The schema is not freed: a failed start
		// ends the process anyway.
		return nil, fmt.Errorf("schema: the embedded XSDs compiled with %d diagnostics: %s", n, diag)
	}
	v := &Validator{schema: s}
	if err := v.selfTest(); err != nil {
		return nil, err
	}
	return v, nil
}

// selfTest checks that validation is as strict as intended: in one
// document (one pass), the known-good entry passes and each known-bad one
// fails, on its own line. The bad ones fail only if rs.xsd was imported
// (with it missing, lax wildcards accept anything).
func (v *Validator) selfTest() error {
	errs, err := v.Validate([]byte(selfTestDoc))
	if err != nil {
		return fmt.Errorf("schema: self-test could not run: %w", err)
	}
	return selfTestVerdict(errs)
}

// selfTestDoc has a valid entry on line 5, then one entry with each defect
// of selfTestBad on the line it names.
const selfTestDoc = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>http://example.com/res1</loc><rs:md length="1" x:y="z" xmlns:x="urn:x"/></url>
<url><loc>http://example.com/res1</loc><rs:md bogus="1"/></url>
<url><loc>http://example.com/res1</loc><rs:ln rel="alternate"/></url>
<url><lastmod>2013-01-03T09:00:00Z</lastmod></url>
</urlset>`

// selfTestBad is the defect on each line of selfTestDoc after the valid
// entry's.
var selfTestBad = []struct {
	line int
	what string
}{{6, "unknown attribute on rs:md"}, {7, "rs:ln without href"}, {8, "url without loc"}}

// badLine says whether a defect of selfTestBad is on line.
func badLine(line int) bool {
	for _, b := range selfTestBad {
		if b.line == line {
			return true
		}
	}
	return false
}

// selfTestVerdict judges what validating selfTestDoc found: nothing but
// one error or more on each line of selfTestBad.
func selfTestVerdict(errs []Error) error {
	for _, e := range errs {
		if !badLine(e.Line) {
			return fmt.Errorf("schema: self-test: a valid document fails: line %d: %s", e.Line, e.Message)
		}
	}
	for _, b := range selfTestBad {
		if !slices.ContainsFunc(errs, func(e Error) bool { return e.Line == b.line }) {
			return fmt.Errorf("schema: self-test: a document with %s passes; the embedded XSDs were not fully loaded", b.what)
		}
	}
	return nil
}

// tidy makes libxml2's {namespace}name notation readable and puts each
// message on one line (a few parser messages span two).
var tidy = strings.NewReplacer(
	"{http://www.sitemaps.org/schemas/sitemap/0.9}", "",
	"{http://www.openarchives.org/rs/terms/}", "rs:",
	"{http://www.w3.org/2001/XMLSchema-instance}", "xsi:",
	"{http://www.w3.org/XML/1998/namespace}", "xml:",
	"\r\n", " ",
	"\n", " ",
)

// Validate parses data (an uncompressed document; the caller enforces the
// 50 MB Sitemap limit) and validates it against the schemas.
// Problems found in the document are returned as []Error, nil when it is
// valid: parser errors have Parse set (a document that is not well-formed,
// or has a DOCTYPE, is not validated; namespace errors such as an unbound
// prefix are reported and validation still runs), then schema errors in
// document order, at most MaxErrors plus one Error saying how many more were
// omitted. The error return is for a validation that could not run at all.
//
// Validate is safe for concurrent use. It runs the same streaming pass as
// ReadFrom, without building the model.
func (v *Validator) Validate(data []byte) ([]Error, error) {
	if v == nil || v.schema == nil {
		return nil, errors.New("schema: validator not initialised")
	}
	out := v.pass(context.Background(), data, nil, uintptr(v.schema.Pointer()), nil)
	if out.err != nil {
		return nil, out.err
	}
	return out.errs, nil
}

// convert copies the findings of a C result into Go, nil when there are none.
func convert(res *C.rsc_result) []Error {
	n := int(res.n)
	out := make([]Error, 0, n+1)
	if n > 0 {
		for _, e := range unsafe.Slice(res.errors, n) {
			msg := tidy.Replace(C.GoString(e.message))
			element := C.GoString(e.element)
			if element == "" {
				element = elementOf(msg)
			}
			out = append(out, Error{
				Line:    int(e.line),
				Column:  int(e.column),
				Element: element,
				Message: msg,
				Parse:   e.parse != 0,
				Warning: e.level == xmlErrWarning,
			})
		}
	}
	// Parser findings first (a namespace error is found at the end of the
	// streaming pass, after the schema findings it caused).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Parse && !out[j].Parse })
	if res.omitted > 0 {
		last := Error{Message: fmt.Sprintf("%d more errors omitted (only the first %d are reported)", int64(res.omitted), n)}
		if n > 0 {
			last.Parse = out[n-1].Parse
		}
		out = append(out, last)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// elementOf is the local name of the element a libxml2 message is about:
// "Element 'rs:md', attribute 'size': ..." gives "md".
func elementOf(msg string) string {
	rest, ok := strings.CutPrefix(msg, "Element '")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "'")
	if !ok {
		return ""
	}
	if i := strings.LastIndexAny(name, "}:"); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// chunkSize is how much input a pass is pushed at a time (parsed in that
// call: the pass holds no input of its own beyond libxml2's buffer and the
// start tag being read). 128 KiB once halved the cgo calls (a directory of
// 16 lists took 1.95 s instead of 2.05 under load, when each document's
// strings were garbage for the GC); with the entries' slabs recycled, 64
// KiB (and windows of 128 entries) took 0.8 MB off the peak anonymous
// memory of a 50,000-entry list (13.1 MB against 13.9, medians of 6) and
// no time: a directory of 8 took 1.62 s against 1.91 (medians of 3 runs
// alternating at SCHED_FIFO priority, which keeps the other users of a
// shared machine off its CPUs). libxml2's own input buffer and the pass's
// window grow to a few chunks.
const chunkSize = 64 * 1024

// chunkQueue is how many buffers of events the reader may hand over ahead
// of the builder. The reader is the critical path (libxml2 parses in it):
// each time it waits on a full queue, it waits again to be scheduled. 16
// instead of 4, with the rules on the builder's goroutine (see
// rules/engine's stream), took a 50,000-entry list from 0.34 to 0.31 s
// (medians of 25 alternating runs, idle machine); 16 alone saved 0.01 s for
// 0.25-0.65 MB more peak anonymous memory (a buffer is about chunkSize, and
// the queue fills whenever the Go side is behind). With the reader on its
// own thread (see pass), 8 takes as long as 16 (0.32 s, medians of 41) and
// 0.25 MB less (12.59 against 12.84 MB, medians of 9); 4, 0.36 s against
// 0.34.
const chunkQueue = 8

// minPiece is the least a push holds but the last: what the window of a
// not-well-formed document (hinted) reaches back at least.
const minPiece = 8 * 1024

// headSize is how much of a document ReadFrom reads before libxml2 sees
// any of it: what the checks before any parser look at (encoding, DOCTYPE).
const headSize = 64 * 1024

// ReadOptions says how ReadFrom reads a document.
type ReadOptions struct {
	// Validate runs the XSD validation in the same pass.
	Validate bool
	// OnEntries, when set, is called on the document being built each
	// time Window more of its entries are complete, while libxml2 is still
	// reading the rest (see resourcesync.Builder.OnEntries): the caller
	// checks them and may drop them. It runs on one goroutine, never
	// concurrently with itself. When the document turns out not to be
	// well-formed, or cannot be read to its end, what it was shown is to
	// be discarded.
	OnEntries func(*rs.Document)
	Window    int
	// Pool, with OnEntries, is where the caller puts back the entries it
	// is done with, for the next ones to be built in (see
	// resourcesync.Builder.Pool).
	Pool *rs.EntryPool
	// Inline reads the document on the calling goroutine: it reads a
	// piece, has libxml2 parse it, then builds the model from what it
	// completed, in turn, instead of on three goroutines working at once
	// (see pass). It is for a caller that keeps every CPU busy with
	// documents of its own, where those goroutines only wake one another
	// (see yieldEvery). ctx is checked between reads, but a Read that
	// blocks holds a cancel back until it returns: set it only for an r
	// that does not block (a file, memory).
	Inline bool
}

// ReadError reports that reading a document failed after Offset bytes, on
// line Line. Err is the reader's error (a *rs.LimitError when the document
// exceeds the size limit the reader enforces, see rs.DocumentReader).
type ReadError struct {
	Offset int64
	Line   int
	Err    error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("after %d bytes (line %d): %v", e.Offset, e.Line, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

func readError(data []byte, fed int64, lines int, err error) *ReadError {
	return &ReadError{Offset: fed + int64(len(data)), Line: lines + bytes.Count(data, newline) + 1, Err: err}
}

var newline = []byte{'\n'}

// lineCounter counts the newlines written to it.
type lineCounter int

func (c *lineCounter) Write(p []byte) (int, error) {
	*c += lineCounter(bytes.Count(p, newline))
	return len(p), nil
}

// ReadFrom is the XML front end: validate, crawl and sync read every
// ResourceSync document through it (or Read, the same for a document in
// memory), so that whether a document is well-formed, and the model built
// from it, never depend on what is checked afterwards (which rules are
// selected, which command runs).
//
// r is the document, uncompressed (rs.DocumentReader decompresses and
// enforces the size limit). ReadFrom refuses what Sitemap documents may
// not be before any parser sees it (rs.CheckEncoding, a DOCTYPE, looked for
// in the first 64 KiB), then streams r into libxml2 in chunks, in one pass
// (no tree, no whole copy of the document: memory does not grow with it)
// and builds the model from that pass; with opts.Validate, the XSD
// validation runs in the same pass and its findings (capped as for
// Validate) are returned in document order.
//
// The input is read to its end even when the document is refused early,
// so that a read error (*ReadError, wrapping a *rs.LimitError for a
// document over the size limit) comes first, as when the document is read
// whole. An element with more than rs.MaxAttributes attributes is refused
// before libxml2 sees it (libxml2 takes quadratic time over them), with a
// *rs.AttrLimitError saying where. A document that is not well-formed, in
// the sense of XML or of Namespaces in XML (an unbound prefix), gives a
// *rs.SyntaxError with libxml2's message at libxml2's position (a DOCTYPE,
// rs.DoctypeError's): every document is worded by the one parser that
// reads it, whatever its size or where it comes from. When ctx is done,
// ReadFrom stops the pass and returns ctx's error without waiting for a
// Read in progress (which the caller ends by closing r), unless
// opts.Inline. Any other error means the pass could not run. Safe for
// concurrent use.
func (v *Validator) ReadFrom(ctx context.Context, r io.Reader, opts ReadOptions) (*rs.Document, []Error, error) {
	if v == nil || v.schema == nil {
		return nil, nil, errors.New("schema: validator not initialised")
	}
	head, err := readHead(ctx, r)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, nil, err
	}
	whole := err == io.EOF || err == io.ErrUnexpectedEOF
	if err != nil && !whole {
		return nil, nil, readError(head, 0, 0, err)
	}
	if whole || len(bytes.TrimSpace(head)) > 0 {
		if se := rs.CheckEncoding(head); se != nil {
			if !whole {
				if n, err := io.Copy(io.Discard, r); err != nil {
					return nil, nil, &ReadError{Offset: int64(len(head)) + n, Line: 1, Err: err}
				}
			}
			return nil, nil, se
		}
	}
	if se := rs.DoctypeError(head); se != nil {
		// Never handed to libxml2; read to its end for a read error to
		// come first, as for the encoding.
		if !whole {
			var lines lineCounter
			if n, err := io.Copy(&lines, r); err != nil {
				return nil, nil, &ReadError{Offset: int64(len(head)) + n, Line: bytes.Count(head, newline) + int(lines) + 1, Err: err}
			}
		}
		return nil, nil, se
	}
	var schema uintptr
	if opts.Validate {
		schema = uintptr(v.schema.Pointer())
	}
	out := v.pass(ctx, head, r, schema, &opts)
	if out.err != nil {
		return nil, nil, out.err
	}
	errs := out.errs
	if !out.wellformed {
		se := &rs.SyntaxError{Pos: rs.Pos{Line: 1, Column: 1}, Msg: "not well-formed XML"}
		if len(errs) > 0 {
			se = &rs.SyntaxError{Pos: rs.Pos{Line: errs[0].Line, Column: errs[0].Column}, Msg: errs[0].Message}
		}
		return nil, nil, se
	}
	if len(errs) > 0 && errs[0].Parse {
		// Well-formed XML, but not namespace-well-formed: libxml2 finishes
		// the pass (so the model exists) and says so first.
		return nil, nil, &rs.SyntaxError{Pos: rs.Pos{Line: errs[0].Line, Column: errs[0].Column}, Msg: errs[0].Message}
	}
	return out.doc, errs, nil
}

// readHead reads the first headSize bytes of r, or all of it when it is
// shorter (with io.EOF or io.ErrUnexpectedEOF, as io.ReadFull says). It
// returns ctx's error as soon as ctx is done, without waiting for a Read
// in progress: standard input may block before a program writes it. The
// Read goes on on its own goroutine until the caller ends it (closing a
// file or a body does; the process ending does for standard input).
func readHead(ctx context.Context, r io.Reader) ([]byte, error) {
	type read struct {
		head []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		head := make([]byte, headSize)
		n, err := io.ReadFull(r, head)
		done <- read{head[:n], err}
	}()
	select {
	case h := <-done:
		return h.head, h.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Read is ReadFrom for a document held in memory (uncompressed; the caller
// enforces the size limit).
func (v *Validator) Read(data []byte, validate bool) (*rs.Document, []Error, error) {
	return v.ReadWith(data, ReadOptions{Validate: validate})
}

// ReadWith is Read with options.
func (v *Validator) ReadWith(data []byte, opts ReadOptions) (*rs.Document, []Error, error) {
	return v.ReadFrom(context.Background(), bytes.NewReader(data), opts)
}

// passOut is what a pass found: the model (events wanted, well-formed
// document), the findings, or why the pass did not decide (err).
type passOut struct {
	doc        *rs.Document
	wellformed bool
	errs       []Error
	err        error
}

// feedOut is what the reader of a pass read: n bytes, holding lines
// newlines, then err (nil at the end of the input); and how the pass ended
// (rsc_pass_finish's rc, wellformed and truncated).
type feedOut struct {
	n     int64
	lines int
	err   error
	// refused is the element refused before libxml2 saw it (see
	// rs.MaxAttributes); libxml2 read no further.
	refused *rs.AttrLimitError
	rc      C.int
	wf      C.int
	trunc   C.int
	// last is the last two pieces pushed, for the hints of a document
	// that is not well-formed (hinted).
	last window
}

// events is a buffer of element events a pass handed over (C memory).
type events struct {
	p        *C.uchar
	n, limit C.size_t
}

// pass runs one libxml2 pass over the document head then rest (nil: head
// is all of it), validating against schema when it is not 0, and with
// opts (nil: only the findings are wanted) builds the model from the
// element events it hands over, calling opts.OnEntries on the way.
//
// Unless opts.Inline, three goroutines work at once: a scanner reads the
// input ahead (see scan); a reader pushes it into the pass, which parses
// (and validates) each chunk in that call, then sends the events the chunk
// completed over a channel; this goroutine builds the model from them and
// gives the buffers back. The channels are bounded, so each waits for the
// slower one (in Go: no thread waits in C) and memory stays flat. Inline,
// this goroutine does the three in turn. C never calls into Go.
func (v *Validator) pass(ctx context.Context, head []byte, rest io.Reader, schema uintptr, opts *ReadOptions) passOut {
	wanted := opts != nil
	var ev C.int
	if wanted {
		ev = 1
	}
	ps := C.rsc_pass_new(ev, C.uintptr_t(schema), C.int(MaxErrors))
	if ps == nil {
		return passOut{err: errors.New("schema: out of memory")}
	}
	// The pass is freed by the last of this call and the reader to be done
	// with it: after a cancel, the reader may still be in a Read.
	var refs atomic.Int32
	refs.Store(2)
	release := func() {
		if refs.Add(-1) == 0 {
			C.rsc_pass_free(ps)
		}
	}
	defer release()
	dec := newDecoder()
	if wanted {
		dec.streamed(opts.OnEntries, opts.Window, opts.Pool)
	}
	var ferr error
	// decode builds the model from a buffer of events and gives it back.
	decode := func(c events) {
		if ferr == nil && c.n > 0 {
			ferr = dec.feed(unsafe.Slice((*byte)(unsafe.Pointer(c.p)), int(c.n)))
		}
		C.rsc_pass_recycle(ps, c.p, c.limit)
	}
	var f feedOut
	if opts != nil && opts.Inline {
		// Not locked to its thread (see below): the rules run in
		// coroutines (iter.Pull) the caller made, which resume only on a
		// goroutine locked as it was then; one that never waits stays on
		// its thread anyway.
		release()
		f = feed(ctx, ps, head, rest, false, func(c events) bool {
			decode(c)
			return ctx.Err() == nil
		})
	} else {
		chunks := make(chan events, chunkQueue)
		fed := make(chan feedOut, 1)
		go func() {
			// The reader keeps its thread: libxml2 then parses the whole
			// document on one thread (one malloc arena, rather than one per
			// thread the cgo calls hop between). A 50,000-entry list took 0.29
			// s instead of 0.31 (medians of 25 alternating runs; 0.32 against
			// 0.34 in 41 others) and 12.63 MB of peak anonymous memory instead
			// of 13.58 (medians of 9); a directory of 8, 2.30 s instead of 2.41.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer release()
			defer close(chunks)
			fed <- feed(ctx, ps, head, rest, true, func(c events) bool {
				select {
				case chunks <- c:
					return true
				case <-ctx.Done():
					C.rsc_pass_recycle(ps, c.p, c.limit)
					return false
				}
			})
		}()
		for done := false; !done; {
			select {
			case c, ok := <-chunks:
				if !ok {
					done = true
					break
				}
				decode(c)
			case <-ctx.Done():
				// Without waiting for a Read in progress: the reader frees
				// the pass, and what is left in chunks with it.
				return passOut{err: ctx.Err()}
			}
		}
		f = <-fed // the reader is done with the pass
	}
	var res C.rsc_result
	C.rsc_pass_result(ps, &res)
	errs := convert(&res)
	C.rsc_result_free(&res)
	if err := ctx.Err(); err != nil {
		return passOut{err: err}
	}
	if f.err != nil {
		return passOut{err: &ReadError{Offset: f.n, Line: f.lines + 1, Err: f.err}}
	}
	if f.refused != nil {
		return passOut{err: f.refused}
	}
	if f.rc != 0 {
		return passOut{err: errors.New("schema: libxml2 could not parse the document (out of memory or internal error)")}
	}
	if f.wf == 0 {
		if f.trunc != 0 && len(errs) > 0 && errs[0].Parse {
			errs[0].Message = rs.TruncatedMessage // one wording, whichever parser read it
		} else if len(errs) > 0 && errs[0].Parse {
			errs[0].Message = hinted(errs[0], f.last)
		}
		return passOut{errs: errs}
	}
	if !wanted {
		return passOut{wellformed: true, errs: errs}
	}
	if ferr != nil {
		return passOut{err: ferr}
	}
	doc, err := dec.document()
	if err != nil {
		return passOut{err: err}
	}
	return passOut{doc: doc, wellformed: true, errs: errs}
}

// feed pushes head, then what rest holds, into the pass in the pieces a
// scanner (scan) reads and looks at, and hands the events each push
// completed to deliver (false: ctx is done), the last ones once the pass
// has finished. With ahead, the scanner runs on its own goroutine, ahead
// of this one; otherwise this goroutine scans, pushes and delivers in turn
// (ReadOptions.Inline). Once the pass reads no more (it stopped early),
// rest is still read to its end, for a read error or the size limit, as
// when a document is read whole. Reading stops when ctx is done.
func feed(ctx context.Context, ps *C.rsc_pass, head []byte, rest io.Reader, ahead bool, deliver func(events) bool) (out feedOut) {
	feeding := true
	// send hands over the events completed so far; false when ctx is done.
	send := func() bool {
		for {
			var c events
			if C.rsc_pass_take(ps, &c.p, &c.n, &c.limit) == 0 {
				return true
			}
			if !deliver(c) {
				return false
			}
		}
	}
	free := make(chan int, scanBuffers)
	for i := range scanBuffers {
		free <- i
	}
	var stopped atomic.Bool
	var sc scanOut
	giveBack := func(p scanned) {
		if p.buf >= 0 {
			free <- p.buf
		}
	}
	var last [2]scanned // the pieces of out.last, held
	last[0].buf, last[1].buf = -1, -1
	push := func(p scanned) {
		if !feeding {
			giveBack(p)
			return
		}
		if p.refused != nil {
			out.refused, feeding = p.refused, false
			stopped.Store(true)
			giveBack(p)
			return
		}
		giveBack(last[0])
		last = [2]scanned{last[1], p}
		out.last = window{prev: out.last.cur, cur: piece{data: p.data, line: p.line, col: p.col}}
		// p.data is Go memory the pass reads during the call only.
		if C.rsc_pass_push(ps, (*C.char)(unsafe.Pointer(&p.data[0])), C.size_t(len(p.data))) != 0 {
			feeding = false
		}
		if !send() {
			feeding = false
		}
		if !feeding {
			stopped.Store(true)
		}
	}
	if ahead {
		// The scanner reads the input and looks at every piece before
		// libxml2 parses it, on its own goroutine, ahead of this one (see
		// scan).
		pieces := make(chan scanned, scanBuffers-3)
		go func() {
			defer close(pieces)
			scan(ctx, head, rest, func(p scanned) { pieces <- p }, free, &stopped, &sc)
		}()
		for p := range pieces {
			push(p)
		}
	} else {
		n := 0
		scan(ctx, head, rest, func(p scanned) {
			push(p)
			if n++; n%yieldEvery == 0 {
				runtime.Gosched()
			}
		}, free, &stopped, &sc)
	}
	out.n, out.lines, out.err = sc.n, sc.lines, sc.err
	if out.err == nil {
		out.err = ctx.Err()
	}
	var failed C.int
	if out.err != nil || out.refused != nil {
		failed = 1 // nothing is decided
	}
	out.rc = C.rsc_pass_finish(ps, failed, &out.wf, &out.trunc)
	send()
	return out
}

// yieldEvery is how many pieces an inline pass (ReadOptions.Inline) pushes
// between two yields of its goroutine (runtime.Gosched, a few
// microseconds). Such a goroutine never waits, and the runtime's monitor
// takes a goroutine that has run 10 ms without a pause for a hog: it sends
// it a signal, and when the goroutine is in libxml2 at the time (most of
// it), hands its processor to another thread and goes back to watching
// every 20 µs. Yielding first, every 4 pieces (256 KiB, 2-3 ms of work),
// the directory of 8 lists made 1,400-1,550 context switches instead of
// 3,300-4,000 (nanosleep calls of the monitor: 3,247 without it, strace),
// and took 1.43 s of wall (median of 6 alternating runs) against 1.48 s
// without yielding and 1.55 s every 16 pieces.
const yieldEvery = 4

// scanBuffers is how many buffers of chunkSize the scanner reads into:
// two held by the pusher for its window (out.last), one being read, the
// rest in the channel, read ahead. With one read ahead (4 buffers), the
// pusher waited for the scanner 1-68 ms a list (trace, 6 runs at load
// 7-8: the scanner is woken at every buffer given back, late when the
// cores are busy); with two, 0.5-42 ms (median 3 against 8), for a peak
// RssAnon within the noise (12.3-12.7 MB against 12.5).
const scanBuffers = 5

// scanned is a piece of the input the scanner looked at: data, whose
// first byte is at line and col, held in the scanner's buffer buf (-1: in
// head); or the element the attribute count refused in it (then nothing
// of it is to be pushed).
type scanned struct {
	data      []byte
	line, col int
	buf       int
	refused   *rs.AttrLimitError
}

// scanOut is what the scanner read: n bytes, holding lines newlines, then
// err (nil at the end of the input).
type scanOut struct {
	n     int64
	lines int
	err   error
}

// scan reads head, then what rest holds, into the buffers free gives it,
// and hands it to emit in pieces of at most chunkSize, each looked at by
// the attribute count first: an element with too many attributes would
// take libxml2 quadratic time. The pusher parses each piece in libxml2 and
// gives its buffer back once out of its window. Unless the pass is inline,
// scan runs on its own goroutine, ahead of the pusher (emit sends to a
// channel): the reading (its system calls), the count and the lines are
// done on the other core while libxml2 runs; the pusher of a 50,000-entry
// Resource List ran 2.1 % more instructions with them (callgrind). Once
// the count refuses an element, or stopped says the pass reads no more,
// the rest is read to its end for a read error or the size limit and only
// its lines are counted, as when a document is read whole. It stops
// reading when ctx is done, and has written out when it returns.
func scan(ctx context.Context, head []byte, rest io.Reader, emit func(scanned), free chan int, stopped *atomic.Bool, out *scanOut) {
	attrs := rs.AttrCounter{Limit: rs.MaxAttributes}
	sending := true
	line, col := 1, 1 // where the next piece starts
	// split sends b, held in buf; false when buf was not sent (it is
	// still the scanner's).
	split := func(b []byte, buf int) (sent bool) {
		out.n += int64(len(b))
		for sending && len(b) > 0 && !stopped.Load() {
			k := min(len(b), chunkSize)
			p := scanned{data: b[:k], line: line, col: col, buf: buf}
			sent = true
			if err := attrs.Scan(p.data); err != nil {
				p.refused, sending = err, false
				emit(p)
				break
			}
			was := line
			line, col = next(line, col, p.data)
			out.lines += line - was
			emit(p)
			b = b[k:]
			buf = -1 // the rest of the buffer goes with the first piece
		}
		out.lines += bytes.Count(b, newline) // what was not sent
		return sent
	}
	split(head, -1)
	if rest == nil {
		return
	}
	mine := -1 // a buffer of the scanner's, not sent
	var bufs [scanBuffers][]byte
	for {
		if err := ctx.Err(); err != nil {
			out.err = err
			return
		}
		if mine < 0 {
			mine = <-free
		}
		if bufs[mine] == nil {
			bufs[mine] = make([]byte, chunkSize)
		}
		// At least minPiece bytes a push (but at the end): a reader of
		// small reads (a network body) still leaves the window
		// reaching back that far.
		k, err := fill(ctx, rest, bufs[mine])
		if split(bufs[mine][:k], mine) {
			mine = -1 // the pusher gives it back
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			out.err = err
			return
		}
	}
}

// fill reads into buf until it holds minPiece bytes, r ends or fails, or
// ctx is done (checked between reads, as the caller does).
func fill(ctx context.Context, r io.Reader, buf []byte) (k int, err error) {
	for k < minPiece && err == nil && ctx.Err() == nil {
		var n int
		n, err = r.Read(buf[k:])
		k += n
	}
	return k, err
}

// livePasses is the number of C passes not yet freed (for the tests).
func livePasses() int64 { return int64(C.rsc_pass_live()) }
