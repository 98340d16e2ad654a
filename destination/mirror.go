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

// MirrorPath is where the resource with URI rawURL is kept, relative to
// DIR, with slashes: the URI's path, percent-decoded segment by segment.
// An empty path or one ending in a slash gets indexName; a query is kept
// in the last segment after "?". Segments that are ".", "..", hold a
// slash, a backslash or a control character once decoded, or start the
// path with ".rsconform", are refused, so the result always names a file
// inside DIR.
func MirrorPath(rawURL, indexName string) (string, error) {
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
	raw := u.EscapedPath()
	var segs []string
	parts := strings.Split(raw, "/")
	for i, p := range parts {
		if p == "" {
			if i == len(parts)-1 {
				segs = append(segs, indexName)
			}
			continue
		}
		dec, err := url.PathUnescape(p)
		if err != nil {
			return "", &PathError{rawURL, "bad percent-encoding in " + p}
		}
		if msg := checkSegment(dec); msg != "" {
			return "", &PathError{rawURL, msg}
		}
		segs = append(segs, dec)
	}
	if len(segs) == 0 {
		segs = []string{indexName}
	}
	if u.RawQuery != "" {
		last := segs[len(segs)-1] + "?" + strings.ReplaceAll(u.RawQuery, "/", "%2F")
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
	return rel, nil
}

// checkSegment says what is wrong with one decoded path segment, or "".
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
			return fmt.Errorf("%s: %w", rel, unwrapPath(err))
		}
	}
	if st, err := m.root.Lstat(rel); err == nil && st.IsDir() {
		return fmt.Errorf("%s: a directory is in the way", rel)
	}
	if err := m.root.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := m.root.Rename(tmp, rel); err != nil {
		return fmt.Errorf("%s: %w", rel, unwrapPath(err))
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

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
