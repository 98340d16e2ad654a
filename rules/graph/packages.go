package graph

import (
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Dumps and their packages (11, 13): the manifest inside each ZIP package,
// its bitstreams, and the copy a contents link points at.

// manifestKindOf is the manifest kind of a dump kind.
func manifestKindOf(k rs.Kind) rs.Kind {
	if k.Base() == rs.ChangeDump {
		return rs.ChangeDumpManifest
	}
	return rs.ResourceDumpManifest
}

// 13.1: "If such pointers are provided, the Source must ensure that the
// Manifest referred to matches the Manifest included in the bitstream
// package."
var DumpContents = &engine.Rule{
	ID: "RS-DUMP-CONTENTS", Section: "13.1", Level: engine.Must,
	Title: "A dump entry's contents link leads to a manifest equal to the manifest.xml of the package",
	Quote: "If such pointers are provided, the Source must ensure that the Manifest referred to matches the Manifest included in the bitstream package.",
	Doc: "Section 11.1 says the same of Resource Dumps (\"the Source needs to ensure that the referred Manifest corresponds with the Manifest included in the bitstream package\"). " +
		"The target of a contents link must be a manifest of the dump's kind (a Resource Dump Manifest for a Resource Dump). With --packages, it must also say what the package's manifest.xml says: they are compared as parsed documents (white space, attribute order and comments aside).",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.docs() {
			if n.Kind != rs.ResourceDump && n.Kind != rs.ChangeDump {
				continue
			}
			want := manifestKindOf(n.Kind)
			for _, e := range n.Doc.Entries {
				for _, l := range e.LinksByRel("contents") {
					c := p.Graph.Target(n.URL, l.Href)
					if unknownTarget(c) {
						continue
					}
					if !c.Parsed() || c.Kind != want {
						p.Reportf(n.URL, l.Pos, "the contents link leads to %s, which is %s, not a %s", c.URL, c.KindName(), want.Title())
						continue
					}
					pkg := p.Graph.Target(n.URL, e.Loc)
					if pkg == nil || pkg.Package == nil || pkg.Package.Manifest == "" {
						continue
					}
					m := p.Graph.Node(pkg.Package.Manifest)
					if m.Parsed() && m.Canonical != "" && c.Canonical != "" && m.Canonical != c.Canonical {
						p.ReportRelated(n.URL, l.Pos, []engine.Location{loc(c.URL, c.Doc.Pos), loc(m.URL, m.Doc.Pos)},
							"the manifest at %s does not match the manifest.xml in the package %s", c.URL, pkg.URL)
					}
				}
			}
		}
		return nil
	}),
}

// 11.2: "The file must be named manifest.xml and must be located at the top
// level of the ZIP package."
var PackageManifest = &engine.Rule{
	ID: "RS-PKG-MANIFEST", Section: "11.2", Level: engine.Must,
	Title: "A package has its manifest, of the dump's kind, as manifest.xml at its top level",
	Quote: "Each ZIP package referred to from a Resource Dump must contain a Resource Dump Manifest file that describes the package's constituent bitstreams. The file must be named manifest.xml and must be located at the top level of the ZIP package.",
	Doc:   "Section 13.2 says the same of Change Dump packages. Checked with --packages. The manifest of a Resource Dump's package is a Resource Dump Manifest, of a Change Dump's a Change Dump Manifest.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			pf := n.Package
			if pf == nil || pf.Problem != "" {
				continue
			}
			if pf.Manifest == "" {
				msg := "the package has no manifest.xml at its top level"
				if pf.NestedManifest != "" {
					msg += "; it has " + pf.NestedManifest + ", which is not at the top level"
				}
				p.Reportf(n.URL, rs.Pos{}, "%s", msg)
				continue
			}
			m := p.Graph.Node(pf.Manifest)
			if !m.Parsed() {
				continue
			}
			for _, e := range n.In {
				d := p.Graph.Node(e.From)
				if e.Rel != "loc" || !d.Parsed() || (d.Kind != rs.ResourceDump && d.Kind != rs.ChangeDump) {
					continue
				}
				if want := manifestKindOf(d.Kind); m.Kind != want {
					p.Reportf(m.URL, m.Doc.Pos, "manifest.xml is %s; the package of a %s holds a %s", m.KindName(), d.Kind.Title(), want.Title())
				}
				break
			}
		}
		return nil
	}),
}

// bitstreamFacts calls fn for every bitstream fact of the given problems.
func bitstreamFacts(g *Graph, problems string, fn func(pkg *Node, f BitstreamFact)) {
	for _, n := range g.Sorted() {
		if n.Package == nil || n.Package.Manifest == "" {
			continue
		}
		for _, f := range n.Package.Bitstreams {
			if strings.Contains(problems, f.Problem) {
				fn(n, f)
			}
		}
	}
}

