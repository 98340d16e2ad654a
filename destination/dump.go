package destination

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// openPkg is a downloaded package, opened: its safe members by name, the
// refused ones with why, and its manifest.
type openPkg struct {
	url      string
	tmp      string
	f        *os.File
	pkg      *rs.Package
	manifest *rs.Document
	unpacked int64
}

func (s *syncer) closePkg(p *openPkg) {
	if p == nil {
		return
	}
	p.f.Close()
	s.m.root.Remove(p.tmp)
}

// fetchPackage downloads a package into DIR's temporary directory,
// checking its hash and length (fetched once more on a mismatch), and
// opens it.
func (s *syncer) fetchPackage(ctx context.Context, u string, fix Fixity, kind rs.Kind) (*openPkg, error) {
	for try := 0; ; try++ {
		var tmp string
		var n int64
		var sums map[string]string
		_, err := s.f.get(ctx, u, conditional{identity: true}, func(r io.Reader) error {
			var err error
			tmp, n, sums, err = s.spool(r, fix.algs(), s.o.PackageLimits.MaxBytes)
			return err
		})
		if le := (*limitError)(nil); errors.As(err, &le) {
			return nil, fmt.Errorf("%s: %w", u, s.o.PackageLimits.TooLarge())
		}
		if err != nil {
			return nil, err
		}
		if ferr := fix.check(u, n, sums); ferr != nil {
			s.m.root.Remove(tmp)
			if try == 0 {
				s.o.logf("package fixity mismatch, fetching again: %v", ferr)
				continue
			}
			s.rep.count(&s.rep.Rejected)
			return nil, ferr
		}
		p, err := s.openPackage(u, tmp, n, kind)
		if err != nil {
			s.m.root.Remove(tmp)
			return nil, err
		}
		s.rep.count(&s.rep.Packages)
		return p, nil
	}
}

// openPackage opens a ZIP package within the package limits (refused
// whole over them, as the crawl refuses it) and reads its manifest.xml
// (11.2 and 13.2: "The file must be named manifest.xml and must be
// located at the top level of the ZIP package"). Members that are no
// bitstream (a name outside the package's folder, a symbolic link, a name
// two members share) are refused and reported, as the crawl reports them
// (RS-PKG-UNSAFE-PATH).
func (s *syncer) openPackage(u, tmp string, size int64, kind rs.Kind) (*openPkg, error) {
	f, err := s.m.root.Open(tmp)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*openPkg, error) {
		f.Close()
		return nil, fmt.Errorf("%s: %s", u, fmt.Sprintf(format, args...))
	}
	pkg, err := rs.OpenPackage(f, size, s.o.PackageLimits)
	if err != nil {
		return fail("%v", err)
	}
	for _, pe := range pkg.Refused {
		s.rep.problem(ProblemPackage, u, "", fmt.Sprintf("member refused: %v", pe))
	}
	p := &openPkg{url: u, tmp: tmp, f: f, pkg: pkg}
	mf := pkg.Members["manifest.xml"]
	if mf == nil {
		return fail("no manifest.xml at the top level of the package")
	}
	data, err := s.readMember(p, mf, s.o.MaxDocumentBytes)
	if err != nil {
		return fail("manifest.xml: %v", err)
	}
	doc, err := readDocument(data)
	if err != nil {
		return fail("manifest.xml: %v", err)
	}
	if doc.Kind() != kind {
		return fail("manifest.xml is a %s, not a %s", doc.Kind().Title(), kind.Title())
	}
	p.manifest = doc
	return p, nil
}

// checkMember refuses a member larger than limit, or one that would
// unpack the package to more than its limit (a member named by several
// manifest entries is unpacked once for each).
func (s *syncer) checkMember(p *openPkg, zf *zip.File, limit int64) error {
	if zf.UncompressedSize64 > uint64(limit) {
		return &limitError{what: fmt.Sprintf("member %q", zf.Name), limit: limit}
	}
	if max := s.o.PackageLimits.MaxUncompressed; p.unpacked+int64(zf.UncompressedSize64) > max {
		return &limitError{what: "the unpacked package", limit: max}
	}
	return nil
}

// readMember reads a small member into memory, within limit.
func (s *syncer) readMember(p *openPkg, zf *zip.File, limit int64) ([]byte, error) {
	if err := s.checkMember(p, zf, limit); err != nil {
		return nil, err
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &limitError{what: fmt.Sprintf("member %q", zf.Name), limit: limit}
	}
	p.unpacked += int64(len(data))
	return data, nil
}

