package sourcehttp

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/rsconform/rsconform/internal/safefile"
)

// Headers collects the user's extra request headers (--header 'Name:
// value', --header-file FILE), for Sources behind a token. Its errors name
// a header by its name and position, never by its value: a bearer token
// must not reach a terminal or a log.
//
// Headers implements flag.Value for --header; Set never fails (the flag
// package would print the rejected value), the problem waits in Err.
type Headers struct {
	h    http.Header
	errs []string
	n    int
}

// Header returns the headers collected (nil when none).
func (hs *Headers) Header() http.Header {
	if hs == nil || len(hs.h) == 0 {
		return nil
	}
	return hs.h.Clone()
}

// String implements flag.Value; it shows the names only.
func (hs *Headers) String() string {
	if hs == nil {
		return ""
	}
	var names []string
	for k := range hs.h {
		names = append(names, k)
	}
	return strings.Join(names, ", ")
}

// Set adds one 'Name: value' header.
func (hs *Headers) Set(line string) error {
	hs.n++
	hs.add(fmt.Sprintf("--header #%d", hs.n), line)
	return nil
}

// MaxHeaderFileBytes bounds a --header-file read: a few tokens. The file
// may be a pipe (a shell's <(...), keeping a token off the disk), so what
// is read is bounded, not the file's size.
const MaxHeaderFileBytes = 1 << 20

// ReadFile adds the headers of a file, one 'Name: value' a line; blank
// lines and lines starting with # are skipped.
func (hs *Headers) ReadFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("--header-file: %w", err)
	}
	defer f.Close()
	limit := &safefile.LimitError{Name: name, What: "header file", Limit: MaxHeaderFileBytes}
	sc := bufio.NewScanner(safefile.LimitReader(f, MaxHeaderFileBytes, limit))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		hs.add(fmt.Sprintf("%s:%d", name, line), text)
	}
	if err := sc.Err(); err == limit {
		return err // it names the file
	} else if err != nil {
		return fmt.Errorf("--header-file %s: %w", name, err)
	}
	return nil
}

func (hs *Headers) add(where, line string) {
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		hs.errs = append(hs.errs, where+": want 'Name: value'")
	case !httpguts.ValidHeaderFieldName(name):
		hs.errs = append(hs.errs, where+": the header name is not a valid token (not shown)")
	case !httpguts.ValidHeaderFieldValue(value):
		hs.errs = append(hs.errs, fmt.Sprintf("%s: the value of %s holds characters a header may not (not shown)", where, name))
	case strings.EqualFold(name, "Host") || strings.EqualFold(name, "Content-Length") || strings.EqualFold(name, "Transfer-Encoding"):
		hs.errs = append(hs.errs, fmt.Sprintf("%s: %s is set by the client itself", where, name))
	default:
		if hs.h == nil {
			hs.h = http.Header{}
		}
		hs.h.Add(name, value)
	}
}

// Err reports the malformed headers, by position and name only.
func (hs *Headers) Err() error {
	if hs == nil || len(hs.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(hs.errs, "; "))
}
