package destination

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// errGap says that the changes since the last run are no longer all
// published; a new baseline is needed.
var errGap = errors.New("changes are missing")

type syncer struct {
	o   *Options
	f   *fetcher
	m   *mirror
	rep *Report

	// paths maps resource URLs to files of DIR.
	paths *Mapper

	mu sync.Mutex // guards st.Resources and claims
	st *State
	// claims holds, by file, the URL whose copy it is (from the state,
	// then from every entry of the run): a second URL mapped to the same
	// file is refused before anything is written.
	claims map[string]string
	// stateRel is the state file relative to DIR, when it is inside.
	stateRel string
	// unkept are the Source's resources whose URI cannot be kept in DIR
	// (guarded by mu): an audit counts them missing, as a
	// synchronisation counts them failed.
	unkept []AuditItem
}

// Run synchronises (or audits) DIR with the Source once. The error is
// for a run that could not do its job (the Source or its documents
// unreachable, the state unreadable, DIR locked by another run); problems
// with single resources are in the Report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	rep := &Report{Mode: o.Mode.String(), Source: o.Source, Dir: o.Dir}
	paths, err := NewMapper(o.Source, o.Maps, o.IndexName)
	if err != nil {
		return rep, err
	}
	f, err := newFetcher(&o)
	if err != nil {
		return rep, err
	}
	s := &syncer{o: &o, f: f, rep: rep, paths: paths, claims: map[string]string{}}
	if rel, err := filepath.Rel(o.Dir, o.StateFile); err == nil && filepath.IsLocal(rel) {
		s.stateRel = filepath.ToSlash(rel)
	}
	defer func() {
		rep.Requests, rep.BytesReceived = s.f.stats()
		rep.sortProblems()
	}()
	// Nothing is written before the Source is found.
	sets, err := s.discover(ctx)
	if err != nil {
		return rep, err
	}
	if s.m, err = openMirror(o.Dir); err != nil {
		return rep, fmt.Errorf("directory %s: %w", o.Dir, err)
	}
	defer s.m.close()
	if o.Mode == ModeAudit {
		return rep, s.audit(ctx, sets)
	}
	// One lock per directory, whatever the state file.
	unlock, err := lockFile(filepath.Join(o.Dir, lockFileName))
	if err != nil {
		return rep, err
	}
	defer unlock()
	if s.st, err = LoadState(o.StateFile, o.Source); err != nil {
		return rep, err
	}
	for u, r := range s.st.Resources {
		if r.Path != "" {
			s.claims[r.Path] = u
		}
	}
	var errs []error
	for _, set := range sets {
		if err := s.syncSet(ctx, set); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", set.url, err))
			if ctx.Err() != nil {
				break
			}
		}
	}
	// Saved even when interrupted: what was fetched is not fetched again.
	if err := s.saveState(); err != nil {
		errs = append(errs, fmt.Errorf("saving the state: %w", err))
	}
	return rep, errors.Join(errs...)
}

func (s *syncer) saveState() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Save(s.o.StateFile)
}

// syncSet synchronises one set of resources according to the mode.
func (s *syncer) syncSet(ctx context.Context, set *capSet) error {
	ss := s.st.set(set.url)
	sr := &SetReport{CapabilityList: set.url}
	defer func() {
		s.rep.mu.Lock()
		s.rep.Sets = append(s.rep.Sets, *sr)
		s.rep.mu.Unlock()
	}()
	hasChanges := set.has(rs.CapChangeList) || set.has(rs.CapChangeDump)
	switch {
	case s.o.Mode == ModeBaseline:
		return s.baseline(ctx, set, ss, sr)
	case s.o.Mode == ModeIncremental && !hasChanges:
		return errors.New("the Source offers neither a Change List nor a Change Dump for this set")
	case s.o.Mode == ModeAuto && (ss.Baseline == nil || !hasChanges):
		return s.baseline(ctx, set, ss, sr)
	}
	if ss.Baseline == nil && ss.Since == "" && len(ss.ChangeLists) == 0 && ss.ChangeDumpThrough == "" {
		s.rep.note(set.url + ": no baseline yet: applying every change published")
	}
	err := s.incremental(ctx, set, ss, sr)
	if errors.Is(err, errGap) {
		s.rep.note(fmt.Sprintf("%s: %v; making a new baseline", set.url, err))
		return s.baseline(ctx, set, ss, sr)
	}
	return err
}

