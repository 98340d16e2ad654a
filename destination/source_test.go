package destination_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/discovery"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// testSource is a small ResourceSync Source under the tests' control:
// resources in memory, a Resource List, an open Change List (optionally
// closed into an index), a Resource Dump of one or more packages, and a
// log of requests.
type testSource struct {
	mu  sync.Mutex
	srv *httptest.Server
	now time.Time

	res     map[string][]byte // path -> content
	lastmod map[string]time.Time
	changes []srcChange
	closed  []closedList // closed Change Lists
	open    time.Time    // from of the open Change List

	// What the documents offer.
	listAt      time.Time
	noHash      bool // Resource List without hash and length
	noLastmod   bool
	wrongHash   map[string]bool
	maxEntries  int  // entries per Resource List before an index
	dump        bool // offer a Resource Dump
	pkgSize     int
	pkgOverride func(n int, members []zipMember) []zipMember // tamper with package n
	noChanges   bool                                         // no Change List
	retain      int                                          // closed Change Lists the index keeps (0: all)
	extraLocs   []string                                     // raw <loc>s added to the Resource List

	// hook, when set, may answer a request itself (return true).
	hook func(w http.ResponseWriter, r *http.Request) bool
	log  []logged
}

type srcChange struct {
	path string
	kind string
	at   time.Time
	body []byte // nil for deleted
}

type closedList struct {
	from, until time.Time
	changes     []srcChange
}

type logged struct {
	at     time.Time
	method string
	path   string
	status int
	inm    string
	ims    string
	ua     string
}

type zipMember struct {
	name    string
	body    []byte
	symlink bool
	method  uint16
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newTestSource(n int) *testSource {
	s := &testSource{now: t0, res: map[string][]byte{}, lastmod: map[string]time.Time{},
		wrongHash: map[string]bool{}, pkgSize: 1000, open: t0, listAt: t0}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("/res/%03d.txt", i)
		s.res[p] = body(p, 1)
		s.lastmod[p] = t0.Add(-time.Hour)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	DeferCleanup(s.srv.Close)
	return s
}

func body(p string, version int) []byte {
	return []byte(fmt.Sprintf("resource %s version %d\n%s", p, version, strings.Repeat("x", version*7%50)))
}

func (s *testSource) url(p string) string { return s.srv.URL + p }

// tick advances the clock.
func (s *testSource) tick() time.Time {
	s.now = s.now.Add(time.Minute)
	return s.now
}

func (s *testSource) create(p string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.tick()
	kind := "created"
	if _, ok := s.res[p]; ok {
		kind = "updated"
	}
	s.res[p] = b
	s.lastmod[p] = at
	s.changes = append(s.changes, srcChange{path: p, kind: kind, at: at, body: b})
}

func (s *testSource) update(p string, version int) { s.create(p, body(p, version)) }

func (s *testSource) remove(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.tick()
	delete(s.res, p)
	delete(s.lastmod, p)
	s.changes = append(s.changes, srcChange{path: p, kind: "deleted", at: at})
}

// closeList closes the open Change List: the Change List becomes an index.
func (s *testSource) closeList() {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.tick()
	s.closed = append(s.closed, closedList{from: s.open, until: at, changes: s.changes})
	s.changes = nil
	s.open = at
}

// publish takes a new snapshot for the Resource List and Dump.
func (s *testSource) publish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listAt = s.tick()
}

func (s *testSource) requests() []logged {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]logged(nil), s.log...)
}

// gets counts the GETs of resource paths (under /res/) with status 200.
func (s *testSource) resourceGets() map[string]int {
	out := map[string]int{}
	for _, l := range s.requests() {
		if strings.HasPrefix(l.path, "/res/") && l.status == 200 {
			out[l.path]++
		}
	}
	return out
}

func (s *testSource) clearLog() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(c int) {
	if r.status == 0 {
		r.status = c
	}
	r.ResponseWriter.WriteHeader(c)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.ResponseWriter.Write(b)
}

