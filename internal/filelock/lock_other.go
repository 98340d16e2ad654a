//go:build !unix

package filelock

import (
	"errors"
	"os"
)

// ErrLocked is returned when another process holds the lock.
var ErrLocked = errors.New("locked by another run")

// Lock does nothing where flock is not available.
func Lock(f *os.File) error { return nil }

// Unlock does nothing where flock is not available.
func Unlock(f *os.File) {}
