package destination

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Names the Destination keeps for itself at the top of DIR.
const (
	tmpDirName      = ".rsconform-tmp"
	rejectedDirName = ".rsconform-rejected"
)

// PathError is a URI that does not map to a file inside DIR.
type PathError struct {
	Name   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("%q: %s", e.Name, e.Reason) }

// Mapper maps resource URLs to files of DIR. The mapping, the one rule
// by which rsconform sync names its files:
//
//   - Each Map (--map URL=SUBDIR, parsed by sourcehttp.ParseMap, the
//     crawl's --map too) covers the URLs of one origin (scheme, host and
//     port; the scheme and host compared without case, a default port the
//     same as none) whose path starts with its path (sourcehttp.Prefix).
//     A URL goes through the Map with the longest such prefix
//     (sourcehttp.Longest); a URL that no Map covers is refused,
//     so two hosts (127.0.0.1 and localhost) never share a file. Without
//     --map, the one Map is the origin of SOURCE to DIR itself.
//
//   - The rest of the URL's path is kept as it is written, escapes and
//     all, never decoded: /res/%73hared.txt is the file res/%73hared.txt,
//     another than res/shared.txt. An empty last segment (a path ending
//     with a slash) gets indexName; a query goes at the end of the last
//     segment after "?", with "%" written "%25" and "/" written "%2F".
//
//   - Segments "." and "..", empty segments (//), segments longer than
//     255 bytes, and a first segment starting with .rsconform (the
//     Destination's own names) are refused: the file is always inside DIR.
//
//   - A Map's directory is its own: when it lies inside another Map's
//     (--map http://h/=. --map http://h:8081/=origin2, a second origin in
//     a subdirectory), a URL of the outer Map whose file would fall in it
//     (http://h/origin2/a) is refused, so the two origins never share a
//     file. Two Maps to one directory could share any name: NewMapper
//     refuses them.
//
// Distinct URLs thus get distinct files, but for the index name
// (http://h/a/ and http://h/a/index.html): the syncer refuses the second
// URL that claims a file, before writing anything.
type Mapper struct {
	maps  []sourcehttp.Map // Dir relative to DIR, slash-separated, "" for DIR
	index string
}

// NewMapper checks the Maps (none: SOURCE's origin to DIR) and returns
// the Mapper.
func NewMapper(source string, maps []sourcehttp.Map, indexName string) (*Mapper, error) {
	if len(maps) == 0 {
		u, err := url.Parse(strings.TrimSpace(source))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &PathError{source, "not an http or https URI"}
		}
		maps = []sourcehttp.Map{{Prefix: sourcehttp.Prefix{Origin: sourcehttp.OriginOf(u), Path: "/"}}}
	}
	m := &Mapper{index: indexName}
	for _, mp := range maps {
		dir := strings.Trim(filepath.ToSlash(mp.Dir), "/")
		if dir == "." {
			dir = ""
		}
		if dir != "" {
			for _, seg := range strings.Split(dir, "/") {
				if msg := checkSegment(seg); msg != "" || !filepath.IsLocal(dir) {
					return nil, fmt.Errorf("--map %s: not a directory inside DIR", mp)
				}
			}
			if strings.HasPrefix(dir, reservedPrefix) {
				return nil, fmt.Errorf("--map %s: names starting with %s are the Destination's own", mp, reservedPrefix)
			}
		}
		m.maps = append(m.maps, sourcehttp.Map{Prefix: mp.Prefix, Dir: dir})
	}
	for i, a := range m.maps {
		for _, b := range m.maps[i+1:] {
			if err := overlap(a, b); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// overlap refuses two Maps whose files could share a name: the same URL
// prefix twice, or two prefixes to one directory. A directory inside the
// other's is kept apart by Path.
func overlap(a, b sourcehttp.Map) error {
	if a.Prefix == b.Prefix {
		return fmt.Errorf("--map %s and %s: the same URL mapped twice", a, b)
	}
	if a.Dir == b.Dir {
		return fmt.Errorf("--map %s and %s: the files of one could take the names of the other's; map them to separate directories", a, b)
	}
	return nil
}

// inside reports whether the slash path rel is dir or below it ("" is
// DIR, which holds everything).
func inside(rel, dir string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// Path is where the resource with URI rawURL is kept, relative to DIR,
// with slashes.
func (m *Mapper) Path(rawURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", &PathError{rawURL, "not a URI: " + err.Error()}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", &PathError{rawURL, "not an http or https URI"}
	}
	if u.Opaque != "" {
		return "", &PathError{rawURL, "an opaque URI has no path"}
	}
	i, rest := sourcehttp.Longest(m.maps, u)
	if i < 0 {
		var covered []string
		for _, c := range m.maps {
			covered = append(covered, c.Prefix.String())
		}
		return "", &PathError{rawURL, "no mapping covers this URI (" + sourcehttp.OriginOf(u).String() + "; mapped: " + strings.Join(covered, ", ") + "): it is not kept; --map URL=SUBDIR maps another origin"}
	}
	mp := m.maps[i]
	var segs []string
	if mp.Dir != "" {
		segs = strings.Split(mp.Dir, "/")
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		if p == "" {
			if i != len(parts)-1 {
				return "", &PathError{rawURL, "empty path segment (//)"}
			}
			p = m.index
		}
		if msg := checkSegment(p); msg != "" {
			return "", &PathError{rawURL, msg}
		}
		segs = append(segs, p)
	}
	if u.RawQuery != "" {
		last := segs[len(segs)-1] + "?" + queryName.Replace(u.RawQuery)
		if msg := checkSegment(last); msg != "" {
			return "", &PathError{rawURL, msg}
		}
		segs[len(segs)-1] = last
	}
	if strings.HasPrefix(segs[0], reservedPrefix) {
		return "", &PathError{rawURL, "the path starts with " + reservedPrefix + ", which the Destination keeps for itself"}
	}
	rel := strings.Join(segs, "/")
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", &PathError{rawURL, "does not name a file inside the directory"}
	}
	for _, other := range m.maps {
		if other.Dir != mp.Dir && inside(other.Dir, mp.Dir) && inside(rel, other.Dir) {
			return "", &PathError{rawURL, "maps to " + rel + ", in " + other.Dir + "/, which --map " + other.String() + " keeps for its own URLs: not kept"}
		}
	}
	return rel, nil
}

// queryName writes a query into a file name without a slash, one to one.
var queryName = strings.NewReplacer("%", "%25", "/", "%2F")

// checkSegment says what is wrong with one path segment, or "".
func checkSegment(s string) string {
	switch {
	case s == "":
		return "empty path segment"
	case s == "." || s == "..":
		return "path segment " + s + " would leave its directory"
	case len(s) > 255:
		return "path segment longer than 255 bytes"
	case !utf8.ValidString(s):
		return "path segment is not UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '/' || r == '\\':
			return "path segment holds an encoded slash or a backslash"
		case r < 0x20 || r == 0x7f:
			return "path segment holds a control character"
		}
	}
	return ""
}

