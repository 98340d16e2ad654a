package main

import (
	"flag"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// registerPackageLimits adds the package limits, the same flags and
// defaults for crawl --packages and sync --dumps, which refuse the same
// packages for the same reasons.
func registerPackageLimits(fs *flag.FlagSet, l *rs.PackageLimits) {
	fs.Int64Var(&l.MaxBytes, "max-package-size", rs.DefaultMaxPackageBytes, "download of one dump package, in `BYTES`")
	fs.IntVar(&l.MaxEntries, "max-package-entries", rs.DefaultMaxPackageEntries, "entries of one package's ZIP file, folders included")
	fs.Int64Var(&l.MaxUncompressed, "max-package-uncompressed", rs.DefaultMaxPackageUncompressed, "all the entries of one package together, uncompressed, in `BYTES` (ZIP bombs)")
	fs.Float64Var(&l.MaxRatio, "max-package-ratio", rs.DefaultMaxPackageRatio, "times a package, or one of its entries over 1 MiB, may expand (ZIP bombs); over a limit a package is refused whole")
}
