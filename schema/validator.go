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
	_ "embed"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
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

// selfTest checks that validation is as strict as intended: the known-good
// documents pass, and each known-bad one fails. The bad ones fail only if
// rs.xsd was imported (with it missing, lax wildcards accept anything).
func (v *Validator) selfTest() error {
	const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`
	good := head + `<url><loc>http://example.com/res1</loc><rs:md length="1" x:y="z" xmlns:x="urn:x"/></url></urlset>`
	bad := map[string]string{
		"unknown attribute on rs:md": head + `<url><loc>http://example.com/res1</loc><rs:md bogus="1"/></url></urlset>`,
		"rs:ln without href":         head + `<url><loc>http://example.com/res1</loc><rs:ln rel="alternate"/></url></urlset>`,
		"url without loc":            head + `<url><lastmod>2013-01-03T09:00:00Z</lastmod></url></urlset>`,
	}
	errs, err := v.Validate([]byte(good))
	if err != nil {
		return fmt.Errorf("schema: self-test could not run: %w", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("schema: self-test: a valid document fails: line %d: %s", errs[0].Line, errs[0].Message)
	}
	for what, doc := range bad {
		errs, err := v.Validate([]byte(doc))
		if err != nil {
			return fmt.Errorf("schema: self-test could not run: %w", err)
		}
		if len(errs) == 0 {
			return fmt.Errorf("schema: self-test: a document with %s passes; the embedded XSDs were not fully loaded", what)
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

// Validate parses data (an uncompressed document, up to 2 GB; the caller
// enforces the 50 MB Sitemap limit) and validates it against the schemas.
// Problems found in the document are returned as []Error, nil when it is
// valid: parser errors have Parse set (a document that is not well-formed,
// or has a DOCTYPE, is not validated; namespace errors such as an unbound
// prefix are reported and validation still runs), then schema errors in
// document order, at most MaxErrors plus one Error saying how many more were
// omitted. The error return is for a validation that could not run at all.
//
// Validate is safe for concurrent use. It validates while it parses, in one
// streaming pass, without building a tree: its memory stays close to the
// size of the document.
func (v *Validator) Validate(data []byte) ([]Error, error) {
	if v == nil || v.schema == nil {
		return nil, errors.New("schema: validator not initialised")
	}
	if len(data) > math.MaxInt32 {
		return nil, fmt.Errorf("schema: document of %d bytes is too large for libxml2", len(data))
	}
	var empty [1]byte
	ptr := &empty[0]
	if len(data) > 0 {
		ptr = &data[0]
	}
	var res C.rsc_result
	var wellformed C.int
	rc := C.rsc_check(C.uintptr_t(v.schema.Pointer()), (*C.char)(unsafe.Pointer(ptr)),
		C.int(len(data)), C.int(MaxErrors), &res, &wellformed, nil)
	defer C.rsc_result_free(&res)
	if rc != 0 {
		return nil, errors.New("schema: libxml2 could not validate the document (out of memory or internal error)")
	}
	return convert(&res), nil
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

// Read is the XML front end: validate, crawl and sync read every
// ResourceSync document through it, so that whether a document is
// well-formed, and the model built from it, never depend on what is checked
// afterwards (which rules are selected, which command runs).
//
// It refuses what Sitemap documents may not be before any parser sees it
// (rs.CheckEncoding, a DOCTYPE), then parses data with libxml2 in one
// streaming pass (no tree: memory stays close to the input's size) and
// builds the model from that pass; with validate set, the XSD validation
// runs in the same pass and its findings (capped as for Validate) are
// returned in document order. A document that is not well-formed, in the
// sense of XML or of Namespaces in XML (an unbound prefix), gives a
// *rs.SyntaxError, with the pure-Go parser's located message when it also
// refuses the document (so a document reads the same whatever the parser)
// and libxml2's otherwise. Any other error means the pass could not run.
// Safe for concurrent use.
func (v *Validator) Read(data []byte, validate bool) (*rs.Document, []Error, error) {
	return v.ReadWith(data, ReadOptions{Validate: validate})
}

// ReadOptions say how Read reads a document.
type ReadOptions struct {
	// Validate runs the XSD validation in the same pass.
	Validate bool
	// OnEntries, when set, is called on the document being built each
	// time Window more of its entries are complete, while libxml2 is still
	// reading the rest (see resourcesync.Builder.OnEntries): the caller
	// checks them and may drop them. It runs on one goroutine, never
	// concurrently with itself. When the document turns out not to be
	// well-formed, what it was shown is to be discarded.
	OnEntries func(*rs.Document)
	Window    int
}

// ReadWith is Read with options.
func (v *Validator) ReadWith(data []byte, opts ReadOptions) (*rs.Document, []Error, error) {
	if v == nil || v.schema == nil {
		return nil, nil, errors.New("schema: validator not initialised")
	}
	if se := rs.CheckEncoding(data); se != nil {
		return nil, nil, se
	}
	if rs.HasDoctype(data) {
		// Never handed to libxml2; the Go parser refuses it with its position.
		return nil, nil, goSyntax(data, &rs.SyntaxError{Pos: rs.Pos{Line: 1, Column: 1}, Msg: "DOCTYPE is not allowed"})
	}
	var schema uintptr
	if opts.Validate {
		schema = uintptr(v.schema.Pointer())
	}
	doc, wellformed, errs, err := v.pass(data, schema, opts)
	if err != nil {
		return nil, nil, err
	}
	if !wellformed {
		se := &rs.SyntaxError{Pos: rs.Pos{Line: 1, Column: 1}, Msg: "not well-formed XML"}
		if len(errs) > 0 {
			se = &rs.SyntaxError{Pos: rs.Pos{Line: errs[0].Line, Column: errs[0].Column}, Msg: errs[0].Message}
		}
		return nil, nil, goSyntax(data, se)
	}
	if len(errs) > 0 && errs[0].Parse {
		// Well-formed XML, but not namespace-well-formed: libxml2 finishes
		// the pass (so the model exists) and says so first.
		return nil, nil, &rs.SyntaxError{Pos: rs.Pos{Line: errs[0].Line, Column: errs[0].Column}, Msg: errs[0].Message}
	}
	return doc, errs, nil
}

// goSyntax is the pure-Go parser's error on data when it refuses it, else def.
func goSyntax(data []byte, def *rs.SyntaxError) *rs.SyntaxError {
	var se *rs.SyntaxError
	if _, err := rs.ParseBytes(data); errors.As(err, &se) {
		return se
	}
	return def
}

// pass runs one libxml2 pass over data, validating against schema when it
// is not 0, and builds the model from the events it hands over. doc is nil
// when the document is not well-formed; errs holds the findings.
func (v *Validator) pass(data []byte, schema uintptr, opts ReadOptions) (doc *rs.Document, wellformed bool, errs []Error, err error) {
	if len(data) > math.MaxInt32-1 {
		return nil, false, nil, fmt.Errorf("schema: document of %d bytes is too large for libxml2", len(data))
	}
	var empty [1]byte
	ptr := &empty[0]
	if len(data) > 0 {
		ptr = &data[0]
	}
	job := C.rsc_job_new()
	if job == nil {
		return nil, false, nil, errors.New("schema: out of memory")
	}
	defer C.rsc_job_free(job)
	// libxml2 parses (and validates) on one thread while this one builds
	// the model from the events it hands over, chunk by chunk.
	var res C.rsc_result
	var wf C.int
	var rc C.int
	passed := make(chan struct{})
	go func() {
		defer close(passed)
		rc = C.rsc_check(C.uintptr_t(schema), (*C.char)(unsafe.Pointer(ptr)), C.int(len(data)),
			C.int(MaxErrors), &res, &wf, job)
	}()
	dec := newDecoder(data)
	dec.b.OnEntries, dec.b.Window = opts.OnEntries, opts.Window
	var ferr error
	for {
		var chunk *C.uchar
		var n C.size_t
		if C.rsc_job_next(job, &chunk, &n) == 0 {
			break
		}
		buf := C.GoBytes(unsafe.Pointer(chunk), C.int(n))
		C.free(unsafe.Pointer(chunk))
		if ferr == nil {
			ferr = dec.feed(buf)
		}
	}
	<-passed
	errs = convert(&res)
	C.rsc_result_free(&res)
	if rc != 0 {
		return nil, false, nil, errors.New("schema: libxml2 could not parse the document (out of memory or internal error)")
	}
	if wf == 0 {
		return nil, false, errs, nil
	}
	if ferr != nil {
		return nil, false, nil, ferr
	}
	if doc, err = dec.document(); err != nil {
		return nil, false, nil, err
	}
	return doc, true, errs, nil
}
