package sourcehttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prefix is the start of a set of URLs, as --map takes it: an origin
// (scheme, host and port, compared as Origins compares them: scheme and
// host without case, a default port the same as none) and the start of a
// path, escaped as written and ending with a slash. It covers a URL of its
// origin whose escaped path starts with its path, segment by segment
// (https://h/site covers https://h/site/a, not https://h/site2/a).
type Prefix struct {
	Origin Origin
	Path   string
}

// ParsePrefix reads an http(s) URL without query or fragment as a Prefix.
func ParsePrefix(s string) (Prefix, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" || u.User != nil {
		return Prefix{}, fmt.Errorf("%s: not an http or https URL", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return Prefix{}, fmt.Errorf("%s: a URL prefix has no query or fragment", s)
	}
	p := u.EscapedPath()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return Prefix{Origin: OriginOf(u), Path: p}, nil
}

// Rest is the escaped path of u after the prefix, and whether the prefix
// covers u.
func (p Prefix) Rest(u *url.URL) (string, bool) {
	if OriginOf(u) != p.Origin {
		return "", false
	}
	raw := u.EscapedPath()
	if raw == "" {
		raw = "/"
	}
	rest, ok := strings.CutPrefix(raw, p.Path)
	return rest, ok
}

// String is the prefix as a URL, the scheme's default port left out.
func (p Prefix) String() string {
	o := p.Origin
	if o.Port == defaultPort(o.Scheme) {
		host := o.Host
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return o.Scheme + "://" + host + p.Path
	}
	return o.String() + p.Path
}

// Map is one --map URL=DIR: the URLs Prefix covers, and a directory.
// What the directory means is the command's: the crawl serves the URLs
// from it (NewMapTransport), sync keeps their files in it.
type Map struct {
	Prefix Prefix
	Dir    string
}

// ParseMap reads URL=DIR (DIR may be empty: the command decides what that
// means). The URL is everything before the first '=' (a URL prefix has no
// query), so DIR may hold '=' and ','.
func ParseMap(s string) (Map, error) {
	u, dir, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(u) == "" {
		return Map{}, fmt.Errorf("--map %q: want URL=DIR", s)
	}
	p, err := ParsePrefix(u)
	if err != nil {
		return Map{}, fmt.Errorf("--map %w", err)
	}
	return Map{Prefix: p, Dir: strings.TrimSpace(dir)}, nil
}

func (m Map) String() string { return m.Prefix.String() + "=" + m.Dir }

// Longest is the index of the map whose prefix covers u with the longest
// path, and the escaped rest of u's path; -1 when none covers u.
func Longest(maps []Map, u *url.URL) (int, string) {
	best, rest := -1, ""
	for i, m := range maps {
		r, ok := m.Prefix.Rest(u)
		if ok && (best < 0 || len(m.Prefix.Path) > len(maps[best].Prefix.Path)) {
			best, rest = i, r
		}
	}
	return best, rest
}

// MapNote is what a crawl through NewMapTransport says once about the
// dates it could not judge.
const MapNote = "--map serves files without Last-Modified (a file's modification time is not when its resource changed): no rule judges Last-Modified of what it serves"