// extract writes the bitstream at path in the package to the copy of it,
// checking the manifest's fixity. It returns an error (and reports it)
// when the bitstream cannot be used; the caller then fetches the resource
// itself.
func (s *syncer) extract(p *openPkg, path string, it item) error {
	report := func(kind, msg string) error {
		s.rep.problem(kind, it.url, it.rel, msg+"; fetching the resource instead")
		return errors.New(msg)
	}
	pp := rs.PackagePath(path)
	if err := pp.Check(); err != nil {
		return report(ProblemPackage, fmt.Sprintf("%s: path refused: %v", p.url, err))
	}
	name := pp.Member()
	if pe := p.pkg.Refusal(name); pe != nil {
		return report(ProblemPackage, fmt.Sprintf("%s: member refused: %v", p.url, pe))
	}
	zf := p.pkg.Members[name]
	if zf == nil {
		return report(ProblemPackage, fmt.Sprintf("%s: no member %q", p.url, name))
	}
	limit := min(s.o.MaxResourceBytes, s.o.PackageLimits.MaxUncompressed-p.unpacked)
	if err := s.checkMember(p, zf, limit); err != nil {
		return report(ProblemPackage, fmt.Sprintf("%s: %v", p.url, err))
	}
	rc, err := zf.Open()
	if err != nil {
		return report(ProblemPackage, fmt.Sprintf("%s: %q: %v", p.url, name, err))
	}
	tmp, n, sums, err := s.spool(rc, it.fix.algs(), limit)
	rc.Close()
	if err != nil {
		return report(ProblemPackage, fmt.Sprintf("%s: %q: %v", p.url, name, err))
	}
	p.unpacked += n
	if ferr := it.fix.check(it.url, n, sums); ferr != nil {
		s.m.root.Remove(tmp)
		return report(ProblemFixity, fmt.Sprintf("bitstream %q of %s: %v", name, p.url, ferr))
	}
	if err := s.m.install(tmp, it.rel); err != nil {
		s.m.root.Remove(tmp)
		return report(ProblemLocal, err.Error())
	}
	s.setRecord(it.url, &Resource{Path: it.rel, Length: n, Hashes: sums, Type: it.typ, Lastmod: it.lastmod,
		Datetime: it.datetime, Set: it.set, Synced: time.Now().UTC()})
	s.rep.count(&s.rep.Fetched)
	return nil
}

// manifestEntry is a manifest entry as an item with its package path.
type manifestEntry struct {
	it   item
	path string
}

func (s *syncer) manifestItems(base string, doc *rs.Document, set, at string) []manifestEntry {
	var out []manifestEntry
	for _, e := range doc.Entries {
		it, ok := s.itemOf(base, e, set)
		if !ok {
			continue
		}
		if it.datetime == "" {
			it.datetime = at
		}
		p := ""
		if e.Md != nil {
			p = e.Md.Path
		}
		out = append(out, manifestEntry{it, p})
	}
	return out
}

// manifestCopy fetches the copy of a package's manifest that a
// rel="contents" link points to (11.1, 13.1: "intended to allow a
// Destination to determine whether the package should be downloaded"),
// or returns nil.
func (s *syncer) manifestCopy(ctx context.Context, base string, e *rs.Entry, kind rs.Kind) (string, *rs.Document) {
	l := e.Link("contents")
	if l == nil || strings.TrimSpace(l.Href) == "" {
		return "", nil
	}
	u := resolve(base, l.Href)
	doc, err := s.f.document(ctx, u)
	if err != nil {
		s.o.logf("manifest copy: %v", err)
		return "", nil
	}
	if doc.Kind() != kind {
		s.o.logf("manifest copy %s is a %s, not a %s", u, doc.Kind().Title(), kind.Title())
		return "", nil
	}
	return u, doc
}

