package testtmp

import (
	"io/fs"
	"os"
	"syscall"
)

// free is the room left, in bytes, on the file system holding dir; 0 if
// it cannot be told.
func free(dir string) uint64 {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil || st.Type != tmpfsMagic {
		return 0
	}
	return st.Bavail * uint64(st.Bsize)
}

// tmpfsMagic is TMPFS_MAGIC (linux/magic.h).
const tmpfsMagic = 0x01021994

// owned says whether the folder described by st is the user's.
func owned(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
