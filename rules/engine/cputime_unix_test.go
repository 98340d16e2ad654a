//go:build unix

package engine_test

import (
	"syscall"
	"time"
)

// cpuNow is the CPU time (user + system) the process has used so far: on a
// machine shared with other work, a benchmark's wall time per op follows
// the load, its CPU time much less.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
