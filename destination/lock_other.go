//go:build !unix

package destination

// lockFile does nothing where flock is not available.
func lockFile(file string) (func(), error) { return func() {}, nil }