// baseline makes a baseline from a Resource Dump (when preferred, or the
// only one offered) or a Resource List, then applies the changes
// published since the snapshot.
func (s *syncer) baseline(ctx context.Context, set *capSet, ss *SetState, sr *SetReport) error {
	switch {
	case set.has(rs.CapResourceDump) && (s.o.PreferDumps || !set.has(rs.CapResourceList)):
		return s.baselineFromDump(ctx, set, ss, sr)
	case set.has(rs.CapResourceList):
		return s.baselineFromList(ctx, set, ss, sr)
	}
	return errors.New("the Source offers neither a Resource List nor a Resource Dump for this set")
}

// incremental applies the changes since the last run from Change Dumps
// (when preferred, or the only changes offered) or Change Lists.
func (s *syncer) incremental(ctx context.Context, set *capSet, ss *SetState, sr *SetReport) error {
	if set.has(rs.CapChangeDump) && (s.o.PreferDumps || !set.has(rs.CapChangeList)) {
		if ss.ChangeDumpThrough != "" {
			return s.applyChangeDumps(ctx, set, ss, sr, ss.ChangeDumpThrough, true)
		}
		return s.applyChangeDumps(ctx, set, ss, sr, ss.Since, false)
	}
	plan, err := s.planChangeLists(ctx, set, ss, ss.Since, true)
	if err != nil {
		return err
	}
	return s.applyPlan(ctx, set, ss, sr, plan)
}

// item is a resource to bring up to date.
type item struct {
	url      string
	rel      string
	fix      Fixity
	lastmod  string
	datetime string
	typ      string
	set      string
}

// itemOf describes the resource of an entry; ok is false (and a problem
// reported) when its URI cannot be mirrored.
func (s *syncer) itemOf(base string, e *rs.Entry, set string) (item, bool) {
	loc := resolve(base, e.Loc)
	rel, err := s.paths.Path(loc)
	if err == nil {
		err = s.claim(loc, rel)
	}
	if err != nil {
		s.rep.problem(ProblemPath, loc, "", err.Error())
		s.rep.count(&s.rep.Failed)
		s.mu.Lock()
		s.unkept = append(s.unkept, AuditItem{URL: loc, Reason: "cannot be kept in the directory: " + err.Error()})
		s.mu.Unlock()
		return item{}, false
	}
	fix, notes := fixityOf(e.Md)
	for _, n := range notes {
		s.o.logf("%s: %s", loc, n)
	}
	it := item{url: loc, rel: rel, fix: fix, lastmod: strings.TrimSpace(e.Lastmod), set: set}
	if e.Md != nil {
		it.datetime = e.Md.Datetime
		it.typ = e.Md.Type
	}
	return it, true
}

// claim makes rel the file of URL u, unless another URL has it.
func (s *syncer) claim(u, rel string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if other, ok := s.claims[rel]; ok && other != u {
		return &PathError{u, "maps to the file " + rel + ", which is the copy of " + other + "; not kept"}
	}
	s.claims[rel] = u
	return nil
}

func (s *syncer) record(u string) *Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Resources[u]
}

func (s *syncer) setRecord(u string, r *Resource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r == nil {
		if old := s.st.Resources[u]; old != nil && s.claims[old.Path] == u {
			delete(s.claims, old.Path)
		}
		delete(s.st.Resources, u)
	} else {
		s.st.Resources[u] = r
	}
}

