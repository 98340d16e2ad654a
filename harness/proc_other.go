//go:build !unix

package harness

import "os/exec"

// killGroup: without process groups, cancelling kills the command only.
func killGroup(cmd *exec.Cmd) {}
