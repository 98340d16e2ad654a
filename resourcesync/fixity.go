package resourcesync

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fixity attributes of section 7: hash and length. Every reader of these
// attributes (the rules, the crawler, the Destination) goes through the
// accessors below, so that they all read a value the same way.

// Hash is one hash value of a hash attribute (section 7: "Each hash value
// is represented by a hex-encoded digest and is preceded by a token that
// identifies the utilized hash algorithm, e.g., md5:, sha-256:").
type Hash struct {
	// Value is the hash value as written, token and digest.
	Value string
	// Token is the algorithm token as written ("" when there is none) and
	// Digest what follows its colon.
	Token, Digest string
}

// Algorithm is the token in lower case: algorithm names compare
// case-insensitively (the IANA "Hash Function Textual Names" registry, to
// which the tokens of the examples belong).
func (h Hash) Algorithm() string {
	for i := 0; i < len(h.Token); i++ {
		if c := h.Token[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.ToLower(h.Token)
		}
	}
	return h.Token // already lower case: most tokens (md5, sha-256), read for every hash of a list
}

// Problem says why h is not algorithm:hexdigest with the digest length of
// its algorithm (when rsconform knows the algorithm), or "" when it is.
func (h Hash) Problem() string {
	if h.Token == "" {
		return "has no algorithm token: write algorithm:hexdigest, e.g. md5:1584abdf8ebdc9802ac0c6a7402c03b6"
	}
	if h.Digest == "" {
		return "has no digest after the algorithm token"
	}
	for j := 0; j < len(h.Digest); j++ {
		if hashByte[h.Digest[j]]&hbHex == 0 {
			return fmt.Sprintf("is not hex-encoded (character %q at position %d of the digest)", h.Digest[j], j+1)
		}
	}
	alg := h.Algorithm()
	if size, _ := computedHash(alg); size > 0 && len(h.Digest) != 2*size {
		return fmt.Sprintf("has %d hex digits; a %s digest has %d", len(h.Digest), alg, 2*size)
	}
	return ""
}

// Matches reports whether h's digest is the hex digest sum (hex digits
// compare case-insensitively).
func (h Hash) Matches(sum string) bool { return strings.EqualFold(h.Digest, sum) }

// ParseHashes splits the value of a hash attribute into its hash values
// (whitespace-delimited), in order, syntax errors included: check each
// with Problem.
func ParseHashes(v string) []Hash {
	var hs []Hash
	for i := 0; i < len(v); {
		t, ok := nextHash(v, i)
		if !ok {
			hs = hs[:0] // white space beyond ASCII
			for _, tok := range strings.Fields(v) {
				hs = append(hs, hashOf(tok))
			}
			return hs
		}
		if t.end > t.start {
			hs = append(hs, t.hash(v))
		}
		i = t.end
	}
	return hs
}

// CheckedHash is a hash value with its algorithm (Algorithm, computed
// once: two rules read it for every hash of a list) and what is wrong with
// it (Problem; "" when nothing).
type CheckedHash struct {
	Hash
	Alg, Fault string
}

// AppendCheckedHashes is ParseHashes with each hash value checked
// (CheckedHash.Fault is its Problem), appending to dst. It reads the value
// once: the digest's hex digits are checked while it is split, and
// Problem runs only for a value found at fault (a hash attribute is long
// and every entry of a list has one; splitting then checking read each
// byte twice).
func AppendCheckedHashes(dst []CheckedHash, v string) []CheckedHash {
	start := len(dst)
	for i := 0; i < len(v); {
		for i < len(v) && hashByte[v[i]]&hbSpace != 0 {
			i++
		}
		if alg, end := knownHash(v, i); end > 0 {
			// The usual value: nothing to check beyond what knownHash did.
			k := i + len(alg)
			dst = append(dst, CheckedHash{Hash{Value: v[i:end], Token: v[i:k], Digest: v[k+1 : end]}, alg, ""})
			i = end
			continue
		}
		t, ok := nextHash(v, i)
		if !ok {
			dst = dst[:start]
			for _, tok := range strings.Fields(v) {
				h := hashOf(tok)
				dst = append(dst, CheckedHash{h, h.Algorithm(), h.Problem()})
			}
			return dst
		}
		i = t.end
		if t.end == t.start {
			continue
		}
		h := t.hash(v)
		alg := h.Algorithm()
		var fault string
		// No token, no digest, not hex, or not the algorithm's length.
		if size, _ := computedHash(alg); t.colon <= t.start || t.hexEnd != t.end || t.hexEnd == t.colon+1 ||
			size > 0 && len(h.Digest) != 2*size {
			fault = h.Problem()
		}
		dst = append(dst, CheckedHash{h, alg, fault})
	}
	return dst
}

