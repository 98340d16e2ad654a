package mocksource

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
)

// Options configure a Source. Zero values take the scenario's settings.
type Options struct {
	// Scenario to play; nil plays the built-in "baseline-resourcelist".
	Scenario *scenario.Scenario
	// Resources overrides the scenario's initial number of resources
	// when positive.
	Resources int
	// Seed overrides the scenario's seed when not zero.
	Seed int64
	// BaseURL is the scheme and authority (and optional path prefix)
	// every URI in the documents starts with, e.g. http://127.0.0.1:8080.
	// Empty: taken from each request's Host, so httptest servers work.
	BaseURL string
	// MaxEntries is the number of entries per document before an index is
	// used; it overrides the scenario; default 50,000 (Sitemap limit).
	MaxEntries int
	// PackageSize overrides the scenario's resources per Resource Dump
	// package when positive.
	PackageSize int
	// IgnoreFaults serves every request as if no transport fault were
	// armed (wrong-hash, which changes documents, still applies): for
	// checking the documents the scenario means to serve.
	IgnoreFaults bool
	// LogSize is the number of requests the log keeps (default 10,000).
	LogSize int
	// CacheBytes bounds the rendered documents and packages kept in
	// memory (default 256 MiB).
	CacheBytes int64
	// Realtime, when positive, turns on real-time mode (realtime.go):
	// the scenario's steps are played at once, then one resource changes
	// every Realtime of Clock while clients crawl.
	Realtime time.Duration
	// Clock is the time in real-time mode; nil is time.Now. Tests inject
	// one to decide when changes happen without waiting.
	Clock Clock
	// Sleep waits out the latency faults; nil waits in real time. A test
	// gives the mock the Sleep of the clock its client waits on (a
	// sourcehttp.StepClock): a delay then moves that clock on instead of
	// holding the request, and the client's Retry-After waits are on the
	// same clock, so a scenario's fault timings cost no real time.
	Sleep func(ctx context.Context, d time.Duration) error
	// LastmodOnly serves the Source most Sources are: Change List (and
	// Change Dump Manifest) entries carry <lastmod> but no datetime (both
	// optional in 1.1), and resources are served without Last-Modified.
	// A deletion then carries no time at all; a client has the order of
	// the entries and the lists' from and until to go by.
	LastmodOnly bool
}

// Source is a ResourceSync Source played from a scenario. It is safe for
// concurrent use: steps take a write lock, requests a read lock.
type Source struct {
	opts Options
	sc   *scenario.Scenario
	mu   sync.RWMutex
	w    *world
	base atomic.Pointer[string]
	// base2 is the second origin's base URL (SetOrigin2URL), "" when the
	// Source has one origin.
	base2 atomic.Pointer[string]
	clock atomic.Int64 // virtual now, Unix nanoseconds, for the log
	cache *docCache
	log   *requestLog
	hosts atomic.Pointer[hostBase]
	// rt is set in real-time mode; rtNext mirrors rt.next (Unix
	// nanoseconds) so that a request with no tick due takes no lock.
	rt     *realtime
	rtNext atomic.Int64
}

// StepInfo says where the scenario stands.
type StepInfo struct {
	// Step is the number of steps played; Steps the scenario's total.
	Step  int       `json:"step"`
	Steps int       `json:"steps"`
	Time  time.Time `json:"time"`
	Name  string    `json:"name,omitempty"`
	// Changes is the number of resource changes the step made.
	Changes int `json:"changes"`
	// Done is true when no step is left.
	Done bool `json:"done"`
	// Expect is set when the step is a checkpoint.
	Expect *scenario.Expect `json:"expect,omitempty"`
}

// ExpectedResource is what a synchronised Destination holds for a path.
type ExpectedResource struct {
	SHA256 string `json:"sha256"`
	Length int    `json:"length"`
	Type   string `json:"type"`
	// ListedSHA256 is the SHA-256 the Source's lists give when a
	// wrong-hash fault covers the resource (it is not SHA256); "" when
	// the lists give SHA256.
	ListedSHA256 string `json:"listed_sha256,omitempty"`
}

