package mocksource

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"sort"
	"strings"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

// The behaviours of Sources seen in the wild that a scenario asks for
// (scenario.Wild), as the Source serves them.

// wildRefused answers 401 to a request without the scenario's bearer
// token; it reports whether it did.
func wildRefused(w *scenario.Wild, rw http.ResponseWriter, r *http.Request) bool {
	if w.BearerToken == "" || r.Header.Get("Authorization") == "Bearer "+w.BearerToken {
		return false
	}
	rw.Header().Set("WWW-Authenticate", `Bearer realm="rsconform mock Source"`)
	http.Error(rw, "a bearer token is required (Authorization: Bearer ...)", http.StatusUnauthorized)
	return true
}

// ownPath is the Source's own name for the path a client asked for;
// ok is false for a renamed document asked for by its own name.
func ownPath(w *scenario.Wild, p string) (string, bool) {
	for from, to := range w.DocumentNames {
		switch p {
		case to:
			return from, true
		case from:
			return "", false
		}
	}
	return p, true
}

// wildDocument is a document as served: renamed documents linked by
// their new names, gzip-compressed under a .gz name.
func wildDocument(w *scenario.Wild, base, own string, data []byte, ctype string) ([]byte, string) {
	if len(w.DocumentNames) == 0 {
		return data, ctype
	}
	froms := make([]string, 0, len(w.DocumentNames))
	for from := range w.DocumentNames {
		froms = append(froms, from)
	}
	sort.Strings(froms)
	for _, from := range froms {
		data = bytes.ReplaceAll(data, []byte(base+from+"<"), []byte(base+w.DocumentNames[from]+"<"))
		data = bytes.ReplaceAll(data, []byte(base+from+`"`), []byte(base+w.DocumentNames[from]+`"`))
	}
	if strings.HasSuffix(w.DocumentNames[own], ".gz") {
		return gzipped(data), "application/gzip"
	}
	return data, ctype
}

func gzipped(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// wildHeaders applies no-content-type and gzip-encoding (to documents)
// to a response about to be written, and returns the body to send.
func wildHeaders(w *scenario.Wild, h http.Header, r *http.Request, body []byte, document bool) []byte {
	if w.NoContentType {
		// A nil value: net/http does not sniff one.
		h["Content-Type"] = nil
	}
	if w.GzipEncoding && document && acceptsGzip(r) {
		h["Content-Encoding"] = []string{"gzip"}
		h.Add("Vary", "Accept-Encoding")
		return gzipped(body)
	}
	return body
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.TrimSpace(c)
			if c == "gzip" || strings.HasPrefix(c, "gzip;") && !strings.Contains(c, "q=0") || c == "*" {
				return true
			}
		}
	}
	return false
}

// writeChunked sends body without Content-Length, in two flushed writes:
// HTTP/1.1 then sends it chunked.
func writeChunked(w *recorder, body []byte) {
	delete(w.Header(), "Content-Length")
	half := len(body) / 2
	w.Write(body[:half])
	w.Flush()
	w.Write(body[half:])
}
