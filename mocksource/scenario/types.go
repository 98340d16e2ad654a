package scenario

import "strings"

// The media types of a scenario's resources and the extensions of their
// paths: a created path's type is told from its extension, a generated
// path's extension from its type.

// MediaBase strips parameters from a media type.
func MediaBase(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(strings.ToLower(t))
}

// validType reports whether t is a media type: type/subtype, parameters
// aside, with nothing a document could not carry.
func validType(t string) bool {
	b := MediaBase(t)
	i := strings.IndexByte(b, '/')
	return i > 0 && i < len(b)-1 && !strings.ContainsAny(b, " \t\"<>&")
}

// extTypes maps file extensions to media types, both ways, for the paths
// of generated resources and for telling the type of a created path.
var extTypes = []struct{ ext, typ string }{
	{".txt", "text/plain"},
	{".html", "text/html"},
	{".json", "application/json"},
	{".xml", "application/xml"},
	{".csv", "text/csv"},
	{".css", "text/css"},
	{".md", "text/markdown"},
	{".bin", "application/octet-stream"},
	{".pdf", "application/pdf"},
	{".png", "image/png"},
	{".jpg", "image/jpeg"},
}

// ExtFor is the extension of a generated path of type typ (.bin for a
// type it does not know).
func ExtFor(typ string) string {
	b := MediaBase(typ)
	for _, e := range extTypes {
		if e.typ == b {
			return e.ext
		}
	}
	return ".bin"
}

// TypeForPath is the media type told by the extension of the path p (its
// query aside), or "".
func TypeForPath(p string) string {
	p, _, _ = strings.Cut(p, "?")
	for _, e := range extTypes {
		if strings.HasSuffix(p, e.ext) {
			return e.typ
		}
	}
	return ""
}
