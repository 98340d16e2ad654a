//go:build race && unix

package raceexit

import (
	"os"
	"strings"
	"syscall"
)

// Option is what init adds to GORACE.
const Option = "atexit_sleep_ms=0"

func init() {
	gorace, set := os.LookupEnv("GORACE")
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(gorace+" "+Option))
	err = syscall.Exec(exe, os.Args, os.Environ()) // returns only on failure
	if set {
		os.Setenv("GORACE", gorace)
	} else {
		os.Unsetenv("GORACE")
	}
	_ = err // the tests run on, with the sleep at exit
}
