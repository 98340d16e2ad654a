package crawler

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

type htmlLink struct {
	href string
	line int
}

// htmlLinkTargets returns the <link rel="resourcesync" href="..."> of an
// HTML page (section 6.3.3), with their lines.
func htmlLinkTargets(page []byte) []htmlLink {
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
		var rel, href string
		for {
			k, v, more := z.TagAttr()
			switch string(k) {
			case "rel":
				rel = string(v)
			case "href":
				href = string(v)
			}
			if !more {
				break
			}
		}
		for _, r := range strings.Fields(rel) {
			if strings.EqualFold(r, "resourcesync") && strings.TrimSpace(href) != "" {
				out = append(out, htmlLink{href: strings.TrimSpace(href), line: start})
				break
			}
		}
	}
}
