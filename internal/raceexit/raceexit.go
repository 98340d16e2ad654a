// Package raceexit is imported, for its side effect only, by every test
// package, through internal/testtmp: built with -race, a test binary waits a second before it exits
// (the race runtime's atexit_sleep_ms, default 1000, for goroutines still
// running to report a race), which is a second of wall per package in
// `go test -race ./...`. The runtime reads GORACE once, from the
// process's environment (/proc/self/environ), before any Go code runs:
// neither a TestMain nor an init can change it for the running process,
// `go env -w GORACE=...` is refused (not a go command variable), and the
// race runtime's __tsan_default_options is a strong symbol that cannot be
// replaced. So the package's init, in a race build on Unix, starts the
// test binary again in place (syscall.Exec: same process, arguments and
// environment) with atexit_sleep_ms=0 added to GORACE. A race seen while
// the tests run still fails them; only one that a goroutine left running
// would have met in that last second goes unseen. GORACE that already
// names atexit_sleep_ms is left as it is, and the binary runs on as it
// was if the exec fails.
package raceexit
