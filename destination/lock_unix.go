//go:build unix

package destination

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/rsconform/rsconform/internal/filelock"
)

// noFollow makes opening a name that is a symbolic link fail (ELOOP), so
// that a link planted where the lock or the state file goes never leads
// the Destination to create or read a file elsewhere.
const noFollow = syscall.O_NOFOLLOW

// lockFile takes an exclusive lock on file (created when missing, never
// through a symbolic link), so that two runs never synchronise one
// directory at once; the lock goes with the process.
func lockFile(file string) (func(), error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", linkError(err))
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, fmt.Errorf("%s is locked: another run is synchronising this directory", file)
		}
		return nil, fmt.Errorf("locking %s: %w", file, err)
	}
	return func() {
		filelock.Unlock(f)
		f.Close()
	}, nil
}

// linkError says plainly that a name was a symbolic link.
func linkError(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%w (a symbolic link, not followed)", err)
	}
	return err
}