// 11.2: "A mandatory <rs:md> child element must have a path attribute to
// convey the location of the bitstream within the package."
var PackagePaths = &engine.Rule{
	ID: "RS-PKG-PATHS", Section: "11.2", Level: engine.Must,
	Title: "Every path of the manifest names a bitstream of the package",
	Quote: "A mandatory <rs:md> child element must have a path attribute to convey the location of the bitstream within the package. The value of the attribute is relative to root of the package, and it is expressed with a leading slash (/).",
	Doc:   "Checked with --packages: /resources/res1 must be the ZIP entry resources/res1. Section 13.2 says the same of Change Dump Manifests, except for change=\"deleted\" entries, which have no path.",
	CheckGraph: Check(func(p *Pass) error {
		bitstreamFacts(p.Graph, BitstreamMissing, func(pkg *Node, f BitstreamFact) {
			p.Reportf(pkg.Package.Manifest, f.Pos, "path %q names no entry of the package %s", f.Path, pkg.URL)
		})
		return nil
	}),
}

// 7: "path – ... Its value conveys the file path of the bitstream
// associated with the URI in <loc> in the ZIP file. That is the relative
// file system path where the bitstream would reside if the ZIP were
// unpacked."
var PackageUnsafePath = &engine.Rule{
	ID: "RS-PKG-UNSAFE-PATH", Section: "7", Level: engine.Must,
	Title: "Every member of a package is a file that unpacks inside the package's folder",
	Quote: "Its value conveys the file path of the bitstream associated with the URI in <loc> in the ZIP file. That is the relative file system path where the bitstream would reside if the ZIP were unpacked.",
	Doc: "A ZIP member with a '..' segment, an absolute name, a drive letter or a backslash would make a Destination that unpacks the package write outside its folder (zip-slip); a member that is a symbolic link (to /etc/passwd, say) is no bitstream and leads wherever it points once unpacked; neither is a relative path within the package. Two members of one name are refused too: unpacked, one overwrites the other, and which is the bitstream depends on the tool. " +
		"Checked with --packages on the ZIP members, by the policy RS-PATH-INSIDE applies to manifest paths (reported on the manifest, and not again here); rsconform sync refuses the same members for the same reasons. rsconform never unpacks a package to disk.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			if n.Package == nil {
				continue
			}
			for _, m := range n.Package.UnsafeMembers {
				p.Reportf(n.URL, rs.Pos{}, "ZIP member %s: a Destination that unpacks the package would not get a bitstream inside its folder", m)
			}
		}
		return nil
	}),
}

// 11.2: "The <rs:md> element may further have the attributes hash and
// length, as described in Section 7."
var PackageBitstream = &engine.Rule{
	ID: "RS-PKG-BITSTREAM", Section: "11.2", Level: engine.Must,
	Title: "Each bitstream of a package has the length and hash its manifest gives",
	Quote: "The use of the type attribute in the <rs:md> element is recommended to help Destinations determine the Media Type of the bitstream. The <rs:md> element may further have the attributes hash and length, as described in Section 7.",
	Doc: "Section 7: length \"conveys the content length of a resource representation\" and hash \"conveys fixity information for a resource representation\"; in a manifest the representation is the bitstream. " +
		"Checked with --packages for md5, sha-1, sha-256 and sha-512; every algorithm given is checked.",
	CheckGraph: Check(func(p *Pass) error {
		bitstreamFacts(p.Graph, BitstreamLength+" "+BitstreamHash, func(pkg *Node, f BitstreamFact) {
			if f.Problem == BitstreamLength {
				p.Reportf(pkg.Package.Manifest, f.Pos, "the bitstream %s of %s has %s bytes; the manifest says length=%s", f.Path, f.Loc, f.Got, f.Want)
			} else {
				p.Reportf(pkg.Package.Manifest, f.Pos, "the bitstream %s of %s has digest %s; the manifest says %s", f.Path, f.Loc, f.Got, f.Want)
			}
		})
		return nil
	}),
}

// 11.2: "One <url> child element of <urlset> per bitstream."
var PackageUnlisted = &engine.Rule{
	ID: "RS-PKG-UNLISTED", Section: "11.2", Level: engine.Must,
	Title: "Every bitstream of a package is described by its manifest",
	Quote: "Each ZIP package referred to from a Resource Dump must contain a Resource Dump Manifest file that describes the package's constituent bitstreams.",
	Doc:   "Section 11.2 continues: \"One <url> child element of <urlset> per bitstream.\" Checked with --packages: a ZIP entry (other than manifest.xml and folders) whose name no manifest path gives is a bitstream no one described.",
	CheckGraph: Check(func(p *Pass) error {
		for _, n := range p.Graph.Sorted() {
			pf := n.Package
			if pf == nil || pf.Problem != "" || pf.Manifest == "" || pf.UnlistedCount == 0 {
				continue
			}
			list := strings.Join(pf.Unlisted, ", ")
			if pf.UnlistedCount > len(pf.Unlisted) {
				list += ", …"
			}
			p.Reportf(n.URL, rs.Pos{}, "%d ZIP entries are described by no <url> of manifest.xml: %s", pf.UnlistedCount, list)
		}
		return nil
	}),
}

func init() {
	engine.Register(DumpContents, PackageManifest, PackagePaths, PackageUnsafePath, PackageBitstream, PackageUnlisted)
}
