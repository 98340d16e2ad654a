package mocksource

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/sourcehttp"
)

// ControlPrefix is the reserved path prefix of the control API.
const ControlPrefix = "/_rsconform/"

// Handler serves the Source: its documents, packages and resources, and
// the control API under /_rsconform/:
//
//	POST /_rsconform/step      play the next step; returns StepInfo as JSON
//	                           (409 when the scenario is finished)
//	GET  /_rsconform/expected  the expected Destination state as JSON:
//	                           {"/path": {"sha256": "…", "length": n, "type": "…"}, …}
//	GET  /_rsconform/log       the request log as a JSON array (?since=SEQ)
//	GET  /_rsconform/status    scenario, step, virtual time
func (s *Source) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r, 1) })
}

// Origin2Handler serves the Source's second origin (SetOrigin2URL): the
// resources under scenario.Origin2Prefix at the rest of their paths, and
// nothing else (documents and the control API are the first origin's).
// Its requests are in the one log, with Origin 2.
func (s *Source) Origin2Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r, 2) })
}

// recorder captures the status and size of a response for the log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := r.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijacking not supported")
}

// hostBase caches the base URL derived from the latest Host header.
type hostBase struct {
	host, base, link string
}

func (s *Source) baseFor(r *http.Request) *hostBase {
	if b := *s.base.Load(); b != "" {
		if hb := s.hosts.Load(); hb != nil && hb.host == "" && hb.base == b {
			return hb
		}
		hb := &hostBase{base: b, link: linkHeader(b)}
		s.hosts.Store(hb)
		return hb
	}
	if hb := s.hosts.Load(); hb != nil && hb.host == r.Host && r.TLS == nil {
		return hb
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	b := scheme + r.Host
	hb := &hostBase{host: r.Host, base: b, link: linkHeader(b)}
	if r.TLS == nil {
		s.hosts.Store(hb)
	}
	return hb
}

// linkHeader makes resources discoverable (section 6.3.3).
func linkHeader(base string) string {
	return "<" + base + pathCapList + `>; rel="resourcesync"`
}

// serveHTTP serves a request to origin 1 (Handler) or 2 (Origin2Handler).
func (s *Source) serveHTTP(rw http.ResponseWriter, r *http.Request, origin int) {
	s.catchUp()
	p := r.URL.Path
	if origin == 1 && (strings.HasPrefix(p, ControlPrefix) || p == strings.TrimSuffix(ControlPrefix, "/")) {
		s.control(rw, r)
		return
	}
	// Resources are found by their URI key (scenario.URIKey): the path as the
	// client escaped it, normalised; the log names them so.
	p = scenario.URIKey(r.URL.EscapedPath())
	start := time.Now()
	w := &recorder{ResponseWriter: rw}
	var fired []string
	logOrigin := 0
	if origin == 2 {
		logOrigin = 2
	}
	defer func() {
		s.log.add(Request{Time: s.Now(), Received: start, Duration: time.Since(start), Method: r.Method,
			Origin: logOrigin, Path: p, Query: r.URL.RawQuery, Status: w.status, Bytes: w.bytes,
			Fault: strings.Join(fired, ","), Headers: requestHeaders(r.Header), RetryAfter: w.Header().Get("Retry-After")})
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if wildRefused(&s.sc.Wild, w, r) {
		return
	}
	// own is the Source's name for what is asked (document-names); the
	// log keeps the name asked for.
	own, ok := ownPath(&s.sc.Wild, p)
	if origin == 2 {
		// The second origin's resources are the Source's under /origin2/.
		own, ok = origin2Own(p), true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	hb := s.baseFor(r)
	var mod bodyMod
	moved, isMoved := strings.CutPrefix(own, movedPrefix)
	isMoved = isMoved && strings.HasPrefix(moved, "/")
	if isMoved {
		own = moved
	}
	if origin == 1 && strings.HasPrefix(own, scenario.Origin2Prefix) && s.Origin2URL() != "" {
		// On the second origin, not here.
		http.NotFound(w, r)
		return
	}
	// The target of redirect faults (isMoved) serves the same content, no
	// faults; the log keeps the path as asked (/moved/...), so a followed
	// redirect is told from a direct GET.
	if !isMoved && !s.opts.IgnoreFaults {
		var done bool
		if mod, fired, done = s.applyFaults(w, r, own, hb); done {
			return
		}
	}
	s.serveContent(w, r, own, hb, mod)
}

// origin2Own is the Source's own path of a path asked of the second
// origin: /res/a.txt is /origin2/res/a.txt, and the target of a redirect
// fault there, /moved/res/a.txt, is /moved/origin2/res/a.txt.
func origin2Own(p string) string {
	if rest, ok := strings.CutPrefix(p, movedPrefix); ok && strings.HasPrefix(rest, "/") {
		return movedPrefix + scenario.Origin2Path + rest
	}
	return scenario.Origin2Path + p
}

// sleep waits d on the mock's clock (Options.Sleep), or in real time as
// the HTTP client's own clock does.
func (s *Source) sleep(ctx context.Context, d time.Duration) error {
	if s.opts.Sleep != nil {
		return s.opts.Sleep(ctx, d)
	}
	return sourcehttp.RealClock{}.Sleep(ctx, d)
}

// bodyMod is what transport faults do to a body.
type bodyMod struct {
	truncate  int // > 0: send only this many bytes
	malformed bool
}

// applyFaults applies the transport faults armed for p; done is true
// when the response has been given (or the connection dropped).
func (s *Source) applyFaults(w *recorder, r *http.Request, p string, hb *hostBase) (mod bodyMod, fired []string, done bool) {
	s.mu.RLock()
	faults := s.w.faults
	s.mu.RUnlock()
	var act []*armedFault
	for _, f := range faults {
		if f.IsTransport() && f.Matches(p) && f.fire() {
			act = append(act, f)
		}
	}
	if len(act) == 0 {
		return mod, nil, false
	}
	var latency time.Duration
	for _, f := range act {
		latency += f.Latency
	}
	if latency > 0 {
		fired = append(fired, "latency="+latency.String())
		if s.sleep(r.Context(), latency) != nil {
			return mod, fired, true
		}
	}
	for _, f := range act {
		switch {
		case f.Drop:
			fired = append(fired, "drop")
			if hj, ok := w.ResponseWriter.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return mod, fired, true
				}
			}
			panic(http.ErrAbortHandler)
		case f.Status != 0:
			fired = append(fired, "status="+strconv.Itoa(f.Status))
			if f.RetryAfter > 0 {
				secs := int64((f.RetryAfter + time.Second - 1) / time.Second)
				w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
			}
			http.Error(w, http.StatusText(f.Status)+" (fault armed by the scenario)", f.Status)
			return mod, fired, true
		case f.Redirect != 0:
			fired = append(fired, "redirect="+strconv.Itoa(f.Redirect))
			loc := f.Location
			if rest, ok := strings.CutPrefix(p, scenario.Origin2Prefix); ok && loc == "" && s.Origin2URL() != "" {
				loc = s.Origin2URL() + movedPrefix + "/" + rest
			} else if loc == "" {
				loc = hb.base + movedPrefix + p
			} else if strings.HasPrefix(loc, "/") {
				loc = hb.base + loc
			}
			w.Header().Set("Location", loc)
			w.WriteHeader(f.Redirect)
			return mod, fired, true
		}
		if f.Truncate > 0 && (mod.truncate == 0 || f.Truncate < mod.truncate) {
			mod.truncate = f.Truncate
			fired = append(fired, "truncate="+strconv.Itoa(f.Truncate))
		}
		if f.Malformed {
			mod.malformed = true
			fired = append(fired, "malformed")
		}
	}
	return mod, fired, false
}

// serveContent serves a document, a package, an information page or a
// resource.
func (s *Source) serveContent(w *recorder, r *http.Request, p string, hb *hostBase, mod bodyMod) {
	if rt, ok := parseRoute(p); ok {
		s.mu.RLock()
		e := s.document(s.w, hb.base, rt, p)
		s.mu.RUnlock()
		if !e.ok {
			http.NotFound(w, r)
			return
		}
		data, ctype := wildDocument(&s.sc.Wild, hb.base, p, e.data, e.ctype)
		s.writeBody(w, r, data, ctype, e.etag, time.Time{}, "", mod)
		return
	}
	key := p
	if r.URL.RawQuery != "" {
		key += "?" + scenario.URIKey(r.URL.RawQuery)
	}
	s.mu.RLock()
	id, found := s.w.lookup(key)
	var vi vinfo
	if found {
		vi = s.w.current(id)
	}
	gone := s.w.deletedStatus
	s.mu.RUnlock()
	if !found {
		http.NotFound(w, r)
		return
	}
	if vi.deleted {
		http.Error(w, "deleted", gone)
		return
	}
	bp := getBuf()
	body := appendBody((*bp)[:0], vi.key, vi.path, vi.n, vi.typ, vi.size)
	*bp = body
	var et [18]byte
	et[0], et[17] = '"', '"'
	var kb [8]byte
	for i := 0; i < 8; i++ {
		kb[i] = byte(vi.key >> (56 - 8*i))
	}
	hex.Encode(et[1:17], kb[:])
	lastmod := vi.at
	if s.opts.LastmodOnly {
		lastmod = time.Time{}
	}
	s.writeBody(w, r, body, vi.typ, string(et[:]), lastmod, hb.link, mod)
	putBuf(bp)
}

// writeBody answers with body, honouring conditional requests.
func (s *Source) writeBody(w *recorder, r *http.Request, body []byte, ctype, etag string, lastmod time.Time, link string, mod bodyMod) {
	h := w.Header()
	if mod.malformed {
		// A broken body is not the representation the validators name.
		cut := len(body) / 2
		b := make([]byte, 0, cut+16)
		b = append(append(b, body[:cut]...), "<<malformed"...)
		body, etag, lastmod = b, "", time.Time{}
	}
	if etag != "" {
		h["Etag"] = []string{etag}
	}
	if !lastmod.IsZero() {
		h["Last-Modified"] = []string{lastmod.UTC().Format(http.TimeFormat)}
	}
	if link != "" {
		h["Link"] = []string{link}
	}
	h["Content-Type"] = []string{ctype}
	body = wildHeaders(&s.sc.Wild, h, r, body, link == "")
	if notModified(r, etag, lastmod) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	if mod.truncate > 0 && mod.truncate < len(body) {
		w.WriteHeader(http.StatusOK)
		w.Write(body[:mod.truncate])
		w.Flush()
		// Less than Content-Length, then the connection closes.
		panic(http.ErrAbortHandler)
	}
	if s.sc.Chunked {
		writeChunked(w, body)
		return
	}
	w.Write(body)
}

// notModified evaluates If-None-Match, and If-Modified-Since when there is
// no If-None-Match (RFC 9110, 13.2.2).
func notModified(r *http.Request, etag string, lastmod time.Time) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etag != "" && etagListMatch(inm, etag)
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !lastmod.IsZero() {
		t, err := http.ParseTime(ims)
		return err == nil && !lastmod.Truncate(time.Second).After(t)
	}
	return false
}

