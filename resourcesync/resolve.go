package resourcesync

import (
	"net/url"
	"strings"
)

// Resolve is the absolute URL a <loc>, an <rs:ln href> or a discovered link
// written in the document at base stands for, without its fragment (a
// fragment names no other resource); "" for an empty or malformed ref.
// The validator's cross-document rules, the crawl and discovery all
// resolve through it, so they agree on which document a link means.
func Resolve(base, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	out := b.ResolveReference(r).String()
	if i := strings.IndexByte(out, '#'); i >= 0 {
		out = out[:i]
	}
	return out
}
