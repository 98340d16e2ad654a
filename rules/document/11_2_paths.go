package document

import (
	"errors"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// 11.2: "The value of the attribute is relative to root of the package,
// and it is expressed with a leading slash (/)." 13.2 says the same of
// Change Dump Manifests.
var PathInside = &engine.Rule{
	ID: "RS-PATH-INSIDE", Section: "11.2", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDumpManifest, rs.ChangeDumpManifest},
	Title:   "Manifest paths name a file inside the package: no '..', '.' or empty segment, no backslash, drive letter or control character",
	Quote:   "A mandatory <rs:md> child element must have a path attribute to convey the location of the bitstream within the package. The value of the attribute is relative to root of the package, and it is expressed with a leading slash (/).",
	Doc: "A path names a bitstream within the package, from its root. A '..' segment climbs out of the package: a Destination that unpacks by path would write outside its directory (zip-slip), so rsconform reports it on the manifest itself; a crawl with --packages reports nothing more at that position. " +
		"'.' and empty segments ('//'), a second leading slash, a drive letter, backslashes (a Windows separator, or part of a name on other systems), control characters and segments longer than 255 bytes make a path mean different files, or no file, to different Destinations; a path ending in '/' names a folder. " +
		"This is the one path policy of rsconform: the crawl applies it to ZIP member names (RS-PKG-UNSAFE-PATH) and rsconform sync refuses what it refuses, for the same reason. " +
		"Checked on <rs:md path> and on the path of <rs:ln> (14.4: patch links in Change Dump Manifests); an empty path and the leading slash itself are RS-RDM-PATH's and RS-CDM-PATH's.",
	Check: func(p *engine.Pass) error {
		check := func(v string, pos rs.Pos, elem string) {
			if v == "" {
				return // RS-RDM-PATH, RS-CDM-PATH: "path is empty"
			}
			var pe *rs.PathError
			if errors.As(rs.PackagePath(v).Check(), &pe) {
				p.Reportf(pos, "path %q on %s has %s", truncateValue(v), elem, pe.Reason)
			}
		}
		md, ln := rs.MdAttrOf("path"), rs.LnAttrOf("path")
		for x := range p.ElementsWith(md.Set(), ln.Set()) {
			switch {
			case x.Entry == nil:
			case x.Md != nil:
				v, _ := x.Md.Attr(md)
				check(v, x.Md.AttrPos(md), "<rs:md>")
			default:
				v, _ := x.Ln.Attr(ln)
				check(v, x.Ln.AttrPos(ln), "<rs:ln>")
			}
		}
		return nil
	},
}

func init() { engine.Register(PathInside) }
