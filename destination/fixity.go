package destination

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Hash algorithms a Destination can check (section 7, hash: "a
// hex-encoded digest ... preceded by a token that identifies the utilized
// hash algorithm, e.g., md5:, sha-256:").
var hashAlgs = map[string]func() hash.Hash{
	"md5":     md5.New,
	"sha-1":   sha1.New,
	"sha-256": sha256.New,
	"sha-512": sha512.New,
}

// algPreference is the order in which an algorithm is chosen to compare a
// local file with the Source's metadata.
var algPreference = []string{"sha-256", "sha-512", "sha-1", "md5"}

// normalAlg maps the spellings met in the wild to the names above.
func normalAlg(a string) string {
	a = strings.ToLower(a)
	switch a {
	case "sha1":
		return "sha-1"
	case "sha256":
		return "sha-256"
	case "sha512":
		return "sha-512"
	}
	return a
}

// Fixity is what the Source says about a representation: its length
// (-1 when not given) and digests by algorithm, lower-case hex.
type Fixity struct {
	Length int64
	Hashes map[string]string
}

// noFixity is the fixity of an entry without metadata.
var noFixity = Fixity{Length: -1}

// Known reports whether the Source gave anything to check.
func (f Fixity) Known() bool { return f.Length >= 0 || len(f.Hashes) > 0 }

// fixityOf reads hash and length of an <rs:md>. Hash values this
// Destination cannot check (unknown algorithms, values that are not hex)
// are returned as notes and otherwise ignored.
func fixityOf(md *rs.Md) (Fixity, []string) {
	f := Fixity{Length: -1}
	if md == nil {
		return f, nil
	}
	var notes []string
	if v, ok := md.Get("length"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			notes = append(notes, fmt.Sprintf("length %q is not a number of bytes", v))
		} else {
			f.Length = n
		}
	}
	if v, ok := md.Get("hash"); ok {
		for _, tok := range strings.Fields(v) {
			alg, val, found := strings.Cut(tok, ":")
			alg = normalAlg(alg)
			val = strings.ToLower(val)
			newHash, known := hashAlgs[alg]
			switch {
			case !found || val == "":
				notes = append(notes, fmt.Sprintf("hash %q has no algorithm token", tok))
			case !known:
				notes = append(notes, fmt.Sprintf("hash algorithm %q is not one this Destination checks", alg))
			case !isHex(val) || len(val) != 2*newHash().Size():
				notes = append(notes, fmt.Sprintf("%s value %q is not a hex-encoded digest", alg, val))
			default:
				if f.Hashes == nil {
					f.Hashes = map[string]string{}
				}
				f.Hashes[alg] = val
			}
		}
	}
	return f, notes
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// algs lists the algorithms to compute for a download: sha-256 always
// (the state and audits use it), and every algorithm the Source gave.
func (f Fixity) algs() []string {
	out := []string{"sha-256"}
	for a := range f.Hashes {
		if a != "sha-256" {
			out = append(out, a)
		}
	}
	sort.Strings(out[1:])
	return out
}

// FixityError is a download whose length or digest is not what the
// Source said.
type FixityError struct {
	URL      string
	What     string // "length" or an algorithm
	Expected string
	Actual   string
}

func (e *FixityError) Error() string {
	return fmt.Sprintf("%s: %s is %s, the Source says %s", e.URL, e.What, e.Actual, e.Expected)
}

// check compares what was received with the Source's metadata.
func (f Fixity) check(url string, length int64, sums map[string]string) error {
	if f.Length >= 0 && f.Length != length {
		return &FixityError{URL: url, What: "length", Expected: strconv.FormatInt(f.Length, 10), Actual: strconv.FormatInt(length, 10)}
	}
	for _, a := range algPreference {
		want, ok := f.Hashes[a]
		if !ok {
			continue
		}
		if got := sums[a]; got != want {
			return &FixityError{URL: url, What: a, Expected: want, Actual: got}
		}
	}
	return nil
}

// sameAs reports whether a synchronised copy, described by its length and
// digests, is the representation the Source describes: at least one
// digest in common and all common ones equal, lengths equal when both are
// known. Without a digest in common it cannot tell and says false.
func (f Fixity) sameAs(length int64, sums map[string]string) bool {
	if f.Length >= 0 && length >= 0 && f.Length != length {
		return false
	}
	common := 0
	for a, want := range f.Hashes {
		if got, ok := sums[a]; ok {
			if got != want {
				return false
			}
			common++
		}
	}
	return common > 0
}

// digester hashes what is written to it with several algorithms at once
// and counts the bytes.
type digester struct {
	hs map[string]hash.Hash
	w  io.Writer
	n  int64
}

func newDigester(algs []string) *digester {
	d := &digester{hs: map[string]hash.Hash{}}
	var ws []io.Writer
	for _, a := range algs {
		if nh, ok := hashAlgs[a]; ok {
			h := nh()
			d.hs[a] = h
			ws = append(ws, h)
		}
	}
	d.w = io.MultiWriter(ws...)
	return d
}

func (d *digester) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.n += int64(n)
	return n, err
}

func (d *digester) sums() map[string]string {
	out := make(map[string]string, len(d.hs))
	for a, h := range d.hs {
		out[a] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// hashFile computes the digests of a local file.
func hashFile(f *os.File, algs []string) (int64, map[string]string, error) {
	d := newDigester(algs)
	if _, err := io.Copy(d, f); err != nil {
		return 0, nil, err
	}
	return d.n, d.sums(), nil
}
