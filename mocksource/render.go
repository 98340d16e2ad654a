package mocksource

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"strconv"
	"strings"
	"time"

	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
)

// URL layout. Every document is written through the resourcesync model;
// paths are relative to the base URL.
const (
	pathSourceDesc = "/.well-known/resourcesync"
	pathCapList    = "/dataset1/capabilitylist.xml"
	// pathOtherCapList is a second Capability List, published while a
	// wrong-up fault makes documents of dataset1 point up to it; it lists
	// an empty Resource List, pathOtherResList.
	pathOtherCapList = "/dataset2/capabilitylist.xml"
	pathOtherResList = "/dataset2/resourcelist.xml"
	pathInfoSource   = "/info/source.html"
	pathInfoSet      = "/info/dataset1.html"
	pathRobots       = "/robots.txt"
	setPrefix        = "/dataset1/"
	movedPrefix      = "/moved"
	ctypeXML         = "application/xml"
	ctypeZip         = "application/zip"
)

// famName is the capability name of a family, used in its paths.
var famName = [numFamilies]string{famRL: "resourcelist", famRD: "resourcedump", famCL: "changelist", famCD: "changedump"}

var famKind = [numFamilies]rs.Kind{famRL: rs.ResourceList, famRD: rs.ResourceDump, famCL: rs.ChangeList, famCD: rs.ChangeDump}

func famRoot(f int) string    { return setPrefix + famName[f] + ".xml" }
func famArchive(f int) string { return setPrefix + famName[f] + "-archive.xml" }
func famArchivePage(f, p int) string {
	return setPrefix + famName[f] + "-archive/" + strconv.Itoa(p) + ".xml"
}
func famNumbered(f, n int) string { return setPrefix + famName[f] + "/" + strconv.Itoa(n) + ".xml" }
func famPage(f, n, p int) string {
	return setPrefix + famName[f] + "/" + strconv.Itoa(n) + "-" + strconv.Itoa(p) + ".xml"
}
func rdPackage(n, k int) string {
	return setPrefix + "resourcedump-pkg/" + strconv.Itoa(n) + "-" + strconv.Itoa(k) + ".zip"
}
func rdManifest(n, k int) string {
	return setPrefix + "resourcedump-pkg/" + strconv.Itoa(n) + "-" + strconv.Itoa(k) + "-manifest.xml"
}
func cdPackagePath(j int) string { return setPrefix + "changedump-pkg/" + strconv.Itoa(j) + ".zip" }
func cdManifestPath(j int) string {
	return setPrefix + "changedump-pkg/" + strconv.Itoa(j) + "-manifest.xml"
}

func pagesFor(n, max int) int {
	if n <= max {
		return 1
	}
	return (n + max - 1) / max
}

func dt(t time.Time) string { return rs.FormatDatetime(t) }

// renderer writes the documents of one world for one base URL. It runs
// under the Source's read lock; package lengths come from the cache.
type renderer struct {
	s    *Source
	w    *world
	base string
	// base2 is the second origin's base URL, "" when there is none.
	base2 string
	path  string // of the document being rendered
}

// url is the URI of the Source's path p: on the second origin for a
// resource under scenario.Origin2Prefix when there is one.
func (r *renderer) url(p string) string {
	if r.base2 != "" && strings.HasPrefix(p, scenario.Origin2Prefix) {
		return r.base2 + strings.TrimPrefix(p, scenario.Origin2Path)
	}
	return r.base + p
}

func (r *renderer) encode(d *rs.Document) []byte {
	withOffsets(d, r.s.sc.OffsetSeconds())
	var buf bytes.Buffer
	if err := rs.Write(&buf, d); err != nil {
		// Writing to memory cannot fail.
		panic("mocksource: " + err.Error())
	}
	return buf.Bytes()
}

// newDoc makes a document of kind k with its up link to the Capability
// List (to the other one under a wrong-up fault).
func (r *renderer) newDoc(k rs.Kind) *rs.Document {
	d := rs.NewDocument(k)
	up := pathCapList
	if r.w.wrongUp(r.path) {
		up = pathOtherCapList
	}
	d.AddLink("up", r.url(up))
	return d
}

// indexLink links d to the index p that lists it (to the family's first
// numbered document under a wrong-index fault).
func (r *renderer) indexLink(d *rs.Document, fam int, p string) {
	if r.w.wrongIndex(r.path) {
		p = famNumbered(fam, 1)
	}
	d.AddLink("index", r.url(p))
}

func (r *renderer) archivesLink(d *rs.Document, fam int) {
	if r.archiveCount(fam) > 0 {
		d.AddLink("archives", r.url(famArchive(fam)))
	}
}

