package crawler

import (
	"archive/zip"
	"errors"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// ManifestName is the name of the manifest at the top level of a package
// (sections 11.2 and 13.2).
const ManifestName = "manifest.xml"

// ManifestLocation is where a package's manifest is reported.
func ManifestLocation(pkg string) string { return pkg + "#" + ManifestName }

// maxListed caps the names a fact lists.
const maxListed = 20

// processPackage downloads a dump package to a temporary file within the
// size limit, measures it, opens it and checks it against its manifest.
// With a state file, what was found is recorded (never the package), and
// replayed by a resumed crawl: the manifest is read again from its
// recorded bytes.
func (c *crawl) processPackage(t task) {
	// Cancelled, whatever the package gave is not kept.
	rec, replayed := c.fetchOnce(opPackage, t, func() *record { return c.fetchPackage(t) },
		func(*record) bool { return true })
	if rec == nil {
		return
	}
	if replayed && rec.Manifest != nil {
		c.manifestDocument(t.url, ManifestLocation(t.url), *rec.Manifest)
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		n.StatusCode, n.Header, n.Redirects = rec.Status, rec.Header, rec.Redirects
		c.stats.Packages++
		c.stats.MembersRead += rec.MembersRead
		if rec.Package == nil {
			n.FetchError = strings.TrimPrefix(rec.Err, "fetch failed: ")
			c.setResult(ptr(engine.ErrorResult(t.url, rec.Err)))
			return
		}
		n.Body, n.Package = rec.Facts, rec.Package
		res := &engine.Result{Location: t.url, Kind: rs.KindPackage, Status: engine.StatusValid}
		if rec.Package.Problem != "" {
			res.Status, res.Error = engine.StatusError, rec.Package.Problem
		}
		c.setResult(res)
	})
}

