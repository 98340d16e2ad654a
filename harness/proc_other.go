//go:build !unix

package harness

import (
	"os"
	"os/exec"
)

// killGroup: without process groups, cancelling kills the command only.
func killGroup(cmd *exec.Cmd) {}

// signalName: no signals to name.
func signalName(ps *os.ProcessState) string { return "" }
