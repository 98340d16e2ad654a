package crawler

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
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
func (c *crawl) processPackage(t task) {
	r := c.f.Get(c.ctx, t.url, sourcehttp.Request{Accept: "application/zip, */*;q=0.1", AcceptEncoding: "identity"})
	defer r.Close()
	setFacts := func(n *rules.Node) { n.StatusCode, n.Header, n.Redirects = r.Status, r.Header, r.Redirects }
	if fail := r.Failure(); fail != "" {
		c.update(func() {
			n := c.graph.Node(t.url)
			setFacts(n)
			n.FetchError = strings.TrimPrefix(fail, "fetch failed: ")
			c.stats.Packages++
			c.setResult(ptr(rules.ErrorResult(t.url, fail)))
		})
		return
	}
	tmp, err := os.CreateTemp(c.opts.TempDir, "rsconform-package-*.zip")
	if err != nil {
		c.packageResult(t, setFacts, nil, &rules.PackageFacts{Problem: "cannot spill the package to a temporary file: " + err.Error()})
		return
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	m := rs.NewDigester(rs.KnownAlgorithms(t.edge.Md.Hashes())...)
	limit := c.opts.MaxPackageBytes
	n, err := io.Copy(io.MultiWriter(tmp, m), io.LimitReader(r.Body, limit+1))
	r.Close()
	switch {
	case n > limit:
		c.packageResult(t, setFacts, bodyFacts(m, true), &rules.PackageFacts{
			Problem: fmt.Sprintf("not checked: the package is larger than the limit of %d bytes (--max-package-size); the download was stopped there", limit)})
		return
	case err != nil:
		c.packageResult(t, setFacts, bodyFacts(m, true), &rules.PackageFacts{Problem: "not checked: the download failed: " + err.Error()})
		return
	}
	facts := c.inspectPackage(t.url, tmp, n)
	c.packageResult(t, setFacts, bodyFacts(m, false), facts)
}

func (c *crawl) packageResult(t task, setFacts func(*rules.Node), body *rules.BodyFacts, facts *rules.PackageFacts) {
	c.update(func() {
		n := c.graph.Node(t.url)
		setFacts(n)
		n.Body, n.Package = body, facts
		c.stats.Packages++
		res := &rules.Result{Location: t.url, Kind: rs.KindPackage, Status: rules.StatusValid}
		if facts.Problem != "" {
			res.Status, res.Error = rules.StatusError, facts.Problem
		}
		c.setResult(res)
	})
}

// zipEntryCount reads the number of entries from the end of central
// directory record (zip64 too) without reading the directory itself.
func zipEntryCount(f io.ReaderAt, size int64) (uint64, bool) {
	n := int64(65535 + 22)
	if n > size {
		n = size
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	for i := len(buf) - 22; i >= 0; i-- {
		if buf[i] != 'P' || buf[i+1] != 'K' || buf[i+2] != 5 || buf[i+3] != 6 {
			continue
		}
		count := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
		if count != 0xFFFF || i < 20 {
			return count, true
		}
		loc := buf[i-20:]
		if loc[0] != 'P' || loc[1] != 'K' || loc[2] != 6 || loc[3] != 7 {
			return count, true
		}
		off := int64(binary.LittleEndian.Uint64(loc[8:]))
		rec := make([]byte, 56)
		if _, err := f.ReadAt(rec, off); err != nil {
			return count, true
		}
		if rec[0] == 'P' && rec[1] == 'K' && rec[2] == 6 && rec[3] == 6 {
			return binary.LittleEndian.Uint64(rec[32:]), true
		}
		return count, true
	}
	return 0, false
}

// ratioFloor is the entry size below which the compression ratio is not
// judged: small files of repeated bytes compress very well and harm no one.
const ratioFloor = 1 << 20

// inspectPackage opens a downloaded package and checks it.
func (c *crawl) inspectPackage(pkgURL string, f *os.File, size int64) *rules.PackageFacts {
	facts := &rules.PackageFacts{}
	if count, ok := zipEntryCount(f, size); ok && count > uint64(c.opts.MaxPackageEntries) {
		facts.Entries = int(min(count, 1<<31))
		facts.Problem = fmt.Sprintf("not checked: the ZIP file has %d entries, more than the limit of %d (--max-package-entries); a manifest lists at most 50,000 bitstreams", count, c.opts.MaxPackageEntries)
		return facts
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		facts.Problem = "not checked: not a ZIP file: " + err.Error()
		return facts
	}
	facts.Entries = len(zr.File)
	var total uint64
	byName := make(map[string]*zip.File, len(zr.File))
	refused := map[string]bool{}
	var manifest *zip.File
	for _, zf := range zr.File {
		total += zf.UncompressedSize64
		if zf.UncompressedSize64 > ratioFloor && zf.CompressedSize64 > 0 &&
			float64(zf.UncompressedSize64)/float64(zf.CompressedSize64) > c.opts.MaxRatio {
			facts.Problem = fmt.Sprintf("not checked: entry %q expands %d times (over %g, --max-package-ratio): a ZIP bomb?", zf.Name, zf.UncompressedSize64/zf.CompressedSize64, c.opts.MaxRatio)
			return facts
		}
		// As rsconform sync does: a refused member is no bitstream of the
		// package, and of two members of one name the first is used.
		if err := rs.CheckMember(zf.Name, zf.Mode()); err != nil {
			if len(facts.UnsafeMembers) < maxListed {
				facts.UnsafeMembers = append(facts.UnsafeMembers, err.Error())
			}
			refused[zf.Name] = true
			continue
		}
		if byName[zf.Name] != nil {
			continue
		}
		byName[zf.Name] = zf
		switch {
		case zf.Name == ManifestName:
			manifest = zf
		case strings.HasSuffix(zf.Name, "/"+ManifestName) && facts.NestedManifest == "":
			facts.NestedManifest = zf.Name
		}
	}
	if total > uint64(c.opts.MaxUncompressed) {
		facts.Problem = fmt.Sprintf("not checked: the entries add up to %d bytes uncompressed, over the limit of %d (--max-package-uncompressed)", total, c.opts.MaxUncompressed)
		return facts
	}
	listed := map[string]bool{ManifestName: true}
	if manifest != nil {
		loc := ManifestLocation(pkgURL)
		facts.Manifest = loc
		if doc := c.manifestDocument(pkgURL, loc, manifest); doc != nil {
			facts.Bitstreams = c.checkBitstreams(doc, byName, refused, listed)
		}
	}
	var names []string
	for name, zf := range byName {
		if zf.FileInfo().IsDir() || listed[name] {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	facts.UnlistedCount = len(names)
	if len(names) > maxListed {
		names = names[:maxListed]
	}
	facts.Unlisted = names
	return facts
}

// manifestDocument reads and validates the manifest of a package, records
// it in the Graph and walks its links; it returns the parsed manifest.
func (c *crawl) manifestDocument(pkgURL, loc string, zf *zip.File) *rs.Document {
	limits := c.v.Config.Limits.WithDefaults()
	var res rules.Result
	var doc *rs.Document
	rc, err := zf.Open()
	if err != nil {
		res = rules.ErrorResult(loc, "cannot read manifest.xml from the package: "+err.Error())
	} else {
		data, err := rs.ReadAll(rc, limits.MaxBytes)
		rc.Close()
		var le *rs.LimitError
		switch {
		case errors.As(err, &le):
			res = rules.Run(loc, rules.Input{TooLarge: le}, c.v.Config)
		case err != nil:
			res = rules.ErrorResult(loc, "cannot read manifest.xml from the package: "+err.Error())
		default:
			res, doc = c.validate(loc, data)
		}
	}
	kind := rs.KindUnknown
	if doc != nil {
		kind = doc.Kind()
	}
	c.update(func() {
		n := &rules.Node{URL: loc, Kind: kind, Role: rules.RoleDocument, StatusCode: 0,
			In: []rules.Edge{{From: pkgURL, Rel: "manifest"}}}
		if doc != nil {
			n.Doc = trimmed(doc)
			n.Entries = len(doc.Entries)
			n.LocFingerprints = fingerprints(doc)
			n.Canonical = canonical(doc)
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
func (c *crawl) checkBitstreams(doc *rs.Document, byName map[string]*zip.File, refused, listed map[string]bool) []rules.BitstreamFact {
	type use struct {
		e    *rs.Entry
		zf   *zip.File
		fact *rules.BitstreamFact // a problem found before reading
	}
	var uses []use
	algs := map[*zip.File][]string{}
	for _, e := range doc.Entries {
		if e.Md == nil || e.Md.Path == "" {
			continue
		}
		p := rs.PackagePath(e.Md.Path)
		listed[p.Member()] = true
		if p.Check() != nil || refused[p.Member()] {
			continue // RS-PATH-INSIDE on the manifest, RS-PKG-UNSAFE-PATH on the package
		}
		zf := byName[p.Member()]
		if zf == nil {
			fact := &rules.BitstreamFact{Pos: e.Md.AttrPosition("path"), Loc: e.Loc, Path: e.Md.Path, Problem: rules.BitstreamMissing}
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
	measured := make(map[*zip.File]*rules.BodyFacts, len(algs))
	var out []rules.BitstreamFact
	for _, u := range uses {
		if u.fact != nil {
			out = append(out, *u.fact)
			continue
		}
		m, done := measured[u.zf]
		if !done {
			m = c.measureMember(u.zf, algs[u.zf])
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

// measureMember reads a member once, counting and hashing it; nil when it
// cannot be read.
func (c *crawl) measureMember(zf *zip.File, algs []string) *rules.BodyFacts {
	c.update(func() { c.stats.MembersRead++ })
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
func bitstreamProblem(e *rs.Entry, m *rules.BodyFacts) *rules.BitstreamFact {
	fact := &rules.BitstreamFact{Pos: e.Md.AttrPosition("path"), Loc: e.Loc, Path: e.Md.Path}
	if want, ok, err := e.Md.ContentLength(); ok && err == nil && want != m.Length {
		fact.Problem, fact.Want, fact.Got = rules.BitstreamLength, e.Md.Length, strconv.FormatInt(m.Length, 10)
		return fact
	}
	for _, h := range e.Md.Hashes() {
		if got, known := m.Digests[h.Algorithm()]; known && !h.Matches(got) {
			fact.Problem, fact.Want, fact.Got = rules.BitstreamHash, h.Algorithm()+":"+h.Digest, h.Algorithm()+":"+got
			return fact
		}
	}
	return nil
}