// archiveCount is the number of entries of a family's archive.
func (r *renderer) archiveCount(fam int) int {
	w := r.w
	switch fam {
	case famRL:
		return len(w.rl) - 1
	case famRD:
		return max(len(w.rd)-1, 0)
	case famCL:
		return len(w.cl.closed())
	case famCD:
		return len(w.cd.closed())
	}
	return 0
}

// Source Description and Capability List.

func (r *renderer) sourceDescription() []byte {
	d := rs.NewDocument(rs.SourceDescription)
	d.AddLink("describedby", r.url(pathInfoSource))
	e := d.AddEntry(r.url(pathCapList))
	e.EnsureMd().Capability = string(rs.CapCapabilityList)
	e.AddLink("describedby", r.url(pathInfoSet))
	if r.w.wrongUp("") {
		e := d.AddEntry(r.url(pathOtherCapList))
		e.EnsureMd().Capability = string(rs.CapCapabilityList)
		e.AddLink("describedby", r.url(pathInfoSource))
	}
	return r.encode(d)
}

// otherCapabilityList is the second Capability List: a set of no
// resources, with its empty Resource List.
func (r *renderer) otherCapabilityList() []byte {
	d := rs.NewDocument(rs.CapabilityList)
	d.AddLink("describedby", r.url(pathInfoSource))
	d.AddLink("up", r.url(pathSourceDesc))
	d.AddEntry(r.url(pathOtherResList)).EnsureMd().Capability = string(rs.CapResourceList)
	return r.encode(d)
}

// otherResourceList is the second set's Resource List: empty since the
// Source's start.
func (r *renderer) otherResourceList() []byte {
	d := rs.NewDocument(rs.ResourceList)
	d.AddLink("up", r.url(pathOtherCapList))
	d.Md.At = dt(r.w.start)
	return r.encode(d)
}

func (r *renderer) capabilityList() []byte {
	w := r.w
	d := rs.NewDocument(rs.CapabilityList)
	d.AddLink("describedby", r.url(pathInfoSet))
	d.AddLink("up", r.url(pathSourceDesc))
	add := func(p string, c rs.Capability) {
		d.AddEntry(r.url(p)).EnsureMd().Capability = string(c)
	}
	add(famRoot(famRL), rs.CapResourceList)
	if len(w.rd) > 0 {
		add(famRoot(famRD), rs.CapResourceDump)
	}
	add(famRoot(famCL), rs.CapChangeList)
	if len(w.pkgs) > 0 {
		add(famRoot(famCD), rs.CapChangeDump)
	}
	caps := [numFamilies]rs.Capability{famRL: rs.CapResourceListArchive, famRD: rs.CapResourceDumpArchive,
		famCL: rs.CapChangeListArchive, famCD: rs.CapChangeDumpArchive}
	for _, f := range []int{famRL, famRD, famCL, famCD} {
		if r.archiveCount(f) > 0 {
			add(famArchive(f), caps[f])
		}
	}
	return r.encode(d)
}

// Snapshots: Resource Lists and Resource Dumps.

func (r *renderer) snaps(fam int) []*snapshot {
	if fam == famRL {
		return r.w.rl
	}
	return r.w.rd
}

// snapItems is the number of entries of a snapshot document: resources,
// or packages.
func (r *renderer) snapItems(fam int, s *snapshot) int {
	if fam == famRL {
		return s.count
	}
	return max(1, (s.count+r.w.pkgSize-1)/r.w.pkgSize)
}

// snapDoc renders snapshot n of a family: page 0 is its root (the list
// itself, or its index), pages from 1 are the lists of an index. The
// root of the current snapshot is the family's root path; archived ones
// are numbered.
func (r *renderer) snapDoc(fam, n, page int) ([]byte, bool) {
	snaps := r.snaps(fam)
	if n < 1 || n > len(snaps) {
		return nil, false
	}
	s := snaps[n-1]
	current := n == len(snaps)
	root := famNumbered(fam, n)
	if current {
		root = famRoot(fam)
	}
	items := r.snapItems(fam, s)
	pages := pagesFor(items, r.w.maxEntries)
	if page == 0 && pages > 1 {
		d := r.newDoc(famKind[fam].Index())
		r.archivesLink(d, fam)
		d.Md.At = dt(s.at)
		for p := 1; p <= pages; p++ {
			e := d.AddEntry(r.url(famPage(fam, n, p)))
			e.EnsureMd().At = dt(s.at)
		}
		return r.encode(d), true
	}
	lo, hi := 0, items
	if page > 0 {
		if pages == 1 || page > pages {
			return nil, false
		}
		lo, hi = (page-1)*r.w.maxEntries, min(page*r.w.maxEntries, items)
	}
	d := r.newDoc(famKind[fam])
	if page > 0 {
		r.indexLink(d, fam, root)
	}
	r.archivesLink(d, fam)
	d.Md.At = dt(s.at)
	d.Entries = make([]*rs.Entry, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if fam == famRL {
			r.resourceEntry(d, s, i)
		} else {
			r.rdPackageEntry(d, s, i+1)
		}
	}
	return r.encode(d), true
}