// knownHash is the fast path of AppendCheckedHashes: when v[i:] starts
// with a hash value of an algorithm rsconform computes, its token written
// in lower case and its digest the algorithm's number of hex digits, followed
// by ASCII white space or the end of v, it returns the algorithm and the
// end of the value; end is 0 otherwise (nextHash and Problem decide then).
// Nearly every hash value of a list is one: the token is compared whole and
// the digest read 8 digits at a time, with no byte-by-byte scan for the
// colon nor a second look at the token for its case.
func knownHash(v string, i int) (alg string, end int) {
	rest := v[i:]
	var digits int
	switch {
	case strings.HasPrefix(rest, "md5:"):
		alg, digits = "md5", 2*md5.Size
	case strings.HasPrefix(rest, "sha-256:"):
		alg, digits = "sha-256", 2*sha256.Size
	case strings.HasPrefix(rest, "sha-1:"):
		alg, digits = "sha-1", 2*sha1.Size
	case strings.HasPrefix(rest, "sha-512:"):
		alg, digits = "sha-512", 2*sha512.Size
	default:
		return "", 0
	}
	n := len(alg) + 1 + digits
	if len(rest) < n || len(rest) > n && hashByte[rest[n]]&hbSpace == 0 {
		return "", 0
	}
	if !allHexWords(rest[len(alg)+1 : n]) { // every digest length is a multiple of 8
		return "", 0
	}
	return alg, i + n
}

// hashSpan is a hash value found in an attribute by nextHash: v[start:end],
// empty when only white space was left. colon is the index of its first
// colon (start-1 when it has none); the digest's hex digits run from after
// the colon to hexEnd.
type hashSpan struct{ start, colon, hexEnd, end int }

// hash is the hash value t spans in v: hashOf, with the colon already
// found.
func (t hashSpan) hash(v string) Hash {
	h := Hash{Value: v[t.start:t.end]}
	if t.colon > t.start {
		h.Token, h.Digest = v[t.start:t.colon], v[t.colon+1:t.end]
	}
	return h
}

// nextHash finds the hash value at or after v[i], past ASCII white space;
// ok is false when it meets a byte beyond ASCII (which may be white space:
// the caller splits the whole value with strings.Fields then). One lookup
// a byte: values are long.
func nextHash(v string, i int) (t hashSpan, ok bool) {
	for i < len(v) && hashByte[v[i]]&hbSpace != 0 {
		i++
	}
	t = hashSpan{start: i, colon: i - 1, hexEnd: i, end: i}
	if i == len(v) {
		return t, true
	}
	j := i
	for j < len(v) && hashByte[v[j]]&(hbSpace|hbBeyondASCII|hbColon) == 0 {
		j++
	}
	if j < len(v) && v[j] == ':' {
		t.colon = j
		j++
		for j+8 <= len(v) && allHexWords(v[j:j+8]) {
			j += 8
		}
		for j < len(v) && hashByte[v[j]]&hbHex != 0 {
			j++
		}
		t.hexEnd = j
	}
	for j < len(v) && hashByte[v[j]]&(hbSpace|hbBeyondASCII) == 0 {
		j++
	}
	t.end = j
	return t, j == len(v) || hashByte[v[j]]&hbBeyondASCII == 0
}

// allHexWords reports whether s, whose length is a multiple of 8, is all
// hex digits, deciding once for each 8 bytes (a digest of 32 to 128
// digits): 8 table lookups and'ed, fewer instructions than arithmetic on
// the 8 bytes read as a word (knownHash 25.8 M -> 23.9 M on a 50,000-entry
// list). nextHash reads a digest 8 bytes at a time with it too.
func allHexWords(s string) bool {
	acc := uint8(hbHex)
	for ; len(s) >= 8; s = s[8:] {
		acc &= hashByte[s[0]] & hashByte[s[1]] & hashByte[s[2]] & hashByte[s[3]] &
			hashByte[s[4]] & hashByte[s[5]] & hashByte[s[6]] & hashByte[s[7]]
	}
	return acc&hbHex != 0 && len(s) == 0
}

// hashByte classes the bytes of a hash attribute for nextHash: the ASCII
// white space characters of unicode.IsSpace, bytes beyond ASCII (which
// may be white space too), the colon, hex digits.
var hashByte = func() (t [256]uint8) {
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = hbBeyondASCII
	}
	for _, c := range "\t\n\v\f\r " {
		t[c] = hbSpace
	}
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = hbHex
	}
	t[':'] = hbColon
	return
}()

const (
	hbSpace = 1 << iota
	hbBeyondASCII
	hbColon
	hbHex
)

func hashOf(tok string) Hash {
	h := Hash{Value: tok}
	if i := strings.IndexByte(tok, ':'); i > 0 {
		h.Token, h.Digest = tok[:i], tok[i+1:]
	}
	return h
}

