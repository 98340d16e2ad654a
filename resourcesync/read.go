package resourcesync

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxBytes is the Sitemap protocol's size limit, "50MB (52,428,800
// bytes)" in sitemaps.org's words (ResourceSync section 7: 50 MB), applied
// to the uncompressed document.
const DefaultMaxBytes = 50 * 1024 * 1024

// DefaultMaxEntries is the Sitemap protocol's limit of 50,000 entries per
// document (section 7).
const DefaultMaxEntries = 50000

// LimitError reports input larger than a limit.
type LimitError struct {
	What  string // "document" or "decompressed document"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %d bytes", e.What, e.Limit)
}

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// ReadAll reads a document from r, transparently decompressing gzip (told
// by its magic bytes), and refuses more than maxBytes of (decompressed)
// content with a *LimitError, without reading further. maxBytes <= 0
// means DefaultMaxBytes. It reads through DocumentReader.
func ReadAll(r io.Reader, maxBytes int64) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(DocumentReader(r, maxBytes)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DocumentReader streams the document r holds, as ReadAll reads it: gzip
// (told by its magic bytes) is decompressed transparently, and a read
// beyond maxBytes of (decompressed) content fails with a *LimitError,
// without reading further from r. maxBytes <= 0 means DefaultMaxBytes.
// Errors of a gzip stream are wrapped ("gzip: ..."); r's own are returned
// as they are when the document is not compressed.
func DocumentReader(r io.Reader, maxBytes int64) io.Reader {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &docReader{raw: r, max: maxBytes}
}

type docReader struct {
	raw io.Reader
	src io.Reader // the content; nil until the first Read has looked at the magic bytes
	gz  bool      // src decompresses raw
	max int64
	n   int64 // content bytes returned
	err error // sticky
}

func (d *docReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.src == nil {
		if d.err = d.open(); d.err != nil {
			return 0, d.err
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	// One byte beyond the limit is enough to know it is exceeded.
	if room := d.max + 1 - d.n; int64(len(p)) > room {
		p = p[:room]
	}
	k, err := d.src.Read(p)
	d.n += int64(k)
	if d.n > d.max {
		what := "document"
		if d.gz {
			what = "decompressed document"
		}
		d.err = &LimitError{What: what, Limit: d.max}
		return k - int(d.n-d.max), d.err
	}
	if err != nil && err != io.EOF && d.gz {
		var le *LimitError
		if !errors.As(err, &le) {
			err = fmt.Errorf("gzip: %w", err)
		}
	}
	if err != nil {
		d.err = err
	}
	return k, err
}

// open looks at the magic bytes and sets up the content's reader.
func (d *docReader) open() error {
	var magic [2]byte
	n, err := io.ReadFull(d.raw, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	raw := io.MultiReader(bytes.NewReader(magic[:n]), d.raw)
	if !IsGzip(magic[:n]) {
		d.src = raw
		return nil
	}
	// Compressed input larger than the limit cannot decompress within it
	// (deflate does not shrink below its input by more than a few bytes
	// of framing), so the same cap bounds the compressed read.
	capped := &capReader{r: raw, left: d.max + 1024, limit: d.max}
	zr, err := gzip.NewReader(capped)
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			return err
		}
		return fmt.Errorf("gzip: %w", err)
	}
	zr.Multistream(true)
	d.src, d.gz = zr, true
	return nil
}

// capReader fails with a *LimitError (saying limit) once more than left
// bytes were read from r.
type capReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, &LimitError{What: "document", Limit: c.limit}
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	k, err := c.r.Read(p)
	c.left -= int64(k)
	if c.left < 0 {
		return k, &LimitError{What: "document", Limit: c.limit}
	}
	return k, err
}
