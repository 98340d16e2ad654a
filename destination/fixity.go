package destination

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// algPreference is the order in which an algorithm is chosen to compare a
// local file with the Source's metadata. The algorithms and their names
// are resourcesync's (rs.NewHash): a token such as sha256, which names no
// registered algorithm, is not checked here, as RS-HASH-ALGORITHM warns.
var algPreference = []string{"sha-256", "sha-512", "sha-1", "md5"}

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
	if n, ok, err := md.ContentLength(); ok && err != nil {
		notes = append(notes, fmt.Sprintf("length %q is not a number of bytes", md.Length))
	} else if ok {
		f.Length = n
	}
	for _, h := range md.Hashes() {
		alg := h.Algorithm()
		switch {
		case h.Token == "" || h.Digest == "":
			notes = append(notes, fmt.Sprintf("hash %q has no algorithm token", h.Value))
		case rs.NewHash(alg) == nil:
			notes = append(notes, fmt.Sprintf("hash algorithm %q is not one this Destination checks", alg))
		case h.Problem() != "":
			notes = append(notes, fmt.Sprintf("%s value %q is not a hex-encoded digest", alg, h.Digest))
		default:
			if f.Hashes == nil {
				f.Hashes = map[string]string{}
			}
			f.Hashes[alg] = strings.ToLower(h.Digest)
		}
	}
	return f, notes
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

// hashFile computes the digests of a local file.
func hashFile(f *os.File, algs []string) (int64, map[string]string, error) {
	d := rs.NewDigester(algs...)
	if _, err := io.Copy(d, f); err != nil {
		return 0, nil, err
	}
	return d.N, d.Sums(), nil
}
