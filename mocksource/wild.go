package mocksource

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Wild is what a scenario may ask of the Source to reproduce what Sources
// seen in the wild do, each a field of the scenario's YAML. The
// Destination scenarios of "Mistakes seen in the wild" (docs/wild.md) use
// them.
type Wild struct {
	// TimeOffsets ("time-offsets": [+01:00, -05:00, +05:30]) makes the
	// Source write every datetime at these offsets from UTC (offsets.go).
	TimeOffsets []string
	// BearerToken ("bearer-token") makes the Source answer 401 to every
	// request without "Authorization: Bearer TOKEN", as a Source behind
	// an access token does; the harness gives the token to the
	// Destination ({token}, RSCONFORM_TOKEN).
	BearerToken string
	// DocumentNames ("document-names": {/dataset1/resourcelist.xml:
	// /lists/all.xml.gz}) serves documents under other names, linked as
	// such from every document; the Source's own names answer 404. A name
	// ending in .gz is served gzip-compressed (application/gzip), as
	// Sitemap files may be.
	DocumentNames map[string]string
	// GzipEncoding ("gzip-encoding") sends documents with
	// Content-Encoding: gzip to a client that accepts it.
	GzipEncoding bool
	// NoContentType ("no-content-type") answers without a Content-Type
	// header; Chunked ("chunked") without Content-Length, the body in
	// chunks.
	NoContentType bool
	Chunked       bool
}

// offsetSeconds are the TimeOffsets in seconds east of UTC; a value that
// is not an offset (ParseScenario refuses them) is left out.
func (w *Wild) offsetSeconds() []int {
	var out []int
	for _, o := range w.TimeOffsets {
		if off, err := parseOffset(o); err == nil {
			out = append(out, off)
		}
	}
	return out
}

// wildFields are the scenario fields of Wild.
func (p *scParser) wildFields(sc *Scenario) map[string]func(*yaml.Node) error {
	return map[string]func(*yaml.Node) error{
		"time-offsets": func(v *yaml.Node) error {
			if err := p.strList(v, "time-offsets", &sc.TimeOffsets); err != nil {
				return err
			}
			for _, o := range sc.TimeOffsets {
				if _, err := parseOffset(o); err != nil {
					return p.errf(v, "time-offsets: %v", err)
				}
			}
			return nil
		},
		"bearer-token": func(v *yaml.Node) error {
			if err := p.str(v, "bearer-token", &sc.BearerToken); err != nil {
				return err
			}
			if !tokenSyntax(sc.BearerToken) {
				return p.errf(v, "bearer-token %q is not a bearer token (RFC 6750 2.1: letters, digits and -._~+/ then any =)", sc.BearerToken)
			}
			return nil
		},
		"document-names": func(v *yaml.Node) error {
			sc.DocumentNames = map[string]string{}
			return p.fields(v, "document-names", p.nameFields(sc, v))
		},
		"gzip-encoding":   func(v *yaml.Node) error { return p.boolean(v, "gzip-encoding", &sc.GzipEncoding) },
		"no-content-type": func(v *yaml.Node) error { return p.boolean(v, "no-content-type", &sc.NoContentType) },
		"chunked":         func(v *yaml.Node) error { return p.boolean(v, "chunked", &sc.Chunked) },
	}
}

// renamable are the documents document-names may rename.
var renamable = []string{pathCapList, "/dataset1/resourcelist.xml", "/dataset1/changelist.xml"}

// nameFields accepts one field per renamable document.
func (p *scParser) nameFields(sc *Scenario, n *yaml.Node) map[string]func(*yaml.Node) error {
	set := map[string]func(*yaml.Node) error{}
	for _, from := range renamable {
		set[from] = func(v *yaml.Node) error {
			var to string
			if err := p.str(v, "document-names "+from, &to); err != nil {
				return err
			}
			if msg := checkResourcePath(to); msg != "" && !strings.HasPrefix(to, "/dataset1/") || !strings.HasPrefix(to, "/") || strings.Contains(to, "//") {
				return p.errf(v, "document-names %s: %q is not a plain path", from, to)
			}
			for f, t := range sc.DocumentNames {
				if t == to {
					return p.errf(v, "document-names: %s and %s both named %s", f, from, to)
				}
			}
			sc.DocumentNames[from] = to
			return nil
		}
	}
	return set
}

func tokenSyntax(t string) bool {
	t = strings.TrimRight(t, "=")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}

// wildRefused answers 401 to a request without the scenario's bearer
// token; it reports whether it did.
func (w *Wild) wildRefused(rw http.ResponseWriter, r *http.Request) bool {
	if w.BearerToken == "" || r.Header.Get("Authorization") == "Bearer "+w.BearerToken {
		return false
	}
	rw.Header().Set("WWW-Authenticate", `Bearer realm="rsconform mock Source"`)
	http.Error(rw, "a bearer token is required (Authorization: Bearer ...)", http.StatusUnauthorized)
	return true
}

// ownPath is the Source's own name for the path a client asked for;
// ok is false for a renamed document asked for by its own name.
func (w *Wild) ownPath(p string) (string, bool) {
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
func (w *Wild) wildDocument(base, own string, data []byte, ctype string) ([]byte, string) {
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
func (w *Wild) wildHeaders(h http.Header, r *http.Request, body []byte, document bool) []byte {
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

// mergeFields is a with b's fields added.
func mergeFields(a, b map[string]func(*yaml.Node) error) map[string]func(*yaml.Node) error {
	for k, f := range b {
		a[k] = f
	}
	return a
}
