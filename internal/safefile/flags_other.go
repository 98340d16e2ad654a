//go:build !unix

package safefile

// Names are opened as they are where O_NOFOLLOW is not available.
const (
	noFollow = 0
	nonBlock = 0
)
