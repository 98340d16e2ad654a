package mocksource

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

// Resource bodies are never stored: each is a pure function of the seed,
// the resource's path, its version number and its media type, generated
// again on every request. The key below names one body; equal keys give
// equal bytes, so it doubles as the strong ETag.

// contentKey hashes seed, path and version with FNV-1a (64 bits) and
// finishes with a splitmix64 round so nearby inputs spread.
func contentKey(seed int64, path string, version int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	s := uint64(seed)
	for i := 0; i < 8; i++ {
		h ^= s & 0xff
		h *= prime
		s >>= 8
	}
	for i := 0; i < len(path); i++ {
		h ^= uint64(path[i])
		h *= prime
	}
	v := uint64(version)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= prime
		v >>= 8
	}
	return mix64(h)
}

// mix64 is the splitmix64 finaliser.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Body sizes: between minBody and maxBody bytes (the templates of some
// media types may add a few bytes to very short bodies).
const (
	minBody = 50
	maxBody = 2000
)

// fillerText and fillerBinary are the pools bodies take their filler from:
// a body copies a slice of the pool at an offset chosen by its key, so
// generating it costs one copy, not a loop per byte. They are made on
// first use, not when the package initialises: every rsconform command
// links this package, and most never serve a body (making them took about
// 1 ms of every start-up).
var (
	fillerText   = sync.OnceValue(func() []byte { return makeFillerText(64 << 10) })
	fillerBinary = sync.OnceValue(func() []byte { return makeFillerBinary(64 << 10) })
)

func makeFillerText(n int) []byte {
	words := []string{"resource", "sync", "source", "destination", "change", "list",
		"dump", "capability", "snapshot", "bitstream", "manifest", "index", "archive",
		"lorem", "ipsum", "dolor", "sit", "amet", "fixity", "datetime", "harvest",
		"mirror", "package", "baseline", "incremental", "audit", "web", "link"}
	b := make([]byte, 0, n+16)
	x := uint64(0x5eed)
	col := 0
	for len(b) < n {
		x = mix64(x)
		w := words[x%uint64(len(words))]
		b = append(b, w...)
		col += len(w) + 1
		if col > 64 {
			b = append(b, '\n')
			col = 0
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

func makeFillerBinary(n int) []byte {
	b := make([]byte, n)
	x := uint64(0xb1a5)
	for i := 0; i+8 <= n; i += 8 {
		x = mix64(x)
		for j := 0; j < 8; j++ {
			b[i+j] = byte(x >> (8 * j))
		}
	}
	return b
}

// appendBody appends the body of (path, version) of media type typ, whose
// content key is key, to dst.
// A size above 0 is the body's length (Action.Size); 0 draws it from key.
func appendBody(dst []byte, key uint64, path string, version int, typ string, size int) []byte {
	target := minBody + int(key%uint64(maxBody-minBody+1))
	if size > 0 {
		target = size
		if cap(dst)-len(dst) < size {
			dst = append(make([]byte, 0, len(dst)+size+64), dst...)
		}
	}
	start := len(dst)
	fill := func(pool []byte, n int) {
		if n <= 0 {
			return
		}
		if n > maxBody {
			dst = fillLarge(dst, pool, key, n)
			return
		}
		off := int((key >> 20) % uint64(len(pool)-maxBody))
		dst = append(dst, pool[off:off+n]...)
	}
	v := strconv.Itoa(version)
	var suffix string
	switch scenario.MediaBase(typ) {
	case "text/html":
		dst = append(dst, "<!DOCTYPE html>\n<html><head><title>"...)
		dst = append(dst, path...)
		dst = append(dst, " version "...)
		dst = append(dst, v...)
		dst = append(dst, "</title></head>\n<body><pre>"...)
		suffix = "</pre></body></html>\n"
	case "application/json":
		dst = append(dst, `{"path":"`...)
		dst = append(dst, path...)
		dst = append(dst, `","version":`...)
		dst = append(dst, v...)
		dst = append(dst, `,"text":"`...)
		suffix = "\"}\n"
	case "application/xml", "text/xml":
		dst = append(dst, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<resource path=\""...)
		dst = append(dst, path...)
		dst = append(dst, `" version="`...)
		dst = append(dst, v...)
		dst = append(dst, "\"><text>"...)
		suffix = "</text></resource>\n"
	case "text/csv":
		dst = append(dst, "path,version,text\n"...)
		dst = append(dst, path...)
		dst = append(dst, ',')
		dst = append(dst, v...)
		dst = append(dst, ",\""...)
		suffix = "\"\n"
	default:
		if strings.HasPrefix(typ, "text/") {
			dst = append(dst, "resource "...)
			dst = append(dst, path...)
			dst = append(dst, " version "...)
			dst = append(dst, v...)
			dst = append(dst, '\n')
			suffix = "\n"
		} else {
			// Binary: the filler is random bytes, and the first bytes
			// carry the key so that different versions differ.
			for i := 0; i < 8; i++ {
				dst = append(dst, byte(key>>(8*i)))
			}
			fill(fillerBinary(), target-8)
			return dst
		}
	}
	body := len(dst) - start
	n := target - body - len(suffix)
	if n < 16 && size == 0 {
		n = 16
	}
	n = max(n, 0)
	fill(fillerText(), n)
	if typ == "application/json" || scenario.MediaBase(typ) == "application/json" {
		// The filler has newlines; JSON strings may not.
		for i := len(dst) - n; i < len(dst); i++ {
			if dst[i] == '\n' {
				dst[i] = ' '
			}
		}
	}
	return append(dst, suffix...)
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuf() *[]byte { return bodyPool.Get().(*[]byte) }
func putBuf(b *[]byte) {
	if cap(*b) > largeBody {
		return // a large body's buffer is not kept
	}
	*b = (*b)[:0]
	bodyPool.Put(b)
}

// meta is what lists and manifests say of one resource version.
type meta struct {
	length int
	md5    [16]byte
	sha256 [32]byte
}

func computeMeta(key uint64, path string, version int, typ string, size int) *meta {
	bp := getBuf()
	b := appendBody((*bp)[:0], key, path, version, typ, size)
	m := &meta{length: len(b), md5: md5.Sum(b), sha256: sha256.Sum256(b)}
	*bp = b
	putBuf(bp)
	return m
}

// hashAttr is the value of a hash attribute: md5 and sha-256, as the
// specification's examples write them.
func (m *meta) hashAttr() string {
	var b [4 + 32 + 9 + 64]byte
	n := copy(b[:], "md5:")
	hex.Encode(b[n:], m.md5[:])
	n += 32
	n += copy(b[n:], " sha-256:")
	hex.Encode(b[n:], m.sha256[:])
	return string(b[:])
}

// wrongHashAttr is a well-formed hash value that does not match the body:
// the digests of the body's digests with one more byte.
func (m *meta) wrongHashAttr() string { return m.wrong().hashAttr() }

func (m *meta) wrong() *meta {
	w := &meta{length: m.length}
	w.md5 = md5.Sum(append(m.md5[:], 'x'))
	w.sha256 = sha256.Sum256(append(m.sha256[:], 'x'))
	return w
}

// wrongSHA256 is the SHA-256 wrongHashAttr gives, in hex.
func (m *meta) wrongSHA256() string {
	w := m.wrong()
	return hex.EncodeToString(w.sha256[:])
}
