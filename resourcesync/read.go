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

// LimitError reports input larger than a limit. Partial is true when the
// input was not read to its end.
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
// means DefaultMaxBytes.
func ReadAll(r io.Reader, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	// Compressed input larger than the limit cannot decompress within it
	// (deflate does not shrink below its input by more than a few bytes
	// of framing), so the same cap bounds the compressed read.
	raw, err := readCapped(r, maxBytes+1024, "document")
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			// Say the configured limit, not the read's margin.
			le.Limit = maxBytes
		}
		return nil, err
	}
	if !IsGzip(raw) {
		if int64(len(raw)) > maxBytes {
			return nil, &LimitError{What: "document", Limit: maxBytes}
		}
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	zr.Multistream(true)
	out, err := readCapped(zr, maxBytes, "decompressed document")
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return out, nil
}

func readCapped(r io.Reader, limit int64, what string) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, &LimitError{What: what, Limit: limit}
	}
	return buf.Bytes(), nil
}