// upToDate says whether the copy of it is known to be current without a
// request: same digest as the Source gives, or (without a digest) the same
// lastmod; otherwise it returns the validators for a conditional GET.
func (s *syncer) upToDate(it item) (bool, conditional) {
	rec := s.record(it.url)
	size := s.m.size(it.rel)
	if rec != nil && rec.Path == it.rel && size == rec.Length {
		switch {
		case len(it.fix.Hashes) > 0:
			return it.fix.sameAs(rec.Length, rec.Hashes), conditional{}
		case it.fix.Length >= 0 && it.fix.Length != rec.Length:
			return false, conditional{}
		case it.lastmod != "" && rec.Lastmod != "" && !laterDT(it.lastmod, rec.Lastmod):
			return true, conditional{}
		}
		return false, conditional{etag: rec.ETag, lastModified: rec.LastModified}
	}
	if size >= 0 && len(it.fix.Hashes) > 0 && (rec == nil || rec.Path == it.rel) {
		// A copy without a record (the state was lost): adopt it when it
		// is the representation the Source describes.
		n, sums, err := s.m.hash(it.rel, it.fix.algs())
		if err == nil && it.fix.sameAs(n, sums) {
			s.setRecord(it.url, &Resource{Path: it.rel, Length: n, Hashes: sums, Type: it.typ,
				Lastmod: it.lastmod, Datetime: it.datetime, Set: it.set, Synced: time.Now().UTC()})
			return true, conditional{}
		}
	}
	return false, conditional{}
}

// syncResource brings one resource up to date. It returns an error only
// for failures that may go away (the network, the Source's 5xx); other
// problems are reported and return nil.
func (s *syncer) syncResource(ctx context.Context, it item) error {
	ok, cond := s.upToDate(it)
	if ok {
		s.touch(it)
		s.rep.count(&s.rep.Unchanged)
		return nil
	}
	return s.download(ctx, it, cond)
}

// touch refreshes the metadata of a record found up to date.
func (s *syncer) touch(it item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec := s.st.Resources[it.url]; rec != nil {
		if it.lastmod != "" {
			rec.Lastmod = it.lastmod
		}
		if laterDT(it.datetime, rec.Datetime) {
			rec.Datetime = it.datetime
		}
		rec.Set = it.set
	}
}

// download GETs a resource into DIR, checking fixity; a mismatch is
// reported and the resource requested once more; a second mismatch
// rejects it (discarded, or kept aside with KeepRejected).
func (s *syncer) download(ctx context.Context, it item, cond conditional) error {
	cond.identity = true
	for try := 0; ; try++ {
		var tmp string
		var n int64
		var sums map[string]string
		resp, err := s.f.get(ctx, it.url, cond, func(r io.Reader) error {
			var err error
			tmp, n, sums, err = s.spool(r, it.fix.algs(), s.o.MaxResourceBytes)
			return err
		})
		if err != nil {
			var he *HTTPError
			var le *limitError
			switch {
			case errors.As(err, &he) && he.Status < 500 && he.Status != 429 && he.Status != 408:
				s.rep.problem(ProblemFetch, it.url, it.rel, err.Error())
				s.rep.count(&s.rep.Failed)
				return nil
			case errors.As(err, &le):
				s.rep.problem(ProblemFetch, it.url, it.rel, err.Error())
				s.rep.count(&s.rep.Failed)
				return nil
			case ctx.Err() != nil:
				return ctx.Err()
			}
			s.rep.problem(ProblemFetch, it.url, it.rel, err.Error())
			s.rep.count(&s.rep.Failed)
			return err
		}
		if resp.status == 304 {
			s.mu.Lock()
			if rec := s.st.Resources[it.url]; rec != nil {
				if resp.etag != "" {
					rec.ETag = resp.etag
				}
				if it.lastmod != "" {
					rec.Lastmod = it.lastmod
				}
				rec.Set = it.set
			}
			s.mu.Unlock()
			s.rep.count(&s.rep.Unchanged)
			return nil
		}
		if ferr := it.fix.check(it.url, n, sums); ferr != nil {
			if try == 0 {
				s.o.logf("fixity mismatch, fetching again: %v", ferr)
				s.m.root.Remove(tmp)
				cond = conditional{identity: true}
				continue
			}
			s.reject(tmp, it.rel)
			s.rep.problem(ProblemFixity, it.url, it.rel, ferr.Error()+" (twice; not kept)")
			s.rep.count(&s.rep.Rejected)
			return nil
		}
		if err := s.m.install(tmp, it.rel); err != nil {
			s.m.root.Remove(tmp)
			s.rep.problem(ProblemLocal, it.url, it.rel, err.Error())
			s.rep.count(&s.rep.Failed)
			return nil
		}
		typ := it.typ
		if typ == "" {
			typ = resp.contentType
		}
		s.setRecord(it.url, &Resource{Path: it.rel, Length: n, Hashes: sums, Type: typ, Lastmod: it.lastmod,
			Datetime: it.datetime, ETag: resp.etag, LastModified: resp.lastModified, Set: it.set, Synced: time.Now().UTC()})
		s.rep.count(&s.rep.Fetched)
		return nil
	}
}

