//go:build !unix

package destination

// noFollow is not available: names are opened as they are.
const noFollow = 0

// lockFile does nothing where flock is not available.
func lockFile(file string) (func(), error) { return func() {}, nil }

func linkError(err error) error { return err }