// baselineFromDump makes a baseline from a Resource Dump: each package
// whose manifest (its copy, when linked) shows a resource that is not
// current is downloaded and unpacked, guided by its manifest.xml (5.2);
// bitstreams that cannot be used are fetched from their URI instead.
func (s *syncer) baselineFromDump(ctx context.Context, set *capSet, ss *SetState, sr *SetReport) error {
	u := set.caps[rs.CapResourceDump]
	leaves, at, completed, err := s.readSnapshot(ctx, u, rs.ResourceDump)
	if err != nil {
		return err
	}
	sr.Baseline = u
	cu := s.planCatchUp(ctx, set, ss, at)
	keep := map[string]bool{}
	complete := true
	var fallback []item
	for _, lf := range leaves {
		for _, e := range lf.doc.Entries {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			pkgURL := resolve(lf.url, e.Loc)
			fix, _ := fixityOf(e.Md)
			pkgAt := at
			if e.Md != nil && e.Md.At != "" {
				pkgAt = e.Md.At
			}
			if mu, man := s.manifestCopy(ctx, lf.url, e, rs.ResourceDumpManifest); man != nil {
				need := 0
				entries := s.manifestItems(mu, man, set.url, pkgAt)
				for _, me := range entries {
					keep[me.it.url] = true
					if cu.touches(me.it.url) {
						continue
					}
					if ok, _ := s.upToDate(me.it); !ok {
						need++
					}
				}
				if need == 0 {
					for _, me := range entries {
						if !cu.touches(me.it.url) {
							s.touch(me.it)
							s.rep.count(&s.rep.Unchanged)
						}
					}
					s.rep.count(&s.rep.PackagesSkipped)
					continue
				}
			}
			p, err := s.fetchPackage(ctx, pkgURL, fix, rs.ResourceDumpManifest)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.rep.problem(ProblemPackage, pkgURL, "", err.Error())
				complete = false
				continue
			}
			for _, me := range s.manifestItems(pkgURL, p.manifest, set.url, pkgAt) {
				keep[me.it.url] = true
				if cu.touches(me.it.url) {
					continue
				}
				if ok, _ := s.upToDate(me.it); ok {
					s.touch(me.it)
					s.rep.count(&s.rep.Unchanged)
					continue
				}
				if s.extract(p, me.path, me.it) != nil {
					fallback = append(fallback, me.it)
				}
			}
			s.closePkg(p)
		}
	}
	if !complete && set.has(rs.CapResourceList) {
		s.rep.note(u + ": some packages could not be used; completing the baseline from the Resource List")
		return s.baselineFromList(ctx, set, ss, sr)
	}
	var tasks []task
	for _, it := range fallback {
		tasks = append(tasks, func(ctx context.Context) error { return s.download(ctx, it, conditional{}) })
	}
	if _, err := s.runTasks(ctx, tasks); err != nil {
		return err
	}
	cu.keepCreated(keep)
	if complete {
		s.removeMissing(set.url, keep)
	} else {
		s.rep.note(u + ": some packages could not be used; copies of resources no longer in the dump are kept until a complete baseline")
	}
	ss.Baseline = &Baseline{Kind: string(rs.CapResourceDump), URL: u, At: strings.TrimSpace(at), Completed: completed, Synced: time.Now().UTC()}
	ss.Since = strings.TrimSpace(at)
	if err := s.saveState(); err != nil {
		return err
	}
	return s.applyCatchUp(ctx, set, ss, sr, cu)
}

// dumpPkg is a Change Dump package still to apply.
type dumpPkg struct {
	url     string
	fix     Fixity
	until   string
	untilT  time.Time
	p       *openPkg
	changes []*change
}

// dumpPlan is the changes of the Change Dump packages not applied yet.
type dumpPlan struct {
	pkgs    []*dumpPkg
	final   []*change
	through string
	read    []string
}

// planChangeDumps reads the Change Dumps (and archived ones when needed)
// and the manifests of the packages not applied yet: their copies when
// linked, otherwise the packages themselves. With applied, through is the
// until of the last package applied, and packages ending then are done;
// otherwise through is a snapshot time, and changes at that very instant
// may have come after the snapshot was taken, so they are applied again.
func (s *syncer) planChangeDumps(ctx context.Context, set *capSet, throughRaw string, applied bool) (*dumpPlan, error) {
	root := set.caps[rs.CapChangeDump]
	segs, err := s.readSeries(ctx, root, rs.ChangeDump)
	if err != nil {
		return nil, err
	}
	through, _ := parseDT(throughRaw)
	if segs, err = s.withArchive(ctx, segs, through, set.caps[rs.CapChangeDumpArchive], rs.ChangeDump); err != nil {
		return nil, err
	}
	plan := &dumpPlan{through: throughRaw}
	done := func(until time.Time) bool {
		return !through.IsZero() && (until.Before(through) || applied && until.Equal(through))
	}
	var all []*change
	for _, sg := range segs {
		if sg.closed && done(sg.untilT) {
			continue
		}
		if err := s.fetchSegment(ctx, sg, rs.ChangeDump); err != nil {
			s.closePlan(plan)
			return nil, err
		}
		plan.read = append(plan.read, sg.url)
		for _, e := range sg.doc.Entries {
			pk := &dumpPkg{url: resolve(sg.url, e.Loc)}
			pk.fix, _ = fixityOf(e.Md)
			if e.Md != nil {
				pk.until = strings.TrimSpace(e.Md.Until)
			}
			var ok bool
			if pk.untilT, ok = parseDT(pk.until); ok && done(pk.untilT) {
				continue // applied already
			}
			if !ok {
				if lm, ok := parseDT(e.Lastmod); ok && done(lm) {
					continue
				}
			}
			base, man := s.manifestCopy(ctx, sg.url, e, rs.ChangeDumpManifest)
			if man == nil {
				p, err := s.fetchPackage(ctx, pk.url, pk.fix, rs.ChangeDumpManifest)
				if err != nil {
					s.closePlan(plan)
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					return nil, err
				}
				pk.p, base, man = p, pk.url, p.manifest
			}
			idx := len(plan.pkgs)
			for _, me := range man.Entries {
				c, ok := s.changeOf(base, me, set.url, idx)
				if !ok {
					continue
				}
				if c.hasDT && !through.IsZero() && c.dtTime.Before(through) {
					continue
				}
				if c.it.datetime == "" {
					c.it.datetime = pk.until
				}
				all = append(all, c)
			}
			plan.pkgs = append(plan.pkgs, pk)
			if laterDT(pk.until, plan.through) {
				plan.through = pk.until
			}
		}
	}
	plan.final = collapse(all)
	return plan, nil
}

