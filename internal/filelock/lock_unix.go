//go:build unix

// Package filelock takes exclusive locks on open files, so that two runs
// never write one state at once; a lock goes with the process.
package filelock

import (
	"errors"
	"os"
	"syscall"
)

// ErrLocked is returned when another process holds the lock.
var ErrLocked = errors.New("locked by another run")

// Lock takes an exclusive lock on f without waiting; Unlock (or closing
// f, or the end of the process) releases it.
func Lock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return ErrLocked
		}
		return err
	}
	return nil
}

// Unlock releases a lock Lock took.
func Unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
