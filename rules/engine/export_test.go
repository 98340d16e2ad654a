package engine

// SetStreamWindow sets the number of entries checked at a time while a
// document is read, and returns a function that restores it.
func SetStreamWindow(n int) (restore func()) {
	old := streamWindow
	streamWindow = n
	return func() { streamWindow = old }
}

// SetScope sets the Scope of the catalogue's rule id, and returns a
// function that restores it.
func SetScope(id string, sc Scope) (restore func()) {
	r := Lookup(id)
	old := r.Scope
	r.Scope = sc
	return func() { r.Scope = old }
}
