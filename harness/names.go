package harness

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// Where the harness expects a resource in DIR. The Destination keeps the
// resource with URI http://host/PATH?QUERY (the Source's origin) in the
// file DIR/PATH?QUERY: the path as the URI writes it, escapes and all,
// never decoded (/res/a%2Fb.txt is the file res/a%2Fb.txt, not res/a/b.txt,
// which is another resource); a query, when there is one, after "?" at the
// end of the file name, with "%" written "%25" and "/" written "%2F" so
// that it stays one name. A path beyond ASCII (an IRI, /res/café.txt) may
// be kept under its UTF-8 name or under its URI's escapes
// (res/caf%C3%A9.txt): both name the one URI (RFC 3987 3.1). Letters
// differing only in case are different names. rsconform sync names its
// files so (destination.Mapper); the harness keys the Source's resources,
// the requests of its log and the files of DIR by this name.
//
// A resource on the Source's second origin ({origin2}: another port of
// the same host, scenario second-origin) is kept under DIR/origin2: the
// URI {origin2}/res/a.txt is the file origin2/res/a.txt, whatever the
// first origin holds at /res/a.txt (another resource, other content). The
// Destination is told so on its command line (rsconform sync --map
// {origin}=. --map {origin2}=origin2); the first origin has no resource
// under /origin2/, so the two never claim one name. A Destination that
// keeps both origins' /res/a.txt in one file, or drops the second origin,
// loses a resource (DEST-PRESENT, DEST-CURRENT).

// queryFileName writes a query into a file name, one to one.
var queryFileName = strings.NewReplacer("%", "%25", "/", "%2F")

// fileKey is the DIR name ("/res/q.txt?page=2") of a resource whose URI
// key (scenario.URIKey: escaped path, "?" and query) is key.
func fileKey(key string) string {
	path, query, ok := strings.Cut(key, "?")
	if !ok {
		return key
	}
	return path + "?" + queryFileName.Replace(query)
}

// dirKey is the key of a file of DIR at the slash path rel: "/" and rel,
// its bytes beyond ASCII escaped (the IRI's name written as its URI's).
func dirKey(rel string) string {
	for i := 0; i < len(rel); i++ {
		if rel[i] >= utf8.RuneSelf {
			var b strings.Builder
			b.WriteByte('/')
			for j := 0; j < len(rel); j++ {
				if c := rel[j]; c >= utf8.RuneSelf {
					fmt.Fprintf(&b, "%%%02X", c)
				} else {
					b.WriteByte(c)
				}
			}
			return b.String()
		}
	}
	return "/" + rel
}

// movedPrefix is where the mock serves the targets of its redirect faults.
const movedPrefix = "/moved/"

// requestKey is the DIR name of the resource a request of the log asked
// for (the target of a redirect fault is its resource; on the second
// origin, under origin2).
func requestKey(r mocksource.Request) string {
	p := r.Path
	if strings.HasPrefix(p, movedPrefix) {
		p = p[len(movedPrefix)-1:]
	}
	if r.Origin == 2 {
		p = scenario.Origin2Path + p
	}
	if r.Query != "" {
		p += "?" + r.Query
	}
	return fileKey(scenario.URIKey(p))
}

// expectedFiles keys the Source's expected state by DIR name.
func expectedFiles(exp map[string]mocksource.ExpectedResource) map[string]mocksource.ExpectedResource {
	out := make(map[string]mocksource.ExpectedResource, len(exp))
	for k, e := range exp {
		out[fileKey(k)] = e
	}
	return out
}
