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

// Check parses data once with libxml2, builds its ResourceSync model with
// resourcesync.Builder from that parse, and validates it against the
// schemas; model building and validation run concurrently. doc is nil when
// the document is not well-formed (errs then holds the parser's findings,
// with Parse set). Findings are capped as for Validate. Safe for concurrent use.
func (v *Validator) Check(data []byte) (doc *rs.Document, errs []Error, err error) {
	doc, perrs, wait, err := v.Start(data)
	if err != nil || wait == nil {
		return doc, perrs, err
	}
	verrs, err := wait()
	if err != nil {
		return nil, nil, err
	}
	return doc, verrs, nil
}

// Start parses and validates data in one streaming pass (libxml2 builds no
// tree: memory stays close to the input's size), builds the ResourceSync
// model from the same pass, and returns it with wait, which returns the
// findings (it exists so that a caller can be written for validation that
// finishes later). When the document is not well-formed, doc and wait are
// nil and perrs holds the parser's findings.
func (v *Validator) Start(data []byte) (doc *rs.Document, perrs []Error, wait func() ([]Error, error), err error) {
	if v == nil || v.schema == nil {
		return nil, nil, nil, errors.New("schema: validator not initialised")
	}
	if len(data) > math.MaxInt32-1 {
		return nil, nil, nil, fmt.Errorf("schema: document of %d bytes is too large for libxml2", len(data))
	}
	var empty [1]byte
	ptr := &empty[0]
	if len(data) > 0 {
		ptr = &data[0]
	}
	job := C.rsc_job_new()
	if job == nil {
		return nil, nil, nil, errors.New("schema: out of memory")
	}
	defer C.rsc_job_free(job)
	// libxml2 parses and validates on one thread while this one builds the
	// model from the events it hands over, chunk by chunk.
	var res C.rsc_result
	var wellformed C.int
	var rc C.int
	passed := make(chan struct{})
	go func() {
		defer close(passed)
		rc = C.rsc_check(C.uintptr_t(v.schema.Pointer()), (*C.char)(unsafe.Pointer(ptr)), C.int(len(data)),
			C.int(MaxErrors), &res, &wellformed, job)
	}()
	dec := newDecoder(data)
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
	errs := convert(&res)
	C.rsc_result_free(&res)
	if rc != 0 {
		return nil, nil, nil, errors.New("schema: libxml2 could not parse the document (out of memory or internal error)")
	}
	if wellformed == 0 {
		return nil, errs, nil, nil
	}
	if ferr != nil {
		return nil, nil, nil, ferr
	}
	if doc, err = dec.document(); err != nil {
		return nil, nil, nil, err
	}
	return doc, nil, func() ([]Error, error) { return errs, nil }, nil
}
