// Package safefile opens the files rsconform is named on the command line
// or keeps for itself (configuration, baseline, state and lock files) the
// one way: never through a symbolic link where the tool writes, and never
// more than a bound into memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// OpenOwn opens a file the tool keeps for itself and may create or write
// (a state file, a lock, a baseline), never through a symbolic link: a
// link planted where the file goes, dangling or not, would make the tool
// create or read a file elsewhere. A link gives an error that says so.
func OpenOwn(name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|noFollow, perm)
	if err != nil {
		return nil, linkError(err)
	}
	return f, nil
}

// linkError says plainly that a name was a symbolic link.
func linkError(err error) error {
	if noFollow != 0 && errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%w (a symbolic link, not followed)", err)
	}
	return err
}

// LimitError is a file refused because it is larger than Limit bytes.
type LimitError struct {
	Name  string
	What  string // "configuration file", "baseline"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: the %s is larger than %s, more than any %s needs: refused", e.Name, e.What, Size(e.Limit), e.What)
}

// Refused reports whether err is a file refused unread, too large or not a
// regular file (a *LimitError or a *NotRegularError): its message already
// names the file, so callers return it as it is.
func Refused(err error) bool {
	var limit *LimitError
	var notRegular *NotRegularError
	return errors.As(err, &limit) || errors.As(err, &notRegular)
}

// NotRegularError is a name refused because it is not a regular file (a
// device, a pipe, a directory).
type NotRegularError struct {
	Name string
	What string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: the %s is %s, not a regular file: refused", e.Name, e.What, kind(e.Mode))
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Size is n bytes as a message says it: whole MiB as such, else bytes.
func Size(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens the regular file name for reading within limit bytes: what
// is not a regular file (/dev/zero, a pipe, a directory) or is larger
// than limit is refused before anything is read. With own set, name is a
// file the tool keeps for itself (see OpenOwn) and a symbolic link is
// refused; otherwise a link is followed (a configuration file kept with
// one's dotfiles). what names the file in errors. The reader returned
// stops at limit bytes, with a *LimitError, should the file grow while it
// is read.
func Open(name, what string, limit int64, own bool) (io.ReadCloser, error) {
	flag := os.O_RDONLY
	if own {
		flag |= noFollow
	}
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer.
	f, err := os.OpenFile(name, flag|nonBlock, 0)
	if err != nil {
		return nil, linkError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Name: name, What: what, Mode: st.Mode()}
	}
	if st.Size() > limit {
		f.Close()
		return nil, &LimitError{Name: name, What: what, Limit: limit}
	}
	return struct {
		io.Reader
		io.Closer
	}{LimitReader(f, limit, &LimitError{Name: name, What: what, Limit: limit}), f}, nil
}

// ReadFile is Open and reading the whole file.
func ReadFile(name, what string, limit int64, own bool) ([]byte, error) {
	r, err := Open(name, what, limit, own)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// LimitReader reads r up to limit bytes, then fails with err if r has
// more. Unlike io.LimitReader, what is beyond the limit is an error, not
// the end: a file or pipe that is too large is refused, never cut short.
func LimitReader(r io.Reader, limit int64, err error) io.Reader {
	return &limited{r: r, left: limit, err: err}
}

type limited struct {
	r    io.Reader
	left int64
	err  error
}

func (l *limited) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.left <= 0 {
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, l.err
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// WithoutPath is the cause of a *fs.PathError ("no such file or
// directory"), for a message that names the file already; another error
// as it is.
func WithoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