func (r *renderer) resourceEntry(d *rs.Document, s *snapshot, i int) {
	vi, _ := r.w.versionAt(s.id(i), s.seq)
	e := d.AddEntry(r.url(vi.path))
	e.SetLastmod(vi.at)
	r.describe(e.EnsureMd(), vi)
}

// describe sets hash, length and type of a resource version.
func (r *renderer) describe(md *rs.Md, vi vinfo) {
	m := r.w.meta(vi)
	if r.w.wrongHash(vi.path) {
		md.Hash = m.wrongHashAttr()
	} else {
		md.Hash = m.hashAttr()
	}
	md.Length = strconv.Itoa(m.length)
	md.Type = vi.typ
}

func (r *renderer) rdPackageEntry(d *rs.Document, s *snapshot, k int) {
	e := d.AddEntry(r.url(rdPackage(s.n, k)))
	zip := r.s.packageBytes(r, famRD, s.n, k)
	md := e.EnsureMd()
	packageMd(md, zip)
	md.At = dt(s.at)
	l := e.AddLink("contents", r.url(rdManifest(s.n, k)))
	l.Type = ctypeXML
}

func packageMd(md *rs.Md, zip []byte) {
	m := &meta{length: len(zip), md5: md5.Sum(zip), sha256: sha256.Sum256(zip)}
	md.Type = ctypeZip
	md.Length = strconv.Itoa(m.length)
	md.Hash = m.hashAttr()
}

// rdManifestDoc is the Resource Dump Manifest of package k of dump n, and
// the resources it holds with their paths in the package.
func (r *renderer) rdManifestDoc(n, k int) ([]byte, []vinfo, bool) {
	if n < 1 || n > len(r.w.rd) {
		return nil, nil, false
	}
	s := r.w.rd[n-1]
	if k < 1 || k > r.snapItems(famRD, s) {
		return nil, nil, false
	}
	d := r.newDoc(rs.ResourceDumpManifest)
	d.Md.At = dt(s.at)
	lo, hi := (k-1)*r.w.pkgSize, min(k*r.w.pkgSize, s.count)
	vis := make([]vinfo, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		vi, _ := r.w.versionAt(s.id(i), s.seq)
		e := d.AddEntry(r.url(vi.path))
		e.SetLastmod(vi.at)
		md := e.EnsureMd()
		r.describe(md, vi)
		md.Path = "/resources" + vi.path
		vis = append(vis, vi)
	}
	return r.encode(d), vis, true
}

// Change series: Change Lists and Change Dumps.

func (r *renderer) series(fam int) *series {
	if fam == famCL {
		return &r.w.cl
	}
	return &r.w.cd
}

// seriesRoot is the family's root: the sole visible segment itself, or
// the index of the visible ones.
func (r *renderer) seriesRoot(fam int) []byte {
	sr := r.series(fam)
	vis := sr.visible(r.w.maxEntries)
	if len(vis) == 1 {
		return r.segmentDoc(fam, vis[0], false)
	}
	d := r.newDoc(famKind[fam].Index())
	r.archivesLink(d, fam)
	d.Md.From = dt(vis[0].from)
	if last := vis[len(vis)-1]; last.closed {
		d.Md.Until = dt(last.until)
	}
	for _, sg := range vis {
		e := d.AddEntry(r.url(famNumbered(fam, sg.n)))
		md := e.EnsureMd()
		md.From = dt(sg.from)
		if sg.closed {
			md.Until = dt(sg.until)
		}
	}
	return r.encode(d)
}

// seriesNumbered is segment n at its numbered path: not served when it is
// the sole visible segment (that one lives at the root).
func (r *renderer) seriesNumbered(fam, n int) ([]byte, bool) {
	sr := r.series(fam)
	if n < 1 || n > len(sr.segs) {
		return nil, false
	}
	vis := sr.visible(r.w.maxEntries)
	sg := sr.segs[n-1]
	if len(vis) == 1 && vis[0] == sg {
		return nil, false
	}
	inIndex := len(vis) > 1 && sg.n >= vis[0].n
	return r.segmentDoc(fam, sg, inIndex), true
}

