package rules

import (
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// 11.2: "The value of the attribute is relative to root of the package,
// and it is expressed with a leading slash (/)." 13.2 says the same of
// Change Dump Manifests.
var PathInside = &Rule{
	ID: "RS-PATH-INSIDE", Section: "11.2", Level: Must,
	Applies: []rs.Kind{rs.ResourceDumpManifest, rs.ChangeDumpManifest},
	Title:   "Manifest paths stay inside the package: no '..' or '.' segment, no backslash, no empty segment",
	Quote:   "A mandatory <rs:md> child element must have a path attribute to convey the location of the bitstream within the package. The value of the attribute is relative to root of the package, and it is expressed with a leading slash (/).",
	Doc: "A path names a bitstream within the package, from its root. A '..' segment climbs out of the package: a Destination that unpacks by path would write outside its directory (zip-slip), so rsconform reports it on the manifest itself, not only when a crawl opens the package (RS-PKG-UNSAFE-PATH). " +
		"'.' and empty segments ('//') and backslashes (a Windows separator, or part of a name on other systems) make a path mean different files to different Destinations. " +
		"Checked on <rs:md path> and on the path of <rs:ln> (14.4: patch links in Change Dump Manifests); the leading slash itself is RS-RDM-PATH's and RS-CDM-PATH's.",
	Check: func(p *Pass) error {
		check := func(v string, pos rs.Pos, elem string) {
			if msg := pathInsideProblem(v); msg != "" {
				p.Reportf(pos, "path %q on %s %s", truncateValue(v), elem, msg)
			}
		}
		for _, ref := range p.mds() {
			if v, ok := ref.md.Get("path"); ok && ref.entry != nil {
				check(v, ref.md.AttrPosition("path"), "<rs:md>")
			}
		}
		for _, ref := range p.lns() {
			if v, ok := ref.ln.Get("path"); ok && ref.entry != nil {
				check(v, ref.ln.AttrPosition("path"), "<rs:ln>")
			}
		}
		return nil
	},
}

func pathInsideProblem(v string) string {
	if strings.ContainsRune(v, '\\') {
		return "contains a backslash: segments are separated by '/'"
	}
	segs := strings.Split(strings.TrimPrefix(v, "/"), "/")
	for i, s := range segs {
		switch {
		case s == "..":
			return "has a '..' segment: it would name a file outside the package"
		case s == ".":
			return "has a '.' segment: write the path without it"
		case s == "" && i < len(segs)-1:
			return "has an empty segment ('//')"
		case s == "" && i == len(segs)-1 && len(segs) > 1:
			return "ends with '/': it names a folder, not a bitstream"
		}
	}
	return ""
}

func init() { register(PathInside) }