// NewMapTransport answers the GET and HEAD requests a map covers from its
// directory, as a static server would, and passes the others to next (nil:
// they fail). A URL goes through the map with the longest prefix; the rest
// of its path, unescaped, names a file under DIR, a directory its
// index.html. Files are read through an os.Root: no name, not even through
// a symbolic link, reaches outside DIR. Anything but a regular file (a
// FIFO, a device, which could block or never end) is answered 403.
// Ranges are http.ServeContent's. A file is served without Last-Modified
// (MapNote): its modification time is when the build wrote it, not when
// the resource changed, and a made-up date must never reach a rule as
// evidence, whichever way the request came (asked for, or redirected into
// the map by a server).
func NewMapTransport(maps []Map, next http.RoundTripper) (http.RoundTripper, error) {
	for _, m := range maps {
		st, err := os.Stat(m.Dir)
		if err != nil {
			return nil, fmt.Errorf("--map %s: %w", m, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--map %s: %s is not a directory", m, m.Dir)
		}
	}
	return &mapTransport{maps: maps, next: next}, nil
}

type mapTransport struct {
	maps []Map
	next http.RoundTripper
}

func (t *mapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	i, rest := Longest(t.maps, req.URL)
	if i < 0 {
		if req.Body != nil {
			defer req.Body.Close()
		}
		if t.next == nil {
			return nil, fmt.Errorf("no transport for %s", req.URL.Redacted())
		}
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	pr, pw := io.Pipe()
	w := &pipeResponse{req: req, header: http.Header{}, body: pw, ready: make(chan *http.Response, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveMapped(w, req, t.maps[i].Dir, rest)
		w.WriteHeader(http.StatusOK) // no-op when written
		// A body cut by the request's end never reads as whole (EOF).
		pw.CloseWithError(req.Context().Err())
	}()
	go func() {
		// A request given up unread ends the copy.
		select {
		case <-req.Context().Done():
			pw.CloseWithError(req.Context().Err())
		case <-done:
		}
	}()
	resp := <-w.ready
	resp.Body = pr
	return resp, nil
}

// serveMapped serves the file rest (an escaped path) names under dir.
func serveMapped(w http.ResponseWriter, req *http.Request, dir, rest string) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		http.Error(w, "bad path", http.StatusBadRequest)
		return
	}
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if name == "" {
		name = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		http.Error(w, "the mapped directory cannot be opened", http.StatusForbidden)
		return
	}
	defer root.Close()
	st, err := root.Stat(name)
	if err == nil && st.IsDir() {
		// As a static server would: a folder's index.html.
		name = path.Join(name, "index.html")
		st, err = root.Stat(name)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()):
		http.Error(w, "not found", http.StatusNotFound)
		return
	case err != nil:
		// Outside DIR (through a symbolic link) or unreadable.
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	case !st.Mode().IsRegular():
		// A FIFO or a device could block the crawl or never end: a
		// static server refuses them too.
		http.Error(w, "/"+name+" is not a regular file", http.StatusForbidden)
		return
	}
	f, err := root.Open(name)
	if err != nil {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		http.Error(w, "/"+name+" is not a regular file", http.StatusForbidden)
		return
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		http.Error(w, "unreadable", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", contentTypeOf(name, head[:n]))
	// The zero time: no Last-Modified, and no If-Modified-Since or
	// If-Unmodified-Since answered from the made-up date either.
	http.ServeContent(w, req, name, time.Time{}, f)
}

// contentTypeOf is the Content-Type a static server would give a file:
// XML (by extension or content) as application/xml.
func contentTypeOf(name string, head []byte) string {
	trimmed := bytes.TrimSpace(head)
	if path.Ext(name) == ".xml" || bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<urlset")) || bytes.HasPrefix(trimmed, []byte("<sitemapindex")) {
		return "application/xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// pipeResponse is the http.ResponseWriter of a mapped request: the
// response goes to the client as soon as its header is written, its body
// through a pipe, so a large file is never held in memory.
type pipeResponse struct {
	req    *http.Request
	header http.Header
	body   *io.PipeWriter
	once   sync.Once
	ready  chan *http.Response
	head   bool
}

func (w *pipeResponse) Header() http.Header { return w.header }

func (w *pipeResponse) WriteHeader(status int) {
	w.once.Do(func() {
		w.head = w.req.Method == http.MethodHead
		resp := &http.Response{
			Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
			StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: w.header.Clone(), Request: w.req, ContentLength: -1,
		}
		if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil {
			resp.ContentLength = n
		}
		w.ready <- resp
	})
}

func (w *pipeResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.head {
		return len(p), nil
	}
	return w.body.Write(p)
}
