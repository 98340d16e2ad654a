package resourcesync

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Dump packages are ZIP files from a Source (sections 11 and 13): one
// policy says how large and how compressed a package may be before it is
// refused whole, and which of its members are bitstreams, for the crawl
// (rsconform crawl --packages) and the Destination (rsconform sync --dumps)
// alike, so that a crawl and a sync always agree on a package.

// Defaults of PackageLimits.
const (
	// DefaultMaxPackageBytes bounds the download: real dumps run to
	// gigabytes.
	DefaultMaxPackageBytes = 4 << 30
	// DefaultMaxPackageEntries: a manifest describes at most 50,000
	// bitstreams (the Sitemap limit); with manifest.xml and a folder entry
	// per bitstream a conforming package stays under 100,001 entries.
	DefaultMaxPackageEntries = 100000
	// DefaultMaxPackageUncompressed is twice the download limit.
	DefaultMaxPackageUncompressed = 8 << 30
	// DefaultMaxPackageRatio: Deflate, the method ZIP readers support,
	// expands at most about 1,032 times, which only a run of one repeated
	// byte reaches. A lower limit refuses honest repetitive data (logs,
	// sparse tables); members declaring more, or a package expanding more
	// as a whole (members sharing their compressed bytes), are bombs.
	DefaultMaxPackageRatio = 1000
	// PackageRatioFloor is the size below which the ratio is not judged:
	// a small file of repeated bytes compresses very well and harms no one.
	PackageRatioFloor = 1 << 20
)

// PackageLimits bound what a package may cost before it is read. Zero
// values take the defaults above. The commands name them by the same
// flags: --max-package-size, --max-package-entries,
// --max-package-uncompressed and --max-package-ratio.
type PackageLimits struct {
	// MaxBytes bounds the package as downloaded.
	MaxBytes int64
	// MaxEntries bounds the entries of the ZIP file, folders included.
	MaxEntries int
	// MaxUncompressed bounds all the entries together, uncompressed.
	MaxUncompressed int64
	// MaxRatio bounds how many times a member over PackageRatioFloor, or
	// the package as a whole, expands.
	MaxRatio float64
}

// WithDefaults returns l with its zero (or negative) values replaced by
// the defaults.
func (l PackageLimits) WithDefaults() PackageLimits {
	orDefault(&l.MaxBytes, DefaultMaxPackageBytes)
	orDefault(&l.MaxEntries, DefaultMaxPackageEntries)
	orDefault(&l.MaxUncompressed, DefaultMaxPackageUncompressed)
	orDefault(&l.MaxRatio, DefaultMaxPackageRatio)
	return l
}