// etagListMatch is the weak comparison of If-None-Match.
func etagListMatch(list, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for list != "" {
		var item string
		item, list, _ = strings.Cut(list, ",")
		item = strings.TrimSpace(item)
		if item == "*" || strings.TrimPrefix(item, "W/") == etag {
			return true
		}
	}
	return false
}

// Routes of documents and packages.

const (
	rtSourceDesc = iota + 1
	rtCapList
	rtOtherCapList
	rtOtherResList
	rtRobots
	rtInfoSource
	rtInfoSet
	rtFamRoot     // fam
	rtFamNumbered // fam, n
	rtFamPage     // fam, n, p (snapshot families)
	rtArchive     // fam
	rtArchivePage // fam, p
	rtRDZip       // n, p=k
	rtRDManifest  // n, p=k
	rtCDZip       // n
	rtCDManifest  // n
)

type route struct {
	kind, fam, n, p int
}

// posInt parses a positive decimal without leading zeros.
func posInt(s string) (int, bool) {
	if s == "" || s[0] == '0' || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func posPair(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, false
	}
	n, ok1 := posInt(a)
	k, ok2 := posInt(b)
	return n, k, ok1 && ok2
}

// parseRoute tells the documents the Source serves from resources.
func parseRoute(p string) (route, bool) {
	switch p {
	case pathSourceDesc:
		return route{kind: rtSourceDesc, fam: famDesc}, true
	case pathCapList:
		return route{kind: rtCapList, fam: famDesc}, true
	case pathOtherCapList:
		return route{kind: rtOtherCapList, fam: famDesc}, true
	case pathOtherResList:
		return route{kind: rtOtherResList, fam: famDesc}, true
	case pathRobots:
		return route{kind: rtRobots, fam: famStatic}, true
	case pathInfoSource:
		return route{kind: rtInfoSource, fam: famStatic}, true
	case pathInfoSet:
		return route{kind: rtInfoSet, fam: famStatic}, true
	}
	rest, ok := strings.CutPrefix(p, setPrefix)
	if !ok {
		return route{}, false
	}
	if x, ok := strings.CutPrefix(rest, "resourcedump-pkg/"); ok {
		if m, ok := strings.CutSuffix(x, "-manifest.xml"); ok {
			if n, k, ok := posPair(m); ok {
				return route{kind: rtRDManifest, fam: famRD, n: n, p: k}, true
			}
		} else if m, ok := strings.CutSuffix(x, ".zip"); ok {
			if n, k, ok := posPair(m); ok {
				return route{kind: rtRDZip, fam: famRD, n: n, p: k}, true
			}
		}
		return route{}, true // under the set: not found
	}
	if x, ok := strings.CutPrefix(rest, "changedump-pkg/"); ok {
		if m, ok := strings.CutSuffix(x, "-manifest.xml"); ok {
			if n, ok := posInt(m); ok {
				return route{kind: rtCDManifest, fam: famCD, n: n}, true
			}
		} else if m, ok := strings.CutSuffix(x, ".zip"); ok {
			if n, ok := posInt(m); ok {
				return route{kind: rtCDZip, fam: famCD, n: n}, true
			}
		}
		return route{}, true
	}
	for _, f := range []int{famRL, famRD, famCL, famCD} {
		name := famName[f]
		switch {
		case rest == name+".xml":
			return route{kind: rtFamRoot, fam: f}, true
		case rest == name+"-archive.xml":
			return route{kind: rtArchive, fam: f}, true
		}
		if x, ok := strings.CutPrefix(rest, name+"-archive/"); ok {
			if m, ok := strings.CutSuffix(x, ".xml"); ok {
				if n, ok := posInt(m); ok {
					return route{kind: rtArchivePage, fam: f, p: n}, true
				}
			}
			return route{}, true
		}
		if x, ok := strings.CutPrefix(rest, name+"/"); ok {
			if m, ok := strings.CutSuffix(x, ".xml"); ok {
				if n, ok := posInt(m); ok {
					return route{kind: rtFamNumbered, fam: f, n: n}, true
				}
				if n, k, ok := posPair(m); ok && (f == famRL || f == famRD) {
					return route{kind: rtFamPage, fam: f, n: n, p: k}, true
				}
			}
			return route{}, true
		}
	}
	if rest == "capabilitylist.xml" {
		return route{kind: rtCapList, fam: famDesc}, true
	}
	return route{}, true // everything under the set is the Source's own
}