func (s *testSource) serve(rw http.ResponseWriter, r *http.Request) {
	w := &statusRecorder{ResponseWriter: rw}
	defer func() {
		s.mu.Lock()
		s.log = append(s.log, logged{at: time.Now(), method: r.Method, path: r.URL.Path, status: w.status,
			inm: r.Header.Get("If-None-Match"), ims: r.Header.Get("If-Modified-Since"), ua: r.Header.Get("User-Agent")})
		s.mu.Unlock()
	}()
	if s.hook != nil && s.hook(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	xml := func(d *rs.Document) {
		var buf bytes.Buffer
		Expect(rs.Write(&buf, d)).To(Succeed())
		w.Header().Set("Content-Type", "application/xml")
		w.Write(buf.Bytes())
	}
	switch {
	case p == discovery.WellKnownPath:
		d := rs.NewDocument(rs.SourceDescription)
		d.AddEntry(s.url("/capabilitylist.xml")).EnsureMd().Capability = "capabilitylist"
		xml(d)
	case p == "/capabilitylist.xml":
		d := rs.NewDocument(rs.CapabilityList)
		d.AddLink("up", s.url(discovery.WellKnownPath))
		d.AddEntry(s.url("/resourcelist.xml")).EnsureMd().Capability = "resourcelist"
		if s.dump {
			d.AddEntry(s.url("/resourcedump.xml")).EnsureMd().Capability = "resourcedump"
		}
		if !s.noChanges {
			d.AddEntry(s.url("/changelist.xml")).EnsureMd().Capability = "changelist"
		}
		xml(d)
	case p == "/resourcelist.xml" || strings.HasPrefix(p, "/resourcelist-"):
		s.serveResourceList(w, r, xml)
	case p == "/changelist.xml" && len(s.closed) > 0:
		d := rs.NewDocument(rs.ChangeListIndex)
		d.AddLink("up", s.url("/capabilitylist.xml"))
		first := 0
		if s.retain > 0 && len(s.closed) > s.retain {
			first = len(s.closed) - s.retain
		}
		d.Md.From = rs.FormatDatetime(s.closed[first].from)
		for i, c := range s.closed {
			if i < first {
				continue
			}
			md := d.AddEntry(s.url(fmt.Sprintf("/changelist-%d.xml", i+1))).EnsureMd()
			md.From, md.Until = rs.FormatDatetime(c.from), rs.FormatDatetime(c.until)
		}
		d.AddEntry(s.url("/changelist-open.xml")).EnsureMd().From = rs.FormatDatetime(s.open)
		xml(d)
	case p == "/changelist.xml" || p == "/changelist-open.xml":
		xml(s.changeList(s.open, time.Time{}, s.changes))
	case strings.HasPrefix(p, "/changelist-"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/changelist-"), ".xml"))
		if err != nil || n < 1 || n > len(s.closed) {
			http.NotFound(w, r)
			return
		}
		c := s.closed[n-1]
		xml(s.changeList(c.from, c.until, c.changes))
	case p == "/resourcedump.xml" && s.dump:
		d := rs.NewDocument(rs.ResourceDump)
		d.AddLink("up", s.url("/capabilitylist.xml"))
		d.Md.At = rs.FormatDatetime(s.listAt)
		for k := range s.packages() {
			zb := s.pkg(k)
			e := d.AddEntry(s.url(fmt.Sprintf("/pkg/%d.zip", k+1)))
			md := e.EnsureMd()
			md.Type, md.Length = "application/zip", strconv.Itoa(len(zb))
			sum := sha256.Sum256(zb)
			md.Hash = "sha-256:" + hex.EncodeToString(sum[:])
		}
		xml(d)
	case strings.HasPrefix(p, "/pkg/") && s.dump:
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/pkg/"), ".zip"))
		if err != nil || n < 1 || n > len(s.packages()) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Write(s.pkg(n - 1))
	default:
		b, ok := s.res[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(b)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", s.lastmod[p].Format(http.TimeFormat))
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(b)
	}
}

func (s *testSource) paths() []string {
	var ps []string
	for p := range s.res {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func hashAttr(b []byte) string {
	m := md5.Sum(b)
	h := sha256.Sum256(b)
	return "md5:" + hex.EncodeToString(m[:]) + " sha-256:" + hex.EncodeToString(h[:])
}

func (s *testSource) describe(md *rs.Md, p string, b []byte) {
	if s.noHash {
		return
	}
	md.Hash = hashAttr(b)
	if s.wrongHash[p] {
		md.Hash = "md5:" + strings.Repeat("0", 32)
	}
	md.Length = strconv.Itoa(len(b))
}

func (s *testSource) serveResourceList(w http.ResponseWriter, r *http.Request, xml func(*rs.Document)) {
	ps := s.paths()
	pages := 1
	if s.maxEntries > 0 && len(ps) > s.maxEntries {
		pages = (len(ps) + s.maxEntries - 1) / s.maxEntries
	}
	page := 0
	if r.URL.Path != "/resourcelist.xml" {
		page, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/resourcelist-"), ".xml"))
		if page < 1 || page > pages {
			http.NotFound(w, r)
			return
		}
	}
	if page == 0 && pages > 1 {
		d := rs.NewDocument(rs.ResourceListIndex)
		d.AddLink("up", s.url("/capabilitylist.xml"))
		d.Md.At = rs.FormatDatetime(s.listAt)
		for i := 1; i <= pages; i++ {
			d.AddEntry(s.url(fmt.Sprintf("/resourcelist-%d.xml", i))).EnsureMd().At = rs.FormatDatetime(s.listAt)
		}
		xml(d)
		return
	}
	lo, hi := 0, len(ps)
	if page > 0 {
		lo, hi = (page-1)*s.maxEntries, min(page*s.maxEntries, len(ps))
	}
	d := rs.NewDocument(rs.ResourceList)
	d.AddLink("up", s.url("/capabilitylist.xml"))
	d.Md.At = rs.FormatDatetime(s.listAt)
	for _, p := range ps[lo:hi] {
		e := d.AddEntry(s.url(p))
		if !s.noLastmod {
			e.SetLastmod(s.lastmod[p])
		}
		s.describe(e.EnsureMd(), p, s.res[p])
	}
	if page <= 1 {
		for _, l := range s.extraLocs {
			d.AddEntry(l)
		}
	}
	xml(d)
}

func (s *testSource) changeList(from, until time.Time, cs []srcChange) *rs.Document {
	d := rs.NewDocument(rs.ChangeList)
	d.AddLink("up", s.url("/capabilitylist.xml"))
	d.Md.From = rs.FormatDatetime(from)
	if !until.IsZero() {
		d.Md.Until = rs.FormatDatetime(until)
	}
	for _, c := range cs {
		e := d.AddEntry(s.url(c.path))
		md := e.EnsureMd()
		md.Change = c.kind
		md.Datetime = rs.FormatDatetime(c.at)
		if c.body != nil {
			s.describe(md, c.path, c.body)
		}
	}
	return d
}

// packages splits the resources into packages of pkgSize.
func (s *testSource) packages() [][]string {
	ps := s.paths()
	var out [][]string
	for len(ps) > 0 {
		n := min(s.pkgSize, len(ps))
		out = append(out, ps[:n])
		ps = ps[n:]
	}
	return out
}

// pkg builds package k (from 0) with its manifest.
func (s *testSource) pkg(k int) []byte {
	paths := s.packages()[k]
	man := rs.NewDocument(rs.ResourceDumpManifest)
	man.AddLink("up", s.url("/capabilitylist.xml"))
	man.Md.At = rs.FormatDatetime(s.listAt)
	var members []zipMember
	for _, p := range paths {
		e := man.AddEntry(s.url(p))
		md := e.EnsureMd()
		s.describe(md, p, s.res[p])
		md.Path = "/resources" + p
		members = append(members, zipMember{name: "resources" + p, body: s.res[p]})
	}
	var mb bytes.Buffer
	Expect(rs.Write(&mb, man)).To(Succeed())
	members = append([]zipMember{{name: "manifest.xml", body: mb.Bytes()}}, members...)
	if s.pkgOverride != nil {
		members = s.pkgOverride(k, members)
	}
	return buildZip(members)
}

func buildZip(members []zipMember) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: t0}
		if m.method != 0 {
			h.Method = m.method
		}
		if m.symlink {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		fw, err := zw.CreateHeader(h)
		Expect(err).NotTo(HaveOccurred())
		_, err = fw.Write(m.body)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(zw.Close()).To(Succeed())
	return buf.Bytes()
}

// opts are the options of a test run: fast retries, no rate limit.
func (s *testSource) opts(dir string) destination.Options {
	return destination.Options{Source: s.url("/"), Dir: dir, HTTP: sourcehttp.Config{Backoff: 10 * time.Millisecond,
		Timeout: 5 * time.Second, UserAgent: "rsconform/test"}}
}

func run(o destination.Options) *destination.Report {
	GinkgoHelper()
	rep, err := destination.Run(context.Background(), o)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// expectMirror checks that dir holds exactly the Source's resources.
func (s *testSource) expectMirror(dir string) {
	GinkgoHelper()
	s.mu.Lock()
	want := map[string][]byte{}
	for p, b := range s.res {
		want[strings.TrimPrefix(p, "/")] = b
	}
	s.mu.Unlock()
	Expect(filesIn(dir)).To(Equal(want))
}

// filesIn reads every file of dir except the Destination's own.
func filesIn(dir string) map[string][]byte {
	GinkgoHelper()
	out := map[string][]byte{}
	Expect(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		Expect(err).NotTo(HaveOccurred())
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && strings.HasPrefix(rel, ".rsconform") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasPrefix(rel, ".rsconform") {
			return nil
		}
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out[filepath.ToSlash(rel)] = b
		return nil
	})).To(Succeed())
	return out
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
