//go:build unix

package harness

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in a process group of its own and makes
// cancelling it kill the whole group, so that a shell script's children
// die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
