package rules

// SetStreamWindow sets the number of entries checked at a time while a
// document is read, and returns a function that restores it.
func SetStreamWindow(n int) (restore func()) {
	old := streamWindow
	streamWindow = n
	return func() { streamWindow = old }
}