func (r *renderer) segmentDoc(fam int, sg *segment, inIndex bool) []byte {
	d := r.newDoc(famKind[fam])
	if inIndex {
		r.indexLink(d, fam, famRoot(fam))
	}
	r.archivesLink(d, fam)
	d.Md.From = dt(sg.from)
	if sg.closed {
		d.Md.Until = dt(sg.until)
	}
	d.Entries = make([]*rs.Entry, 0, sg.hi-sg.lo)
	for i := sg.lo; i < sg.hi; i++ {
		if fam == famCL {
			r.changeEntry(d, &r.w.changes[i], false)
		} else {
			r.cdPackageEntry(d, r.w.pkgs[i])
		}
	}
	return r.encode(d)
}

// changeEntry adds a Change List (or, with inPackage, a Change Dump
// Manifest) entry for a change.
func (r *renderer) changeEntry(d *rs.Document, c *change, inPackage bool) {
	path := r.w.res[c.id].path
	e := d.AddEntry(r.url(path))
	if c.kind != chDeleted {
		e.SetLastmod(c.at)
	}
	md := e.EnsureMd()
	md.Change = c.kind.String()
	if !r.s.opts.LastmodOnly {
		md.Datetime = dt(c.at)
	}
	if c.kind != chDeleted {
		r.describe(md, r.w.vinfoOf(c.id, path, c.v))
		if inPackage {
			md.Path = cdMemberPath(c, path)
		}
	}
}

func cdMemberPath(c *change, path string) string {
	var b [64]byte
	p := append(b[:0], "/changes/"...)
	p = pad7(p, c.v.seq+1)
	return string(p) + path
}

func (r *renderer) cdPackageEntry(d *rs.Document, pk *cdPackage) {
	e := d.AddEntry(r.url(cdPackagePath(pk.n)))
	e.SetLastmod(pk.until)
	zip := r.s.packageBytes(r, famCD, pk.n, 0)
	md := e.EnsureMd()
	packageMd(md, zip)
	md.From = dt(pk.from)
	md.Until = dt(pk.until)
	l := e.AddLink("contents", r.url(cdManifestPath(pk.n)))
	l.Type = ctypeXML
}

func (r *renderer) cdManifestDoc(j int) ([]byte, []*change, bool) {
	if j < 1 || j > len(r.w.pkgs) {
		return nil, nil, false
	}
	pk := r.w.pkgs[j-1]
	d := r.newDoc(rs.ChangeDumpManifest)
	d.Md.From = dt(pk.from)
	d.Md.Until = dt(pk.until)
	cs := make([]*change, 0, pk.hi-pk.lo)
	for i := pk.lo; i < pk.hi; i++ {
		c := &r.w.changes[i]
		r.changeEntry(d, c, true)
		cs = append(cs, c)
	}
	return r.encode(d), cs, true
}

// Archives (ResourceSync Archives draft, sections 3-6).

type archived struct {
	loc         string
	at          time.Time
	from, until time.Time
}

func (r *renderer) archiveEntries(fam int) []archived {
	var out []archived
	switch fam {
	case famRL, famRD:
		snaps := r.snaps(fam)
		for _, s := range snaps[:max(len(snaps)-1, 0)] {
			out = append(out, archived{loc: famNumbered(fam, s.n), at: s.at})
		}
	case famCL, famCD:
		for _, sg := range r.series(fam).closed() {
			out = append(out, archived{loc: famNumbered(fam, sg.n), from: sg.from, until: sg.until})
		}
	}
	return out
}

// archiveDoc renders a family's archive: page 0 is its root (an index
// when the entries exceed the limit).
func (r *renderer) archiveDoc(fam, page int) ([]byte, bool) {
	entries := r.archiveEntries(fam)
	if len(entries) == 0 {
		return nil, false
	}
	kind := rs.Kind(famName[fam] + "-archive")
	pages := pagesFor(len(entries), r.w.maxEntries)
	if page == 0 && pages > 1 {
		d := r.newDoc(kind.Index())
		for p := 1; p <= pages; p++ {
			d.AddEntry(r.url(famArchivePage(fam, p)))
		}
		return r.encode(d), true
	}
	lo, hi := 0, len(entries)
	if page > 0 {
		if pages == 1 || page > pages {
			return nil, false
		}
		lo, hi = (page-1)*r.w.maxEntries, min(page*r.w.maxEntries, len(entries))
	}
	d := r.newDoc(kind)
	if page > 0 {
		r.indexLink(d, fam, famArchive(fam))
	}
	for _, a := range entries[lo:hi] {
		md := d.AddEntry(r.url(a.loc)).EnsureMd()
		if fam == famRL || fam == famRD {
			md.At = dt(a.at)
		} else {
			md.From = dt(a.from)
			md.Until = dt(a.until)
		}
	}
	return r.encode(d), true
}