func (s *syncer) closePlan(plan *dumpPlan) {
	for _, pk := range plan.pkgs {
		s.closePkg(pk.p)
		pk.p = nil
	}
}

// applyChangeDumps applies the packages published after through.
func (s *syncer) applyChangeDumps(ctx context.Context, set *capSet, ss *SetState, sr *SetReport, through string, applied bool) error {
	plan, err := s.planChangeDumps(ctx, set, through, applied)
	if err != nil {
		return err
	}
	return s.applyDumpPlan(ctx, set, ss, sr, plan)
}

// applyDumpPlan applies the last change of each resource: deletions
// remove the copy, creations and updates unpack the bitstream of that
// change (only the packages holding a needed bitstream are downloaded).
func (s *syncer) applyDumpPlan(ctx context.Context, set *capSet, ss *SetState, sr *SetReport, plan *dumpPlan) error {
	defer s.closePlan(plan)
	sr.Changes = append(sr.Changes, plan.read...)
	for _, c := range plan.final {
		switch {
		case c.kind == "deleted":
			s.deleteResource(c.it.url, c.it.rel)
			sr.Applied++
			continue
		}
		if rec := s.record(c.it.url); rec != nil && laterDT(rec.Datetime, c.it.datetime) {
			continue // the copy is newer than this bitstream
		}
		if ok, _ := s.upToDate(c.it); ok {
			s.touch(c.it)
			s.rep.count(&s.rep.Unchanged)
			sr.Applied++
			continue
		}
		pk := plan.pkgs[c.seg]
		pk.changes = append(pk.changes, c)
	}
	var fallback []item
	failed := 0
	for _, pk := range plan.pkgs {
		if len(pk.changes) == 0 {
			if pk.p == nil {
				s.rep.count(&s.rep.PackagesSkipped)
			}
			continue
		}
		if pk.p == nil {
			p, err := s.fetchPackage(ctx, pk.url, pk.fix, rs.ChangeDumpManifest)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.rep.problem(ProblemPackage, pk.url, "", err.Error())
				for _, c := range pk.changes {
					fallback = append(fallback, c.it)
				}
				continue
			}
			pk.p = p
		}
		// The manifest in the package is authoritative: take the last
		// entry of each needed resource from it.
		inPkg := map[string]*change{}
		for _, me := range pk.p.manifest.Entries {
			if c, ok := s.changeOf(pk.url, me, set.url, 0); ok && c.kind != "deleted" {
				inPkg[c.it.url] = c
			}
		}
		for _, c := range pk.changes {
			ic := inPkg[c.it.url]
			if ic == nil {
				s.rep.problem(ProblemPackage, c.it.url, c.it.rel, pk.url+": the package's manifest.xml does not list this resource (its copy does); fetching the resource instead")
				fallback = append(fallback, c.it)
				continue
			}
			ic.it.datetime = c.it.datetime
			if s.extract(pk.p, ic.path, ic.it) != nil {
				fallback = append(fallback, c.it)
				continue
			}
			sr.Applied++
		}
	}
	var tasks []task
	for _, it := range fallback {
		tasks = append(tasks, func(ctx context.Context) error { return s.download(ctx, it, conditional{}) })
	}
	n, err := s.runTasks(ctx, tasks)
	if err != nil {
		return err
	}
	failed += n
	if failed > 0 {
		s.rep.note(fmt.Sprintf("%s: %d changes could not be applied; the next run reads the Change Dumps from the same place", set.url, failed))
		return nil
	}
	if laterDT(plan.through, ss.ChangeDumpThrough) {
		ss.ChangeDumpThrough = plan.through
	}
	return nil
}
