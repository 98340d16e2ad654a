package resourcesync

import (
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// Paths within dump packages (sections 7, 11.2 and 13.2). One policy says
// which paths and ZIP members name a bitstream inside the package, for the
// rules (RS-PATH-INSIDE, RS-PKG-UNSAFE-PATH), the crawler and the
// Destination alike, so that a crawl and a sync always agree on a package.

// PackagePath is the path attribute of a manifest entry: "the relative
// file system path where the bitstream would reside if the ZIP were
// unpacked" (7), "relative to root of the package, and ... expressed with
// a leading slash" (11.2).
type PackagePath string

// Member is the name of the ZIP member p denotes: p without its leading
// slash. (A missing leading slash is RS-RDM-PATH's and RS-CDM-PATH's to
// report; the path is read from the root of the package all the same.)
func (p PackagePath) Member() string { return strings.TrimPrefix(string(p), "/") }

// Check returns a *PathError when p does not name a file inside the
// package, unambiguously on every system: see CheckMember.
func (p PackagePath) Check() error {
	if why := memberNameProblem(p.Member()); why != "" {
		return &PathError{Path: string(p), Reason: why}
	}
	return nil
}

// PathError is a package path or ZIP member that names no bitstream inside
// the package, and why.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("%q: %s", e.Path, e.Reason) }

// CheckMember returns a *PathError when the ZIP member name, of the given
// mode, is not a bitstream that unpacks inside the package's folder: an
// empty or absolute name, a drive letter, a backslash (a separator on
// Windows, part of a name elsewhere), a '..', '.' or empty segment, a
// control character, a name that is not UTF-8, a segment longer than a
// file system holds, or a member that is not a regular file (a symbolic
// link above all: unpacked, it leads wherever it points, /etc/passwd
// included). A folder entry (a name ending in '/') is checked on its name.
func CheckMember(name string, mode fs.FileMode) error {
	why := ""
	switch {
	case mode.IsDir() && strings.HasSuffix(name, "/") && name != "/":
		why = memberNameProblem(strings.TrimSuffix(name, "/"))
	case mode&fs.ModeSymlink != 0:
		why = "a symbolic link, not a bitstream"
	case !mode.IsRegular() && !mode.IsDir():
		why = fmt.Sprintf("not a regular file (%v)", mode.Type())
	default:
		why = memberNameProblem(name)
	}
	if why != "" {
		return &PathError{Path: name, Reason: why}
	}
	return nil
}

// memberNameProblem says why a member name (a package path without its
// leading slash) does not name a file inside the package, or "".
func memberNameProblem(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case name[0] == '/':
		return "an absolute path"
	case strings.ContainsRune(name, '\\'):
		return "a backslash: segments are separated by '/' (a backslash is a separator on Windows)"
	case len(name) >= 2 && name[1] == ':' && (name[0]|0x20 >= 'a' && name[0]|0x20 <= 'z'):
		return "a drive letter"
	case !utf8.ValidString(name):
		return "not UTF-8"
	}
	segs := strings.Split(name, "/")
	for i, s := range segs {
		switch {
		case s == "..":
			return "a '..' segment: it would name a file outside the package"
		case s == ".":
			return "a '.' segment: write the path without it"
		case s == "" && i < len(segs)-1:
			return "an empty segment ('//')"
		case s == "":
			return "a trailing '/': it names a folder, not a bitstream"
		case len(s) > 255:
			return "a segment longer than 255 bytes, more than file systems hold"
		}
		for _, r := range s {
			if r < 0x20 || r == 0x7f {
				return "a control character"
			}
		}
	}
	return ""
}