// fetchPackage downloads and checks a package; its record says what was
// found (Err: the failure, when the package could not be had).
func (c *crawl) fetchPackage(t task) *record {
	r := c.f.Get(c.ctx, t.url, sourcehttp.Request{Accept: "application/zip, */*;q=0.1", AcceptEncoding: "identity"})
	defer r.Close()
	rec := recordOf(opPackage, t.url, r)
	if fail := r.Failure(); fail != "" {
		rec.Err = fail
		return rec
	}
	found := func(body *graph.BodyFacts, facts *graph.PackageFacts) *record {
		rec.Facts, rec.Package, rec.Bytes, rec.incomplete = body, facts, r.Received(), r.Incomplete()
		return rec
	}
	tmp, err := os.CreateTemp(c.opts.TempDir, "rsconform-package-*.zip")
	if err != nil {
		return found(nil, &graph.PackageFacts{Problem: "cannot spill the package to a temporary file: " + err.Error()})
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	m := rs.NewDigester(rs.KnownAlgorithms(t.edge.Md.Hashes())...)
	limits := c.opts.PackageLimits
	n, err := io.Copy(io.MultiWriter(tmp, m), io.LimitReader(r.Body, limits.MaxBytes+1))
	r.Close()
	switch {
	case n > limits.MaxBytes:
		return found(bodyFacts(m, true), &graph.PackageFacts{
			Problem: "not checked: " + limits.TooLarge().Error() + "; the download was stopped there"})
	case err != nil:
		return found(bodyFacts(m, true), &graph.PackageFacts{Problem: "not checked: the download failed: " + err.Error()})
	}
	facts := c.inspectPackage(t.url, tmp, n, rec)
	return found(bodyFacts(m, false), facts)
}

// inspectPackage opens a downloaded package within the package limits
// and checks it.
func (c *crawl) inspectPackage(pkgURL string, f *os.File, size int64, rec *record) *graph.PackageFacts {
	facts := &graph.PackageFacts{}
	pkg, err := rs.OpenPackage(f, size, c.opts.PackageLimits)
	if err != nil {
		facts.Problem = "not checked: " + err.Error()
		return facts
	}
	facts.Entries = len(pkg.Zip.File)
	// As rsconform sync does: a refused member is no bitstream of the
	// package.
	for _, pe := range pkg.Refused {
		if len(facts.UnsafeMembers) < maxListed {
			facts.UnsafeMembers = append(facts.UnsafeMembers, pe.Error())
		}
	}
	for name := range pkg.Members {
		if strings.HasSuffix(name, "/"+ManifestName) && (facts.NestedManifest == "" || name < facts.NestedManifest) {
			facts.NestedManifest = name
		}
	}
	listed := map[string]bool{ManifestName: true}
	if manifest := pkg.Members[ManifestName]; manifest != nil {
		loc := ManifestLocation(pkgURL)
		facts.Manifest = loc
		in := readManifest(manifest, c.opts.maxSize())
		rec.Manifest = &in
		if doc := c.manifestDocument(pkgURL, loc, in); doc != nil {
			facts.Bitstreams = c.checkBitstreams(doc, pkg, listed, rec)
		}
	}
	var names []string
	for name := range pkg.Members {
		if !listed[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	facts.UnlistedCount = len(names)
	if len(names) > maxListed {
		names = names[:maxListed]
	}
	facts.Unlisted = names
	return facts
}

// readManifest reads a package's manifest within the document limit.
func readManifest(zf *zip.File, maxBytes int64) manifestInput {
	rc, err := zf.Open()
	if err != nil {
		return manifestInput{Problem: "cannot read manifest.xml from the package: " + err.Error()}
	}
	data, err := rs.ReadAll(rc, maxBytes)
	rc.Close()
	var le *rs.LimitError
	switch {
	case errors.As(err, &le):
		return manifestInput{TooLarge: le}
	case err != nil:
		return manifestInput{Problem: "cannot read manifest.xml from the package: " + err.Error()}
	}
	return manifestInput{Data: data}
}

// manifestDocument validates what was read of a package's manifest,
// records it in the Graph and walks its links; it returns the parsed
// manifest.
func (c *crawl) manifestDocument(pkgURL, loc string, in manifestInput) *rs.Document {
	var res engine.Result
	var doc *rs.Document
	switch {
	case in.TooLarge != nil:
		res = engine.Run(loc, engine.Input{TooLarge: in.TooLarge}, c.v.Config)
	case in.Problem != "":
		res = engine.ErrorResult(loc, in.Problem)
	default:
		res, doc = c.validate(loc, in.Data)
	}
	kind := rs.KindUnknown
	if doc != nil {
		kind = doc.Kind()
	}
	c.update(func() {
		n := &graph.Node{URL: loc, Kind: kind, Role: graph.RoleDocument, StatusCode: 0,
			In: []graph.Edge{{From: pkgURL, Rel: "manifest"}}}
		c.graph.SetDocument(n, doc, c.opts.Revisit > 0)
		if doc != nil {
			c.stats.Entries += len(doc.Entries)
		}
		c.graph.Add(n)
		c.stats.Documents++
		e, w, i := res.Count()
		c.stats.Findings += e + w + i
		c.setResult(&res)
	})
	if doc != nil {
		c.walk(loc, doc)
	}
	return doc
}

// checkBitstreams compares the manifest's entries with their bitstreams
// and marks the members they name in listed; paths outside the package and
// refused members were reported already. Each member is read at most
// once, however many entries name it: first the algorithms every entry
// naming it asks for are gathered, then it is measured once with all of
// them, then each entry is compared with the measure.
func (c *crawl) checkBitstreams(doc *rs.Document, pkg *rs.Package, listed map[string]bool, rec *record) []graph.BitstreamFact {
	type use struct {
		e    *rs.Entry
		zf   *zip.File
		fact *graph.BitstreamFact // a problem found before reading
	}
	var uses []use
	algs := map[*zip.File][]string{}
	for _, e := range doc.Entries {
		if e.Md == nil || e.Md.Path == "" {
			continue
		}
		p := rs.PackagePath(e.Md.Path)
		listed[p.Member()] = true
		if p.Check() != nil || pkg.Refusal(p.Member()) != nil {
			continue // RS-PATH-INSIDE on the manifest, RS-PKG-UNSAFE-PATH on the package
		}
		zf := pkg.Members[p.Member()]
		if zf == nil {
			fact := &graph.BitstreamFact{Pos: e.Md.AttrPosition("path"), Loc: e.Loc, Path: e.Md.Path, Problem: graph.BitstreamMissing}
			uses = append(uses, use{e: e, fact: fact})
			continue
		}
		_, hasLen, _ := e.Md.ContentLength()
		entryAlgs := rs.KnownAlgorithms(e.Md.Hashes())
		if !hasLen && len(entryAlgs) == 0 {
			continue
		}
		uses = append(uses, use{e: e, zf: zf})
		for _, a := range entryAlgs {
			if !slices.Contains(algs[zf], a) {
				algs[zf] = append(algs[zf], a)
			}
		}
		if algs[zf] == nil {
			algs[zf] = []string{} // read for its length
		}
	}
	measured := make(map[*zip.File]*graph.BodyFacts, len(algs))
	var out []graph.BitstreamFact
	for _, u := range uses {
		if u.fact != nil {
			out = append(out, *u.fact)
			continue
		}
		m, done := measured[u.zf]
		if !done {
			m = measureMember(u.zf, algs[u.zf])
			rec.MembersRead++
			measured[u.zf] = m
		}
		if m == nil {
			continue // unreadable: not judged
		}
		if fact := bitstreamProblem(u.e, m); fact != nil {
			out = append(out, *fact)
		}
	}
	return out
}

// measureMember reads a member once, hashing it; nil when it cannot be
// read.
func measureMember(zf *zip.File, algs []string) *graph.BodyFacts {
	rc, err := zf.Open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	d := rs.NewDigester(algs...)
	// Never read more than the entry claims (plus one byte to notice a lie).
	if _, err := io.Copy(d, io.LimitReader(rc, int64(zf.UncompressedSize64)+1)); err != nil {
		return nil
	}
	return bodyFacts(d, false)
}

// bitstreamProblem compares a manifest entry with the measure of its
// bitstream: its length first, then every digest rsconform computes.
func bitstreamProblem(e *rs.Entry, m *graph.BodyFacts) *graph.BitstreamFact {
	fact := &graph.BitstreamFact{Pos: e.Md.AttrPosition("path"), Loc: e.Loc, Path: e.Md.Path}
	if want, ok, err := e.Md.ContentLength(); ok && err == nil && want != m.Length {
		fact.Problem, fact.Want, fact.Got = graph.BitstreamLength, e.Md.Length, strconv.FormatInt(m.Length, 10)
		return fact
	}
	for _, h := range e.Md.Hashes() {
		if got, known := m.Digests[h.Algorithm()]; known && !h.Matches(got) {
			fact.Problem, fact.Want, fact.Got = graph.BitstreamHash, h.Algorithm()+":"+h.Digest, h.Algorithm()+":"+got
			return fact
		}
	}
	return nil
}