// ErrFinished is returned by Step when the scenario has no step left.
var ErrFinished = errors.New("mocksource: the scenario has no step left")

// New builds a Source at the start of its scenario. It plays the whole
// scenario once on a throwaway state first, so that a step that cannot
// run (updating a path that does not exist, a failed expectation) is an
// error now, with its line, rather than in the middle of a run.
func New(opts Options) (*Source, error) {
	sc := opts.Scenario
	if sc == nil {
		var err error
		if sc, err = scenario.Load("baseline-resourcelist"); err != nil {
			return nil, err
		}
	}
	cfg := worldConfig{seed: sc.Seed, start: sc.Start.UTC(), resources: sc.Resources, types: sc.Types,
		maxEntries: rs.DefaultMaxEntries, pkgSize: sc.PackageSize, retainCL: sc.RetainChangeLists,
		retainCD: sc.RetainChangeDumps, deletedStatus: sc.DeletedStatus, rdAtStart: sc.ResourceDumpAtStart}
	if opts.Resources > 0 {
		cfg.resources = opts.Resources
	}
	if opts.Seed != 0 {
		cfg.seed = opts.Seed
	}
	if sc.MaxEntries > 0 {
		cfg.maxEntries = sc.MaxEntries
	}
	if opts.MaxEntries > 0 {
		cfg.maxEntries = opts.MaxEntries
	}
	if opts.PackageSize > 0 {
		cfg.pkgSize = opts.PackageSize
	}
	if cfg.pkgSize <= 0 {
		cfg.pkgSize = scenario.DefaultPackageSize
	}
	// A Resource Dump Manifest lists a package and has no index.
	cfg.pkgSize = min(cfg.pkgSize, cfg.maxEntries)
	if len(cfg.types) == 0 {
		cfg.types = scenario.DefaultTypes
	}
	if cfg.deletedStatus == 0 {
		cfg.deletedStatus = 404
	}
	if cfg.start.IsZero() {
		cfg.start = scenario.DefaultStart
	}
	file := sc.File
	if file == "" {
		file = sc.Name
	}
	mc := newMetaCache(cfg.resources)
	dry := newWorld(cfg, mc)
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if i > 0 && st.At.Before(sc.Steps[i-1].At) || st.At.Before(cfg.start) {
			return nil, &scenario.Error{File: file, Line: st.Line, Msg: fmt.Sprintf("step %d goes back in time", i+1)}
		}
		if err := dry.runStep(st, file); err != nil {
			return nil, err
		}
		if err := dry.checkExpect(st.Expect, file, cfg.resources-sc.Resources); err != nil {
			return nil, err
		}
	}
	s := &Source{opts: opts, sc: sc, w: newWorld(cfg, mc)}
	mc.w = s.w
	s.clock.Store(cfg.start.UnixNano())
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = 256 << 20
	}
	s.cache = newDocCache(opts.CacheBytes)
	if opts.LogSize <= 0 {
		opts.LogSize = 10000
	}
	s.log = newRequestLog(opts.LogSize)
	s.SetBaseURL(opts.BaseURL)
	s.SetOrigin2URL("")
	if err := s.startRealtime(); err != nil {
		return nil, err
	}
	return s, nil
}

// Scenario is the scenario the Source plays.
func (s *Source) Scenario() *scenario.Scenario { return s.sc }

// SetBaseURL sets the base of every URI the Source writes (for a
// listener whose address is known only once it started); "" derives it
// from each request's Host.
func (s *Source) SetBaseURL(u string) {
	u = strings.TrimRight(u, "/")
	s.base.Store(&u)
}

// SetOrigin2URL sets the base URL of the Source's second origin (a
// second listener, another port of the same host), where the resources
// under scenario.Origin2Prefix are served; "" for none.
func (s *Source) SetOrigin2URL(u string) {
	u = strings.TrimRight(u, "/")
	s.base2.Store(&u)
}

// Origin2URL is the second origin's base URL, "" when there is none.
func (s *Source) Origin2URL() string { return *s.base2.Load() }