// document returns the rendered document (or package) of a route from
// the cache, rendering it when needed. The caller holds the read lock.
func (s *Source) document(w *world, base string, rt route, p string) *cacheEntry {
	base2 := s.Origin2URL()
	key := cacheKey{base: base, path: p, ver: w.fam[rt.fam]}
	if base2 != "" {
		key.base += " " + base2
	}
	return s.cache.get(key, func() ([]byte, string, bool) {
		if rt.kind == 0 {
			return nil, "", false
		}
		r := &renderer{s: s, w: w, base: base, base2: base2, path: p}
		return r.render(rt)
	})
}

// packageBytes returns a package from the cache; the caller holds the
// read lock.
func (s *Source) packageBytes(r *renderer, fam, n, k int) []byte {
	var rt route
	var p string
	if fam == famRD {
		rt, p = route{kind: rtRDZip, fam: famRD, n: n, p: k}, rdPackage(n, k)
	} else {
		rt, p = route{kind: rtCDZip, fam: famCD, n: n}, cdPackagePath(n)
	}
	return s.document(r.w, r.base, rt, p).data
}

func (r *renderer) render(rt route) ([]byte, string, bool) {
	w := r.w
	xml := func(b []byte, ok bool) ([]byte, string, bool) { return b, ctypeXML, ok }
	switch rt.kind {
	case rtSourceDesc:
		return xml(r.sourceDescription(), true)
	case rtCapList:
		return xml(r.capabilityList(), true)
	case rtOtherCapList:
		return xml(r.otherCapabilityList(), w.wrongUp(""))
	case rtOtherResList:
		return xml(r.otherResourceList(), w.wrongUp(""))
	case rtRobots:
		return []byte("User-agent: *\nSitemap: " + r.url(famRoot(famRL)) + "\n"), "text/plain; charset=utf-8", true
	case rtInfoSource:
		return []byte(infoPage("A mock ResourceSync Source",
				"This Source is rsconform's mock: it plays a scenario on a virtual clock so that Destinations can be tested deterministically.")),
			"text/html; charset=utf-8", true
	case rtInfoSet:
		return []byte(infoPage("dataset1",
				"The one set of resources of the mock Source: generated resources whose bodies derive from the scenario's seed.")),
			"text/html; charset=utf-8", true
	case rtFamRoot:
		switch rt.fam {
		case famRL, famRD:
			snaps := r.snaps(rt.fam)
			return xml(r.snapDoc(rt.fam, len(snaps), 0))
		case famCL:
			return xml(r.seriesRoot(famCL), true)
		case famCD:
			if len(w.pkgs) == 0 {
				return nil, "", false
			}
			return xml(r.seriesRoot(famCD), true)
		}
	case rtFamNumbered:
		switch rt.fam {
		case famRL, famRD:
			if rt.n >= len(r.snaps(rt.fam)) {
				return nil, "", false // the current one lives at the root
			}
			return xml(r.snapDoc(rt.fam, rt.n, 0))
		case famCL, famCD:
			if rt.fam == famCD && len(w.pkgs) == 0 {
				return nil, "", false
			}
			return xml(r.seriesNumbered(rt.fam, rt.n))
		}
	case rtFamPage:
		return xml(r.snapDoc(rt.fam, rt.n, rt.p))
	case rtArchive:
		return xml(r.archiveDoc(rt.fam, 0))
	case rtArchivePage:
		return xml(r.archiveDoc(rt.fam, rt.p))
	case rtRDManifest:
		b, _, ok := r.rdManifestDoc(rt.n, rt.p)
		return xml(b, ok)
	case rtCDManifest:
		b, _, ok := r.cdManifestDoc(rt.n)
		return xml(b, ok)
	case rtRDZip:
		b, ok := r.buildPackage(famRD, rt.n, rt.p)
		return b, ctypeZip, ok
	case rtCDZip:
		b, ok := r.buildPackage(famCD, rt.n, 0)
		return b, ctypeZip, ok
	}
	return nil, "", false
}

