//go:build unix

package destination

import (
	"errors"
	"fmt"
	"os"

	"github.com/rsconform/rsconform/internal/filelock"
	"github.com/rsconform/rsconform/internal/safefile"
)

// lockFile takes an exclusive lock on file (created when missing, never
// through a symbolic link), so that two runs never synchronise one
// directory at once; the lock goes with the process.
func lockFile(file string) (func(), error) {
	f, err := safefile.OpenOwn(file, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
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