// reject discards a download that failed fixity, or keeps it aside.
func (s *syncer) reject(tmp, rel string) {
	if s.o.KeepRejected {
		if err := s.m.reject(tmp, rel); err == nil {
			return
		}
	}
	s.m.root.Remove(tmp)
}

// limitError is content larger than a limit.
type limitError struct {
	what  string
	limit int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %d bytes", e.what, e.limit)
}

// readErr marks errors of the reader (as opposed to the local file).
type readErr struct{ err error }

func (r readErr) Error() string { return r.err.Error() }
func (r readErr) Unwrap() error { return r.err }

type taggedReader struct{ r io.Reader }

func (t taggedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		err = readErr{err}
	}
	return n, err
}

// spool copies r into a new temporary file in DIR, hashing it, up to
// limit bytes. Read errors are retryable.
func (s *syncer) spool(r io.Reader, algs []string, limit int64) (tmp string, n int64, sums map[string]string, err error) {
	f, name, err := s.m.tempFile()
	if err != nil {
		return "", 0, nil, err
	}
	d := rs.NewDigester(algs...)
	_, err = io.Copy(io.MultiWriter(f, d), taggedReader{io.LimitReader(r, limit+1)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && d.N > limit {
		err = &limitError{what: "the content", limit: limit}
	}
	if err != nil {
		s.m.root.Remove(name)
		var re readErr
		if errors.As(err, &re) {
			return "", 0, nil, sourcehttp.Retry(re.err)
		}
		return "", 0, nil, err
	}
	return name, d.N, d.Sums(), nil
}

// deleteResource removes the copy of a resource the Source deleted.
func (s *syncer) deleteResource(u, rel string) {
	if rec := s.record(u); rec != nil && rec.Path != "" {
		rel = rec.Path
	}
	if rel == "" {
		return
	}
	existed := s.m.size(rel) >= 0
	if err := s.m.remove(rel); err != nil {
		s.rep.problem(ProblemLocal, u, rel, "removing: "+err.Error())
		return
	}
	s.setRecord(u, nil)
	if existed {
		s.rep.count(&s.rep.Deleted)
	}
}

// task is one unit of work of a pool.
type task func(ctx context.Context) error

// runTasks runs tasks with the configured concurrency and returns the
// number that failed with an error (failures that may go away).
func (s *syncer) runTasks(ctx context.Context, tasks []task) (int, error) {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	next := make(chan task)
	for w := 0; w < min(s.o.HTTP.Concurrency, max(len(tasks), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				if err := t(ctx); err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		next <- t
	}
	close(next)
	wg.Wait()
	return failed, ctx.Err()
}

// removeMissing deletes the copies of resources of the set that a
// complete snapshot no longer lists.
func (s *syncer) removeMissing(set string, keep map[string]bool) {
	s.mu.Lock()
	var gone []string
	for u, rec := range s.st.Resources {
		if rec.Set == set && !keep[u] {
			gone = append(gone, u)
		}
	}
	s.mu.Unlock()
	sort.Strings(gone)
	for _, u := range gone {
		s.deleteResource(u, "")
	}
}

// parseDT parses a W3C Datetime; ok is false when it is absent or invalid.
func parseDT(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	d, err := rs.ParseDatetime(v)
	if err != nil {
		return time.Time{}, false
	}
	return d.Time, true
}

// laterDT reports whether a is a datetime after b (false when either is
// absent or invalid, except a valid a against an absent b).
func laterDT(a, b string) bool {
	ta, okA := parseDT(a)
	tb, okB := parseDT(b)
	switch {
	case !okA:
		return false
	case !okB:
		return true
	}
	return ta.After(tb)
}