func infoPage(title, text string) string {
	return "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head>\n<body><h1>" + title +
		"</h1>\n<p>" + text + "</p></body></html>\n"
}

// The control API.

func (s *Source) control(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, strings.TrimSuffix(ControlPrefix, "/"))
	method := func(m string) bool {
		if r.Method == m || (m == http.MethodGet && r.Method == http.MethodHead) {
			return true
		}
		w.Header().Set("Allow", m)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use " + m})
		return false
	}
	switch p {
	case "/step":
		if !method(http.MethodPost) {
			return
		}
		in, err := s.Step()
		switch {
		case errors.Is(err, ErrFinished):
			writeJSON(w, http.StatusConflict, struct {
				Error string `json:"error"`
				StepInfo
			}{"the scenario is finished", in})
		case err != nil:
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		default:
			writeJSON(w, http.StatusOK, in)
		}
	case "/expected":
		if !method(http.MethodGet) {
			return
		}
		s.writeExpected(w)
	case "/log":
		if !method(http.MethodGet) {
			return
		}
		var since int64
		if v := r.URL.Query().Get("since"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "since must be a request sequence number"})
				return
			}
			since = n
		}
		writeJSON(w, http.StatusOK, s.log.since(since))
	case "/", "", "/status":
		if !method(http.MethodGet) {
			return
		}
		in := s.Info()
		base := *s.base.Load()
		status := map[string]any{
			"scenario": s.sc.Name, "description": s.sc.Description,
			"step": in.Step, "steps": in.Steps, "time": in.Time, "done": in.Done,
			"base_url": base, "source_description": base + pathSourceDesc,
			"endpoints": map[string]string{
				"step":     "POST " + ControlPrefix + "step",
				"expected": "GET " + ControlPrefix + "expected",
				"log":      "GET " + ControlPrefix + "log",
			},
		}
		if b2 := s.Origin2URL(); b2 != "" {
			status["origin2_url"] = b2
		}
		writeJSON(w, http.StatusOK, status)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown control endpoint " + r.URL.Path})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeExpected writes the expected state. It is built under the read
// lock but sent after releasing it, so a slow client never holds up a step.
func (s *Source) writeExpected(w http.ResponseWriter) {
	var buf bytes.Buffer
	var in StepInfo
	buf.WriteString("{")
	first := true
	s.eachExpected(func(path string, e ExpectedResource) {
		if !first {
			buf.WriteString(",")
		}
		first = false
		buf.WriteString("\n  ")
		writeJSONString(&buf, path)
		buf.WriteString(`: {"sha256": "`)
		buf.WriteString(e.SHA256)
		buf.WriteString(`", "length": `)
		buf.WriteString(strconv.Itoa(e.Length))
		buf.WriteString(`, "type": `)
		writeJSONString(&buf, e.Type)
		if e.ListedSHA256 != "" {
			buf.WriteString(`, "listed_sha256": "`)
			buf.WriteString(e.ListedSHA256)
			buf.WriteString(`"`)
		}
		buf.WriteString("}")
	}, &in)
	buf.WriteString("\n}\n")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Rsconform-Step", strconv.Itoa(in.Step))
	w.Header().Set("X-Rsconform-Time", in.Time.Format(time.RFC3339))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}
