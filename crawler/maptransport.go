package crawler

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Mapping serves the URLs under Prefix from the folder Dir, without a
// server: a CI job can crawl a build output before it is published
// (--map https://example.com/=build/site).
type Mapping struct {
	Prefix string
	Dir    string
}

// ParseMapping reads URL=DIR.
func ParseMapping(s string) (Mapping, error) {
	prefix, dir, ok := strings.Cut(s, "=")
	if !ok || prefix == "" || dir == "" {
		return Mapping{}, fmt.Errorf("--map %q: want URL=DIR", s)
	}
	if !strings.HasPrefix(prefix, "http://") && !strings.HasPrefix(prefix, "https://") {
		return Mapping{}, fmt.Errorf("--map %q: the URL prefix must be an http(s) URL", s)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return Mapping{}, fmt.Errorf("--map %q: %w", s, err)
	}
	if !st.IsDir() {
		return Mapping{}, fmt.Errorf("--map %q: %s is not a directory", s, dir)
	}
	return Mapping{Prefix: prefix, Dir: dir}, nil
}

// MapMadeUpHeaders are the response headers a mapping makes up instead of
// reading them from a server: a file's Last-Modified is its modification
// time, when the build wrote it, not when the resource last changed. A
// crawl does not judge them (Report.Notes says so once).
var MapMadeUpHeaders = []string{"Last-Modified"}

// mappedURL reports whether u is served from a mapping's folder.
func mappedURL(maps []Mapping, u string) bool {
	for _, m := range maps {
		if strings.HasPrefix(u, m.Prefix) {
			return true
		}
	}
	return false
}

// mapTransport answers requests under a mapping's prefix from its folder
// and passes the others to next.
type mapTransport struct {
	maps []Mapping
	next http.RoundTripper
}

func (t *mapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL.String()
	for _, m := range t.maps {
		if !strings.HasPrefix(u, m.Prefix) {
			continue
		}
		rel := strings.TrimPrefix(req.URL.Path, mustPath(m.Prefix))
		return serveFile(req, m.Dir, rel), nil
	}
	if t.next == nil {
		return nil, fmt.Errorf("no transport for %s", u)
	}
	return t.next.RoundTrip(req)
}

func mustPath(prefix string) string {
	i := strings.Index(prefix, "://")
	rest := prefix[i+3:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return ""
	}
	return rest[j:]
}

func serveFile(req *http.Request, dir, rel string) *http.Response {
	clean := path.Clean("/" + rel)
	name := filepath.Join(dir, filepath.FromSlash(clean))
	resp := &http.Response{
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Request: req,
	}
	st, err := os.Stat(name)
	if err == nil && st.IsDir() {
		// As a static server would: a folder's index.html.
		name = filepath.Join(name, "index.html")
		clean = path.Join(clean, "index.html")
		st, err = os.Stat(name)
	}
	if err != nil || st.IsDir() {
		resp.StatusCode = http.StatusNotFound
		resp.Status = "404 Not Found"
		resp.Body = io.NopCloser(strings.NewReader("not found\n"))
		resp.ContentLength = -1
		return resp
	}
	if !st.Mode().IsRegular() {
		// A FIFO or a device could block the crawl or never end: a static
		// server refuses them too.
		err = fmt.Errorf("%s is not a regular file", clean)
	}
	var f *os.File
	if err == nil {
		f, err = os.Open(name)
	}
	if err != nil {
		resp.StatusCode = http.StatusForbidden
		resp.Status = "403 Forbidden"
		resp.Body = io.NopCloser(strings.NewReader(err.Error()))
		resp.ContentLength = -1
		return resp
	}
	ctype := mime.TypeByExtension(path.Ext(clean))
	if ctype == "" || path.Ext(clean) == ".xml" {
		head := make([]byte, 512)
		n, _ := io.ReadFull(f, head)
		ctype = contentTypeOf(clean, head[:n])
		f.Seek(0, io.SeekStart)
	}
	resp.StatusCode = http.StatusOK
	resp.Status = "200 OK"
	resp.Header.Set("Content-Type", ctype)
	resp.Header.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	resp.Header.Set("Last-Modified", st.ModTime().UTC().Format(http.TimeFormat))
	resp.ContentLength = st.Size()
	resp.Body = f
	return resp
}

// contentTypeOf is the Content-Type a static server would give a file:
// XML (by extension or content) as application/xml.
func contentTypeOf(name string, head []byte) string {
	if path.Ext(name) == ".xml" || bytes.HasPrefix(bytes.TrimSpace(head), []byte("<?xml")) || bytes.HasPrefix(bytes.TrimSpace(head), []byte("<urlset")) || bytes.HasPrefix(bytes.TrimSpace(head), []byte("<sitemapindex")) {
		return "application/xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}