// Now is the virtual time.
func (s *Source) Now() time.Time { return time.Unix(0, s.clock.Load()).UTC() }

// Info says where the scenario stands, without stepping.
func (s *Source) Info() StepInfo {
	s.catchUp()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.info(0)
}

func (s *Source) info(changes int) StepInfo {
	w := s.w
	in := StepInfo{Step: w.step, Steps: len(s.sc.Steps), Time: w.now, Changes: changes, Done: w.step >= len(s.sc.Steps)}
	if w.step > 0 {
		st := &s.sc.Steps[w.step-1]
		in.Name, in.Expect = st.Name, st.Expect
	}
	return in
}

// ArmedFaults are the faults armed after the steps played so far, in the
// order they were armed, those with Times spent among them: the Source's
// own answer (a clear-faults step disarms them), not a replay of the
// scenario. With IgnoreFaults the transport faults among them are armed
// but not served.
func (s *Source) ArmedFaults() []*scenario.Fault {
	s.catchUp()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*scenario.Fault, len(s.w.faults))
	for i, f := range s.w.faults {
		out[i] = f.Fault
	}
	return out
}

// Step plays the next step. It returns ErrFinished when none is left.
func (s *Source) Step() (StepInfo, error) {
	s.catchUp()
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.w
	if w.step >= len(s.sc.Steps) {
		return s.info(0), ErrFinished
	}
	before := len(w.changes)
	file := s.sc.File
	if file == "" {
		file = s.sc.Name
	}
	if err := w.runStep(&s.sc.Steps[w.step], file); err != nil {
		// The dry run in New makes this unreachable for a scenario that
		// was not changed since.
		return s.info(0), err
	}
	s.clock.Store(w.now.UnixNano())
	return s.info(len(w.changes) - before), nil
}

// PlayToEnd plays every step left, so that every document the scenario
// publishes exists.
func (s *Source) PlayToEnd() error {
	for {
		if _, err := s.Step(); err != nil {
			if errors.Is(err, ErrFinished) {
				return nil
			}
			return err
		}
	}
}

// AutoAdvance plays a step every interval of real time until the
// scenario is finished (it then returns nil) or ctx is done.
func (s *Source) AutoAdvance(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return fmt.Errorf("mocksource: auto-advance interval must be positive, not %v", every)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if _, err := s.Step(); err != nil {
				if errors.Is(err, ErrFinished) {
					return nil
				}
				return err
			}
		}
	}
}

// Expected is the state a Destination holds once synchronised with the
// Source as it is now: every live resource by path.
func (s *Source) Expected() map[string]ExpectedResource {
	out := map[string]ExpectedResource{}
	s.eachExpected(func(path string, e ExpectedResource) { out[path] = e }, nil)
	return out
}

// eachExpected calls fn for every live resource in id order, under one
// read lock; in, when not nil, receives the step the state belongs to.
func (s *Source) eachExpected(fn func(path string, e ExpectedResource), in *StepInfo) {
	s.catchUp()
	s.mu.RLock()
	defer s.mu.RUnlock()
	w := s.w
	if in != nil {
		*in = s.info(0)
	}
	for id := int32(0); id < w.total; id++ {
		vi := w.current(id)
		if vi.deleted {
			continue
		}
		m := w.meta(vi)
		e := ExpectedResource{SHA256: hex.EncodeToString(m.sha256[:]), Length: m.length, Type: vi.typ}
		if w.wrongHash(vi.path) {
			e.ListedSHA256 = m.wrongSHA256()
		}
		fn(scenario.URIKey(vi.path), e)
	}
}

// Log returns the requests served, oldest first (at most Options.LogSize).
func (s *Source) Log() []Request { return s.log.since(0) }

// LogSince returns the requests served after the one numbered seq, oldest
// first (those the log still keeps: at most Options.LogSize). The first
// one's Seq tells how many were lost: Seq-seq-1.
func (s *Source) LogSince(seq int64) []Request { return s.log.since(seq) }
