package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Wild is what a scenario may ask of the Source to reproduce what Sources
// seen in the wild do, each a field of the scenario's YAML. The
// Destination scenarios of "Mistakes seen in the wild" (docs/wild.md) use
// them.
type Wild struct {
	// TimeOffsets ("time-offsets": [+01:00, -05:00, +05:30]) makes the
	// Source write every datetime at these offsets from UTC (the mock's
	// offsets.go).
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

// OffsetSeconds are the TimeOffsets in seconds east of UTC; a value that
// is not an offset (Parse refuses them) is left out.
func (w *Wild) OffsetSeconds() []int {
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
var renamable = []string{"/dataset1/capabilitylist.xml", "/dataset1/resourcelist.xml", "/dataset1/changelist.xml"}

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

// mergeFields is a with b's fields added.
func mergeFields(a, b map[string]func(*yaml.Node) error) map[string]func(*yaml.Node) error {
	for k, f := range b {
		a[k] = f
	}
	return a
}

// parseOffset reads "+hh:mm" or "-hh:mm" into seconds east of UTC.
func parseOffset(s string) (int, error) {
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, fmt.Errorf("%q is not a time zone offset such as +01:00 or -05:00", s)
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[4:6])
	if err1 != nil || err2 != nil || h > 23 || m > 59 {
		return 0, fmt.Errorf("%q is not a time zone offset such as +01:00 or -05:00", s)
	}
	off := h*3600 + m*60
	if off == 0 {
		return 0, fmt.Errorf("%q is UTC: give offsets other than +00:00", s)
	}
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}
