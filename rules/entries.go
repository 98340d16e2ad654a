package rules

import (
	"net/url"
	"strings"
)

// 7: "<loc> – A mandatory element that conveys the URI of the resource that
// plays a role in the ResourceSync framework." The Sitemap protocol requires
// the full URL, with protocol.
var LocAbsolute = &Rule{
	ID: "RS-LOC-URI", Section: "7", Level: Must,
	Title: "Every <loc> holds an absolute URI",
	Quote: "<loc> – A mandatory element that conveys the URI of the resource that plays a role in the ResourceSync framework.",
	Doc: "The Sitemap protocol, on which section 7 builds, requires a fully qualified URL (with scheme); relative references cannot be dereferenced by a Destination. " +
		"A missing <loc> is reported by RS-XSD (the schema requires it), so that it is reported once.",
	Check: func(p *Pass) error {
		for _, e := range p.Doc.Entries {
			if !e.HasLoc() {
				continue
			}
			if msg := absoluteURIProblem(e.Loc); msg != "" {
				p.Reportf(e.LocPos, "<loc> %q %s", truncateValue(e.Loc), msg)
			}
		}
		return nil
	},
}

// absoluteURIProblem returns why s is not an absolute URI, or "".
func absoluteURIProblem(s string) string {
	if s == "" {
		return "is empty"
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "contains white space (escape it as %20)"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "is not a URI: " + strings.TrimPrefix(err.Error(), "parse "+`"`+s+`": `)
	}
	if !u.IsAbs() {
		return "is a relative reference: an absolute URI with scheme and host is required"
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "has no host"
	}
	return ""
}

func truncateValue(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

func init() { register(LocAbsolute) }
