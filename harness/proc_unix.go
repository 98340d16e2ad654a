//go:build unix

package harness

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
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

// signalName names the signal that killed the process ("SIGSEGV"), or "".
func signalName(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	if n := unix.SignalName(ws.Signal()); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(ws.Signal()))
}
