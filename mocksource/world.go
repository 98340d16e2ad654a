package mocksource

import (
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

// The world is the Source's state: resources, the change log, published
// snapshots and change series, and armed faults. It is only ever changed
// by a step (under the Source's write lock) and is otherwise read-only,
// so HTTP handlers read it under a read lock.
//
// Initial resources cost nothing until touched: resource i has the path
// /res/NNNNNNN.ext, a media type taken from the scenario's list in turn,
// a last modification before the start, and version 1; its body and
// hashes are computed on demand. Only touched and created resources have
// a record (with their history of versions).

type changeKind uint8

const (
	chCreated changeKind = iota + 1
	chUpdated
	chDeleted
)

func (k changeKind) String() string {
	switch k {
	case chCreated:
		return "created"
	case chUpdated:
		return "updated"
	case chDeleted:
		return "deleted"
	}
	return "invalid"
}

// version is one state of a resource; deleted versions have no body.
type version struct {
	n       int // version number, from 1; a deletion keeps the number
	seq     int // index of the change that made it; -1 for an initial resource
	at      time.Time
	typ     string
	deleted bool
	key     uint64
	meta    atomic.Pointer[meta]
}

type resource struct {
	path     string
	versions []*version // in change order
	// size is the body length given at creation (Action.Size); 0 draws
	// each version's from its key.
	size int
}

type change struct {
	at   time.Time
	id   int32
	kind changeKind
	v    *version
}

// snapshot is a published Resource List or Resource Dump: the state after
// the first seq changes.
type snapshot struct {
	n     int // 1-based
	at    time.Time
	seq   int
	ids   []int32 // live resources in id order; nil means 0..count-1
	count int
}

func (s *snapshot) id(i int) int32 {
	if s.ids == nil {
		return int32(i)
	}
	return s.ids[i]
}

// segment is one Change List or Change Dump: changes (or packages) lo..hi.
type segment struct {
	n      int // 1-based
	from   time.Time
	until  time.Time
	closed bool
	lo, hi int
}

type series struct {
	segs   []*segment
	retain int
}

func (s *series) open() *segment { return s.segs[len(s.segs)-1] }

func (s *series) closeOpen(now time.Time) {
	o := s.open()
	o.closed, o.until = true, now
	s.segs = append(s.segs, &segment{n: o.n + 1, from: now, lo: o.hi, hi: o.hi})
}

// visible are the segments the current document (or its index) shows.
func (s *series) visible(maxEntries int) []*segment {
	k := s.retain
	if k <= 0 || k > len(s.segs) {
		k = len(s.segs)
	}
	if k > maxEntries {
		k = maxEntries
	}
	return s.segs[len(s.segs)-k:]
}

func (s *series) closed() []*segment { return s.segs[:len(s.segs)-1] }

// cdPackage is a Change Dump package: changes lo..hi.
type cdPackage struct {
	n           int
	from, until time.Time
	lo, hi      int
}

// Document families, for caching: a document is rendered again only when
// the version of its family changed.
const (
	famDesc = iota // Source Description, Capability List
	famRL
	famRD
	famCL
	famCD
	famStatic
	numFamilies
)

type world struct {
	seed          int64
	start         time.Time
	initial       int
	types         []string
	maxEntries    int
	pkgSize       int
	deletedStatus int
	mc            *metaCache

	now  time.Time
	step int // steps done

	res    map[int32]*resource
	byPath map[string]int32
	total  int32
	alive  int

	changes []change
	rl, rd  []*snapshot
	cl, cd  series
	pkgs    []*cdPackage
	cdSeq   int
	cdFrom  time.Time

	faults []*armedFault
	fam    [numFamilies]uint64
}

type armedFault struct {
	*scenario.Fault
	left atomic.Int64
}

// fire reports whether the fault applies to one more request.
func (f *armedFault) fire() bool {
	if f.Times == 0 {
		return true
	}
	for {
		n := f.left.Load()
		if n <= 0 {
			return false
		}
		if f.left.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

type worldConfig struct {
	seed          int64
	start         time.Time
	resources     int
	types         []string
	maxEntries    int
	pkgSize       int
	retainCL      int
	retainCD      int
	deletedStatus int
	rdAtStart     bool // Scenario.ResourceDumpAtStart
}

func newWorld(c worldConfig, mc *metaCache) *world {
	w := &world{seed: c.seed, start: c.start, initial: c.resources, types: c.types,
		maxEntries: c.maxEntries, pkgSize: c.pkgSize, deletedStatus: c.deletedStatus, mc: mc,
		now: c.start, res: map[int32]*resource{}, byPath: map[string]int32{},
		total: int32(c.resources), alive: c.resources, cdFrom: c.start}
	w.cl = series{segs: []*segment{{n: 1, from: c.start}}, retain: c.retainCL}
	w.cd = series{segs: []*segment{{n: 1, from: c.start}}, retain: c.retainCD}
	w.rl = append(w.rl, w.takeSnapshot(1))
	if c.rdAtStart {
		w.rd = append(w.rd, w.takeSnapshot(1))
	}
	return w
}

func (w *world) bump(fams ...int) {
	for _, f := range fams {
		w.fam[f]++
	}
}

// Initial resources.

func pad7(b []byte, n int) []byte {
	s := strconv.Itoa(n)
	for i := len(s); i < 7; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func (w *world) initialType(id int32) string { return w.types[int(id)%len(w.types)] }

func (w *world) initialPath(id int32) string {
	var b [32]byte
	p := append(b[:0], "/res/"...)
	p = pad7(p, int(id))
	p = append(p, scenario.ExtFor(w.initialType(id))...)
	return string(p)
}

func (w *world) initialLastmod(id int32) time.Time {
	back := 1 + mix64(uint64(w.seed)^uint64(id)<<1)%(365*86400)
	return w.start.Add(-time.Duration(back) * time.Second)
}

// vinfo is a resource version as lists need it.
type vinfo struct {
	id      int32
	path    string
	n       int
	at      time.Time
	typ     string
	deleted bool
	key     uint64
	v       *version // nil for an untouched initial resource
	size    int      // the resource's body length, 0: drawn from key
}

func (w *world) initialVinfo(id int32) vinfo {
	p := w.initialPath(id)
	return vinfo{id: id, path: p, n: 1, at: w.initialLastmod(id), typ: w.initialType(id),
		key: contentKey(w.seed, p, 1)}
}

func (w *world) vinfoOf(id int32, path string, v *version) vinfo {
	vi := vinfo{id: id, path: path, n: v.n, at: v.at, typ: v.typ, deleted: v.deleted, key: v.key, v: v}
	if r := w.res[id]; r != nil {
		vi.size = r.size
	}
	return vi
}

// lookup finds the id of a path, live or deleted.
func (w *world) lookup(p string) (int32, bool) {
	if id, ok := w.byPath[scenario.URIKey(p)]; ok {
		return id, true
	}
	const prefix = "/res/"
	if len(p) < len(prefix)+7 || p[:len(prefix)] != prefix {
		return 0, false
	}
	n := 0
	i := len(prefix)
	for ; i < len(p) && p[i] >= '0' && p[i] <= '9'; i++ {
		n = n*10 + int(p[i]-'0')
		if n > 1<<30 {
			return 0, false
		}
	}
	if n >= w.initial || i-len(prefix) < 7 {
		return 0, false
	}
	id := int32(n)
	if w.initialPath(id) != p {
		return 0, false
	}
	return id, true
}

// current is the latest version of a resource.
func (w *world) current(id int32) vinfo {
	if r := w.res[id]; r != nil {
		return w.vinfoOf(id, r.path, r.versions[len(r.versions)-1])
	}
	return w.initialVinfo(id)
}

// versionAt is the version of a resource after the first seq changes;
// ok is false when the resource did not exist yet.
func (w *world) versionAt(id int32, seq int) (vinfo, bool) {
	r := w.res[id]
	if r == nil {
		return w.initialVinfo(id), int(id) < w.initial
	}
	i := sort.Search(len(r.versions), func(i int) bool { return r.versions[i].seq >= seq }) - 1
	if i < 0 {
		return vinfo{}, false
	}
	return w.vinfoOf(id, r.path, r.versions[i]), true
}

func (w *world) isAlive(id int32) bool {
	if r := w.res[id]; r != nil {
		return !r.versions[len(r.versions)-1].deleted
	}
	return int(id) < w.initial
}

// meta returns length and hashes of a version, computing them once.
func (w *world) meta(vi vinfo) *meta {
	if vi.v == nil || (vi.v.seq < 0 && int(vi.id) < w.initial) {
		return w.mc.initial(vi.id)
	}
	if m := vi.v.meta.Load(); m != nil {
		return m
	}
	m := computeMeta(vi.key, vi.path, vi.n, vi.typ, vi.size)
	vi.v.meta.Store(m)
	return m
}

// touch gives an initial resource a record.
func (w *world) touch(id int32) *resource {
	if r := w.res[id]; r != nil {
		return r
	}
	vi := w.initialVinfo(id)
	r := &resource{path: vi.path, versions: []*version{{n: 1, seq: -1, at: vi.at, typ: vi.typ, key: vi.key}}}
	w.res[id] = r
	return r
}

func (w *world) record(id int32, kind changeKind, v *version) {
	o := w.cl.open()
	if o.hi-o.lo >= w.maxEntries {
		// A Change List may not exceed the entry limit: roll over.
		w.cl.closeOpen(w.now)
		w.bump(famDesc)
	}
	v.seq = len(w.changes)
	w.changes = append(w.changes, change{at: w.now, id: id, kind: kind, v: v})
	w.cl.open().hi = len(w.changes)
	w.bump(famCL)
}

func (w *world) create(p, typ string, size int) error {
	id, exists := w.lookup(p)
	if exists {
		if w.isAlive(id) {
			return fmt.Errorf("%s already exists", p)
		}
		r := w.touch(id)
		last := r.versions[len(r.versions)-1]
		if typ == "" {
			typ = last.typ
		}
		v := &version{n: last.n + 1, at: w.now, typ: typ, key: contentKey(w.seed, p, last.n+1)}
		r.versions = append(r.versions, v)
		w.alive++
		w.record(id, chCreated, v)
		return nil
	}
	if typ == "" {
		typ = scenario.TypeForPath(p)
	}
	id = w.total
	w.total++
	v := &version{n: 1, at: w.now, typ: typ, key: contentKey(w.seed, p, 1)}
	w.res[id] = &resource{path: p, versions: []*version{v}, size: size}
	w.byPath[scenario.URIKey(p)] = id
	w.alive++
	w.record(id, chCreated, v)
	return nil
}

func (w *world) update(id int32) {
	r := w.touch(id)
	last := r.versions[len(r.versions)-1]
	v := &version{n: last.n + 1, at: w.now, typ: last.typ, key: contentKey(w.seed, r.path, last.n+1)}
	r.versions = append(r.versions, v)
	w.record(id, chUpdated, v)
}

func (w *world) remove(id int32) {
	r := w.touch(id)
	last := r.versions[len(r.versions)-1]
	v := &version{n: last.n, at: w.now, typ: last.typ, deleted: true, key: last.key}
	r.versions = append(r.versions, v)
	w.alive--
	w.record(id, chDeleted, v)
}

// pick chooses count distinct live resources from the seed and salt.
func (w *world) pick(count int, salt uint64) ([]int32, error) {
	if count > w.alive {
		return nil, fmt.Errorf("only %d resources are live, cannot choose %d", w.alive, count)
	}
	x := mix64(uint64(w.seed) ^ salt*0x9e3779b97f4a7c15)
	var out []int32
	if count*2 > w.alive {
		all := make([]int32, 0, w.alive)
		for id := int32(0); id < w.total; id++ {
			if w.isAlive(id) {
				all = append(all, id)
			}
		}
		for i := 0; i < count; i++ {
			x = mix64(x)
			j := i + int(x%uint64(len(all)-i))
			all[i], all[j] = all[j], all[i]
		}
		out = all[:count]
	} else {
		chosen := make(map[int32]bool, count)
		for len(out) < count {
			x = mix64(x)
			id := int32(x % uint64(w.total))
			if !chosen[id] && w.isAlive(id) {
				chosen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (w *world) takeSnapshot(n int) *snapshot {
	s := &snapshot{n: n, at: w.now, seq: len(w.changes), count: w.alive}
	if w.alive != int(w.total) {
		s.ids = make([]int32, 0, w.alive)
		for id := int32(0); id < w.total; id++ {
			if w.isAlive(id) {
				s.ids = append(s.ids, id)
			}
		}
	}
	return s
}

// apply runs one action; errors say what is wrong, the caller adds where.
func (w *world) apply(a *scenario.Action, salt uint64) error {
	switch a.Op {
	case scenario.OpCreate:
		if a.Path != "" {
			return w.create(a.Path, a.Type, a.Size)
		}
		for i := 0; i < a.Count; i++ {
			typ := a.Type
			if typ == "" {
				typ = w.types[int(w.total)%len(w.types)]
			}
			var b [40]byte
			p := append(b[:0], "/res/c"...)
			p = pad7(p, int(w.total))
			p = append(p, scenario.ExtFor(typ)...)
			if err := w.create(string(p), typ, a.Size); err != nil {
				return err
			}
		}
	case scenario.OpUpdate, scenario.OpDelete:
		var ids []int32
		if a.Path != "" {
			id, ok := w.lookup(a.Path)
			if !ok {
				return fmt.Errorf("%s: no resource %s", a.Op, a.Path)
			}
			if !w.isAlive(id) {
				return fmt.Errorf("%s: %s is deleted", a.Op, a.Path)
			}
			ids = []int32{id}
		} else {
			var err error
			if ids, err = w.pick(a.Count, salt); err != nil {
				return fmt.Errorf("%s: %w", a.Op, err)
			}
		}
		for _, id := range ids {
			if a.Op == scenario.OpUpdate {
				w.update(id)
			} else {
				w.remove(id)
			}
		}
	case scenario.OpPublishResourceList:
		w.rl = append(w.rl, w.takeSnapshot(len(w.rl)+1))
		w.bump(famRL, famDesc)
	case scenario.OpPublishResourceDump:
		w.rd = append(w.rd, w.takeSnapshot(len(w.rd)+1))
		w.bump(famRD, famDesc)
	case scenario.OpCloseChangeList:
		w.cl.closeOpen(w.now)
		w.bump(famCL, famDesc)
	case scenario.OpPublishChangeDump:
		// One package per maxEntries changes (a manifest has no index).
		// Intervals are contiguous: a package ends where the next one's
		// first change is, the last one now.
		for w.cdSeq < len(w.changes) {
			if o := w.cd.open(); o.hi-o.lo >= w.maxEntries {
				w.cd.closeOpen(w.cdFrom)
			}
			lo, hi := w.cdSeq, min(w.cdSeq+w.maxEntries, len(w.changes))
			until := w.now
			if hi < len(w.changes) {
				until = w.changes[hi].at
			}
			w.pkgs = append(w.pkgs, &cdPackage{n: len(w.pkgs) + 1, from: w.cdFrom, until: until, lo: lo, hi: hi})
			w.cdSeq, w.cdFrom = hi, until
			w.cd.open().hi = len(w.pkgs)
			w.bump(famCD, famDesc)
		}
	case scenario.OpCloseChangeDump:
		if o := w.cd.open(); o.hi == o.lo {
			return fmt.Errorf("close-changedump: the open Change Dump has no package yet (publish-changedump first)")
		}
		// The closed Change Dump covers what its packages cover; changes
		// not packaged yet go to the next one.
		w.cd.closeOpen(w.cdFrom)
		w.bump(famCD, famDesc)
	case scenario.OpFault:
		f := &armedFault{Fault: a.Fault}
		f.left.Store(int64(a.Fault.Times))
		faults := append(append([]*armedFault(nil), w.faults...), f)
		w.faults = faults
		if a.Fault.WrongHash || a.Fault.WrongUp || a.Fault.WrongIndex {
			w.bump(famDesc, famRL, famRD, famCL, famCD)
		}
	case scenario.OpClearFaults:
		var kept []*armedFault
		wrong := false
		for _, f := range w.faults {
			if a.Match == "" || f.Match == a.Match {
				wrong = wrong || f.WrongHash || f.WrongUp || f.WrongIndex
				continue
			}
			kept = append(kept, f)
		}
		w.faults = kept
		if wrong {
			w.bump(famDesc, famRL, famRD, famCL, famCD)
		}
	default:
		return fmt.Errorf("unknown action %q", a.Op)
	}
	return nil
}

// runStep advances the clock to the step and applies its actions.
func (w *world) runStep(st *scenario.Step, file string) error {
	w.now = st.At
	for i := range st.Actions {
		a := &st.Actions[i]
		salt := uint64(w.step+1)<<20 | uint64(i)
		if err := w.apply(a, salt); err != nil {
			return &scenario.Error{File: file, Line: a.Line, Msg: err.Error()}
		}
	}
	w.step++
	return nil
}

// checkExpect checks a step's expectations against the state. delta is
// how many more initial resources the Source has than the scenario says
// (Options.Resources), by which the expected count shifts.
func (w *world) checkExpect(e *scenario.Expect, file string, delta int) error {
	if e == nil {
		return nil
	}
	fail := func(format string, args ...any) error {
		return &scenario.Error{File: file, Line: e.Line, Msg: "expect: " + fmt.Sprintf(format, args...)}
	}
	if e.Resources != nil && *e.Resources+delta != w.alive {
		return fail("%d resources expected, the Source has %d", *e.Resources+delta, w.alive)
	}
	for _, p := range e.Present {
		if id, ok := w.lookup(p); !ok || !w.isAlive(id) {
			return fail("%s should be present but is not", p)
		}
	}
	for _, p := range e.Absent {
		if id, ok := w.lookup(p); ok && w.isAlive(id) {
			return fail("%s should be absent but is present", p)
		}
	}
	return nil
}

// wrongUp reports whether a wrong-up fault covers the path ("" : whether
// any is armed, so that the second Capability List exists).
func (w *world) wrongUp(p string) bool {
	for _, f := range w.faults {
		if f.WrongUp && (p == "" || f.Matches(p)) {
			return true
		}
	}
	return false
}

// wrongIndex reports whether a wrong-index fault covers the path.
func (w *world) wrongIndex(p string) bool {
	for _, f := range w.faults {
		if f.WrongIndex && f.Matches(p) {
			return true
		}
	}
	return false
}

// wrongHash reports whether a wrong-hash fault covers the path.
func (w *world) wrongHash(p string) bool {
	for _, f := range w.faults {
		if f.WrongHash && f.Matches(p) {
			return true
		}
	}
	return false
}

// metaCache holds length and hashes of the initial version of initial
// resources, computed a chunk at a time on first use; nothing is
// allocated for chunks never asked for.
type metaCache struct {
	n      int
	chunks []atomic.Pointer[[metaChunk]meta]
	// w gives paths, types and keys of initial resources: only the
	// fields set at construction, never changed, are read.
	w *world
}

const metaChunk = 1024

func newMetaCache(n int) *metaCache {
	return &metaCache{n: n, chunks: make([]atomic.Pointer[[metaChunk]meta], (n+metaChunk-1)/metaChunk)}
}

func (mc *metaCache) initial(id int32) *meta {
	c := int(id) / metaChunk
	if ch := mc.chunks[c].Load(); ch != nil {
		return &ch[int(id)%metaChunk]
	}
	ch := new([metaChunk]meta)
	for i := 0; i < metaChunk; i++ {
		rid := int32(c*metaChunk + i)
		if int(rid) >= mc.n {
			break
		}
		vi := mc.w.initialVinfo(rid)
		ch[i] = *computeMeta(vi.key, vi.path, 1, vi.typ, 0)
	}
	if !mc.chunks[c].CompareAndSwap(nil, ch) {
		ch = mc.chunks[c].Load()
	}
	return &ch[int(id)%metaChunk]
}
