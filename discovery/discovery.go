// Package discovery is how a client finds a Source's ResourceSync
// documents from a web site (section 6.3): the well-known URI
// (/.well-known/resourcesync, 6.3.2), a link with rel="resourcesync" in an
// HTML page or an HTTP Link header (6.3.3), and the Sitemap directives of
// robots.txt (6.3.4). The crawl and sync both read a site through it, so
// they find the same documents.
//
// The package parses what was fetched; fetching is the caller's (through
// sourcehttp). It prints nothing.
package discovery

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// The discovery methods, as reported.
const (
	MethodWellKnown = "well-known"
	MethodRobots    = "robots.txt"
	MethodHTMLLink  = "html-link"
	MethodHTTPLink  = "http-link"
)

// Rel is the link relation of 6.3.3.
const Rel = "resourcesync"

// WellKnownPath is the well-known URI of a Source Description (6.3.2).
const WellKnownPath = "/.well-known/resourcesync"

// MaxPageBytes bounds what is read of an HTML page or a robots.txt.
const MaxPageBytes = 2 << 20

// Target is a URL a discovery method gave.
type Target struct {
	Method string
	// URL is absolute, without a fragment.
	URL string
	// From is the page or file it was found in; Line its line there, when
	// known (robots.txt, HTML).
	From string
	Line int
}

// siteURL is the scheme and authority of u with path p.
func siteURL(u *url.URL, p string) string {
	return u.Scheme + "://" + u.Host + p
}

// WellKnown is the well-known URI of the site of u.
func WellKnown(u *url.URL) string { return siteURL(u, WellKnownPath) }

// RobotsTxt is the robots.txt of the site of u.
func RobotsTxt(u *url.URL) string { return siteURL(u, "/robots.txt") }

// IsSiteRoot reports whether u is a site root ("/" or no path, no query),
// where nothing but discovery is expected.
func IsSiteRoot(u *url.URL) bool {
	return (u.Path == "" || u.Path == "/") && u.RawQuery == ""
}

// FromPage returns the targets a page links to (6.3.3): its Link headers,
// then its HTML <link> elements, in order. body may be nil (not HTML, or
// not read).
func FromPage(page string, h http.Header, body []byte) []Target {
	var out []Target
	for _, l := range sourcehttp.LinkTargets(h, Rel) {
		if u := rs.Resolve(page, l); u != "" {
			out = append(out, Target{Method: MethodHTTPLink, URL: u, From: page})
		}
	}
	for _, l := range htmlLinks(body) {
		if u := rs.Resolve(page, l.href); u != "" {
			out = append(out, Target{Method: MethodHTMLLink, URL: u, From: page, Line: l.line})
		}
	}
	return out
}

// FromRobots returns the Sitemap directives of a robots.txt (6.3.4),
// comments stripped, resolved against its URL.
func FromRobots(robots string, data []byte) []Target {
	var out []Target
	for i, line := range strings.Split(string(data), "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "sitemap") {
			continue
		}
		if u := rs.Resolve(robots, v); u != "" {
			out = append(out, Target{Method: MethodRobots, URL: u, From: robots, Line: i + 1})
		}
	}
	return out
}

// LooksHTML reports whether a body is an HTML page rather than XML.
func LooksHTML(data []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(data[:min(len(data), 512)]))
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

type htmlLink struct {
	href string
	line int
}

// htmlLinks returns the <link rel="resourcesync" href="..."> of an HTML
// page, with their lines.
func htmlLinks(page []byte) []htmlLink {
	if len(page) == 0 {
		return nil
	}
	var out []htmlLink
	z := html.NewTokenizer(bytes.NewReader(page))
	line := 1
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		raw := z.Raw()
		start := line
		line += bytes.Count(raw, []byte("\n"))
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "link" || !hasAttr {
			continue
		}
		var href string
		match := false
		for {
			k, v, more := z.TagAttr()
			switch string(k) {
			case "rel":
				for _, r := range strings.Fields(string(v)) {
					if strings.EqualFold(r, Rel) {
						match = true
					}
				}
			case "href":
				href = strings.TrimSpace(string(v))
			}
			if !more {
				break
			}
		}
		if match && href != "" {
			out = append(out, htmlLink{href: href, line: start})
		}
	}
}
