// Package testtmp is imported, for its side effect only, by every test
// package (and imports internal/raceexit, for its own, so that a test
// package names one of them): when TMPDIR is not set, it points TMPDIR (what os.TempDir,
// t.TempDir, GinkgoT().TempDir and the programs the tests start read) at
// a folder of its own on /dev/shm, a tmpfs, if there is one with room.
//
// Why: the tests create and remove many thousands of files (mirrors,
// state files, plays' folders). On an ext4 file system without a journal,
// as on the machine the suite is timed on, each new inode is looked for
// past the ones deleted in the last seconds (the kernel's
// recently_deleted, reading inode table blocks): under perf, 12 % of the
// CPU of destination's race test binary went there, none on a tmpfs,
// where the binary took 18.5 s of CPU rather than 21.0 s.
//
// TMPDIR, when set, still decides (TMPDIR=/tmp keeps the tests on disk).
// Without /dev/shm, or with less than MinFree free there (a container's
// 64 MB default), nothing changes. What the tests leave there stays in
// memory until removed or the machine restarts: t.TempDir's folders go
// with their test, but the programs testbin keeps (a folder per work tree,
// some 80 MB, rebuilt in place) and a killed run's files do not.
package testtmp

import (
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/rsconform/rsconform/internal/raceexit" // no second of sleep at exit under -race: see its doc
)

// MinFree is the room /dev/shm must have for the tests to use it.
const MinFree = 2 << 30

func init() {
	if _, set := os.LookupEnv("TMPDIR"); set {
		return
	}
	dir := filepath.Join("/dev/shm", fmt.Sprintf("rsconform-tests-%d", os.Getuid()))
	if !usable(dir) {
		return
	}
	_ = os.Setenv("TMPDIR", dir) // as it was, should it fail
}

// usable says whether dir, created if need be, is a folder of ours that
// no one else can write to, on a file system with MinFree free. Others may
// pass through it (mode 0711), as through /tmp: the README's Docker recipe
// runs as another uid in a workspace the test makes there.
func usable(dir string) bool {
	if free(filepath.Dir(dir)) < MinFree {
		return false
	}
	if err := os.Mkdir(dir, 0o711); err != nil && !os.IsExist(err) {
		return false
	}
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || !owned(st) || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	return os.Chmod(dir, 0o711) == nil
}