// Hashes returns the hash values of m's hash attribute (none when m is nil
// or has none).
func (m *Md) Hashes() []Hash {
	if m == nil {
		return nil
	}
	return ParseHashes(m.Hash)
}

// Hashes returns the hash values of l's hash attribute.
func (l *Ln) Hashes() []Hash {
	if l == nil {
		return nil
	}
	return ParseHashes(l.Hash)
}

// computedHash is the algorithm rsconform computes named alg (in lower
// case): its digest size and constructor, or 0 and nil. Its names are those
// of the IANA "Hash Function Textual Names" registry, the names section 7's
// examples use (md5, sha-256). Other spellings (sha256, SHA_1) name no
// algorithm here: a Destination cannot be expected to know them, and
// RS-HASH-ALGORITHM says so. (A switch: every hash value of a list is
// looked up.)
func computedHash(alg string) (size int, newHash func() hash.Hash) {
	switch alg {
	case "md5":
		return md5.Size, md5.New
	case "sha-1":
		return sha1.Size, sha1.New
	case "sha-256":
		return sha256.Size, sha256.New
	case "sha-512":
		return sha512.Size, sha512.New
	}
	return 0, nil
}

// NewHash returns a hash for an algorithm name (compared
// case-insensitively), or nil for one rsconform does not compute.
func NewHash(alg string) hash.Hash {
	if _, newHash := computedHash(strings.ToLower(alg)); newHash != nil {
		return newHash()
	}
	return nil
}

// ComputedAlgorithms are the algorithms that NewHash computes, for messages.
const ComputedAlgorithms = "md5, sha-1, sha-256, sha-512"

// KnownAlgorithms returns the distinct algorithms, in lower case, of the
// hash values of hs that NewHash computes, in order.
func KnownAlgorithms(hs []Hash) []string {
	var out []string
	for _, h := range hs {
		alg := h.Algorithm()
		if size, _ := computedHash(alg); size == 0 {
			continue
		}
		dup := false
		for _, a := range out {
			dup = dup || a == alg
		}
		if !dup {
			out = append(out, alg)
		}
	}
	return out
}

// Digester hashes what is written to it with several algorithms at once
// and counts the bytes.
type Digester struct {
	N      int64
	hashes map[string]hash.Hash
}

// NewDigester returns a Digester for the algorithms among algs that
// NewHash computes.
func NewDigester(algs ...string) *Digester {
	d := &Digester{hashes: make(map[string]hash.Hash, len(algs))}
	for _, a := range algs {
		if h := NewHash(a); h != nil {
			d.hashes[strings.ToLower(a)] = h
		}
	}
	return d
}

func (d *Digester) Write(p []byte) (int, error) {
	d.N += int64(len(p))
	for _, h := range d.hashes {
		h.Write(p)
	}
	return len(p), nil
}

// Sums returns the digests so far by algorithm, in lower-case hex.
func (d *Digester) Sums() map[string]string {
	out := make(map[string]string, len(d.hashes))
	for a, h := range d.hashes {
		out[a] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// ErrLengthRange is a length of more bytes than an int64 holds: the
// specification sets no bound, but nothing can be that long.
var ErrLengthRange = errors.New("is more bytes than rsconform can count")

// ParseLength reads the value of a length attribute: section 7 makes it
// the Content-Length of the representation, 1*DIGIT (RFC 2616, Sec.
// 14.13), decimal digits only, without sign or white space.
func ParseLength(v string) (int64, error) {
	if v == "" {
		return 0, errors.New("is empty")
	}
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("is not a non-negative integer (character %q at position %d)", c, i+1)
		}
		n = n*10 + int64(c-'0')
	}
	// 18 digits always fit in an int64 (up to 9.2e18): the usual length
	// is read in the loop above; a longer one may be out of range.
	if len(v) > maxSafeLengthDigits {
		var err error
		if n, err = strconv.ParseInt(v, 10, 64); err != nil {
			return 0, ErrLengthRange
		}
	}
	return n, nil
}

// maxSafeLengthDigits is the most digits ParseLength reads without
// strconv.ParseInt: any number of 18 digits fits in an int64.
const maxSafeLengthDigits = 18

// ContentLength is m's length attribute as a number of bytes; ok is false
// when the attribute is absent, err says why a present one is not a
// length.
func (m *Md) ContentLength() (n int64, ok bool, err error) { return contentLength(m.Get("length")) }

// ContentLength is l's length attribute as a number of bytes; see
// Md.ContentLength.
func (l *Ln) ContentLength() (n int64, ok bool, err error) { return contentLength(l.Get("length")) }

func contentLength(v string, ok bool) (int64, bool, error) {
	if !ok {
		return 0, false, nil
	}
	n, err := ParseLength(v)
	return n, true, err
}