func orDefault[T int | int64 | float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// PackageLimitError is a package refused whole by a limit: Reason says
// why, Flag names the limit's flag.
type PackageLimitError struct {
	Reason string
	Flag   string
}

func (e *PackageLimitError) Error() string { return e.Reason + " (" + e.Flag + ")" }

// TooLarge is the refusal of a package whose download went past MaxBytes.
func (l PackageLimits) TooLarge() *PackageLimitError {
	return &PackageLimitError{Flag: "--max-package-size",
		Reason: fmt.Sprintf("the package is larger than the limit of %d bytes", l.WithDefaults().MaxBytes)}
}

// CheckEntries refuses a package of more than MaxEntries entries.
func (l PackageLimits) CheckEntries(n uint64) error {
	if l = l.WithDefaults(); n > uint64(l.MaxEntries) {
		return &PackageLimitError{Flag: "--max-package-entries",
			Reason: fmt.Sprintf("the ZIP file has %d entries, more than the limit of %d", n, l.MaxEntries)}
	}
	return nil
}

// CheckMember refuses a member that expands more than MaxRatio times.
func (l PackageLimits) CheckMember(zf *zip.File) error {
	l = l.WithDefaults()
	if r, over := overRatio(zf.UncompressedSize64, zf.CompressedSize64, l.MaxRatio); over {
		return &PackageLimitError{Flag: "--max-package-ratio",
			Reason: fmt.Sprintf("member %q expands %d times, more than the limit of %g: a ZIP bomb?", zf.Name, r, l.MaxRatio)}
	}
	return nil
}

// CheckArchive refuses a package of size bytes whose entries add up to
// more than MaxUncompressed, or which expands more than MaxRatio times as
// a whole (members that share their compressed bytes expand no more than
// Deflate allows one by one).
func (l PackageLimits) CheckArchive(size int64, uncompressed uint64) error {
	l = l.WithDefaults()
	if uncompressed > uint64(l.MaxUncompressed) {
		return &PackageLimitError{Flag: "--max-package-uncompressed",
			Reason: fmt.Sprintf("the entries add up to %d bytes uncompressed, more than the limit of %d", uncompressed, l.MaxUncompressed)}
	}
	if r, over := overRatio(uncompressed, uint64(max(size, 0)), l.MaxRatio); over {
		return &PackageLimitError{Flag: "--max-package-ratio",
			Reason: fmt.Sprintf("the package expands %d times (%d bytes to %d), more than the limit of %g: a ZIP bomb?", r, size, uncompressed, l.MaxRatio)}
	}
	return nil
}

func overRatio(uncompressed, compressed uint64, limit float64) (uint64, bool) {
	if uncompressed <= PackageRatioFloor || compressed == 0 {
		return 0, false
	}
	return uncompressed / compressed, float64(uncompressed)/float64(compressed) > limit
}

// Package is a dump package opened within its limits.
type Package struct {
	Zip *zip.Reader
	// Members are the bitstreams by name: the regular files CheckMember
	// accepts and no other member shares the name of.
	Members map[string]*zip.File
	// Refused lists, in the order of the ZIP file, the members that are no
	// bitstream, as *PathError: a name or mode CheckMember refuses, and
	// names given to two members or more (once per name).
	Refused []*PathError
	refused map[string]*PathError
}

// Refusal says why the member of that name was refused, or nil.
func (p *Package) Refusal(name string) *PathError { return p.refused[name] }

// OpenPackage opens the ZIP file r of size bytes, a package already
// downloaded within l.MaxBytes, and refuses it whole (a
// *PackageLimitError) when it has more entries than l.MaxEntries (read
// from its end record before its directory is), a member or the whole
// expanding more than l.MaxRatio times, or more than l.MaxUncompressed
// bytes uncompressed; these are the sizes the ZIP file declares, which
// its reader holds every member to. Within the limits, members that are
// no bitstream are refused one by one (Package.Refused), for both readers
// of the package to pass over: of two members of one name, unpacked, one
// overwrites the other, and which is the bitstream depends on the tool.
func OpenPackage(r io.ReaderAt, size int64, l PackageLimits) (*Package, error) {
	if n, ok := zipEntryCount(r, size); ok {
		if err := l.CheckEntries(n); err != nil {
			return nil, err
		}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a ZIP file: %w", err)
	}
	if err := l.CheckEntries(uint64(len(zr.File))); err != nil {
		return nil, err
	}
	var total uint64
	for _, zf := range zr.File {
		if err := l.CheckMember(zf); err != nil {
			return nil, err
		}
		total += zf.UncompressedSize64
	}
	if err := l.CheckArchive(size, total); err != nil {
		return nil, err
	}
	p := &Package{Zip: zr, Members: map[string]*zip.File{}, refused: map[string]*PathError{}}
	refuse := func(e *PathError) {
		if p.refused[e.Path] == nil {
			p.refused[e.Path] = e
			p.Refused = append(p.Refused, e)
		}
	}
	count := map[string]int{}
	for _, zf := range zr.File {
		if !zf.Mode().IsDir() {
			count[zf.Name]++
		}
	}
	for _, zf := range zr.File {
		var pe *PathError
		switch err := CheckMember(zf.Name, zf.Mode()); {
		case errors.As(err, &pe):
			refuse(pe)
		case zf.Mode().IsDir():
		case count[zf.Name] > 1:
			refuse(&PathError{Path: zf.Name, Reason: fmt.Sprintf("%d members of this name: unpacked, one overwrites the other, and which is the bitstream depends on the tool", count[zf.Name])})
		default:
			p.Members[zf.Name] = zf
		}
	}
	return p, nil
}

// zipEntryCount reads the number of entries from the end of central
// directory record (zip64 too) without reading the directory itself.
func zipEntryCount(f io.ReaderAt, size int64) (uint64, bool) {
	n := min(int64(65535+22), size)
	if n < 22 {
		return 0, false
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	for i := len(buf) - 22; i >= 0; i-- {
		if buf[i] != 'P' || buf[i+1] != 'K' || buf[i+2] != 5 || buf[i+3] != 6 {
			continue
		}
		count := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
		if count != 0xFFFF || i < 20 {
			return count, true
		}
		loc := buf[i-20:]
		if loc[0] != 'P' || loc[1] != 'K' || loc[2] != 6 || loc[3] != 7 {
			return count, true
		}
		off := int64(binary.LittleEndian.Uint64(loc[8:]))
		rec := make([]byte, 56)
		if _, err := f.ReadAt(rec, off); err != nil {
			return count, true
		}
		if rec[0] == 'P' && rec[1] == 'K' && rec[2] == 6 && rec[3] == 6 {
			return binary.LittleEndian.Uint64(rec[32:]), true
		}
		return count, true
	}
	return 0, false
}