// mirror is DIR, accessed only through an os.Root, so that no name, not
// even through a symbolic link planted in DIR, reaches outside it.
type mirror struct {
	dir  string
	root *os.Root
}

func openMirror(dir string) (*mirror, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	m := &mirror{dir: dir, root: root}
	// Left over by an interrupted run.
	if err := root.RemoveAll(tmpDirName); err != nil {
		root.Close()
		return nil, fmt.Errorf("clearing %s: %w", tmpDirName, err)
	}
	return m, nil
}

func (m *mirror) close() error {
	err := m.root.RemoveAll(tmpDirName)
	if cerr := m.root.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempFile is a new file in DIR's temporary directory; name is relative
// to DIR.
func (m *mirror) tempFile() (*os.File, string, error) {
	if err := m.root.MkdirAll(tmpDirName, 0o700); err != nil {
		return nil, "", err
	}
	var b [12]byte
	rand.Read(b[:])
	name := tmpDirName + "/" + hex.EncodeToString(b[:])
	f, err := m.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	return f, name, err
}

// install moves a finished temporary file to rel, replacing what is
// there; it refuses to replace a directory.
func (m *mirror) install(tmp, rel string) error {
	if dir := path.Dir(rel); dir != "." {
		if err := m.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s: %w", rel, safefile.WithoutPath(err))
		}
	}
	if st, err := m.root.Lstat(rel); err == nil && st.IsDir() {
		return fmt.Errorf("%s: a directory is in the way", rel)
	}
	if err := m.root.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := m.root.Rename(tmp, rel); err != nil {
		return fmt.Errorf("%s: %w", rel, safefile.WithoutPath(err))
	}
	return nil
}

// reject keeps a temporary file aside under .rsconform-rejected/rel.
func (m *mirror) reject(tmp, rel string) error {
	return m.install(tmp, rejectedDirName+"/"+rel)
}

// remove deletes rel and the directories it leaves empty. A file that is
// not there is not an error.
func (m *mirror) remove(rel string) error {
	st, err := m.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", rel)
	}
	if err := m.root.Remove(rel); err != nil {
		return err
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if m.root.Remove(dir) != nil {
			break // not empty, or gone
		}
	}
	return nil
}

// stat is the size of the regular file rel, or -1 when there is none.
func (m *mirror) size(rel string) int64 {
	st, err := m.root.Lstat(rel)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// hash computes the digests of rel.
func (m *mirror) hash(rel string, algs []string) (int64, map[string]string, error) {
	f, err := m.root.Open(rel)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	return hashFile(f, algs)
}

// walk lists the regular files of DIR (slash paths), leaving out the
// Destination's own names at the top and the state file.
func (m *mirror) walk(skip string) ([]string, error) {
	var out []string
	err := fs.WalkDir(m.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if !strings.Contains(p, "/") && strings.HasPrefix(p, reservedPrefix) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && p != skip {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
