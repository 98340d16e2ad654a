package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Signals, on the test binary run as rsconform (TestMain). SIGTERM, which
// the command takes as it takes Ctrl-C (SIGINT), and which a shell does not
// ignore for the commands it starts in the background, as it does SIGINT.
var _ = Describe("Signals", func() {
	// start runs rsconform with args and stdin, and returns once one of its
	// threads waits in the kernel where blocked says (a wait channel of
	// /proc/PID/task/*/wchan): by then its signal handling is in place.
	start := func(stdin io.Reader, blocked string, args ...string) (*exec.Cmd, *bytes.Buffer, chan error) {
		if _, err := os.Stat("/proc/self/task"); err != nil {
			Skip("no /proc to see when the command is ready")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "RSCONFORM_TEST_MAIN=1", "NO_COLOR=1")
		var out bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &out
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill() }) // when a test fails
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		waiting := func() bool {
			tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/*/wchan")
			for _, t := range tasks {
				if b, _ := os.ReadFile(t); strings.Contains(string(b), blocked) {
					return true
				}
			}
			return false
		}
		Eventually(waiting, 10*time.Second, 5*time.Millisecond).Should(BeTrue(), "the command never waited in %s", blocked)
		return cmd, &out, done
	}

	It("ends validate - on a signal while standard input gives nothing yet: exit 2, saying why", func() {
		r, w, err := os.Pipe() // nobody writes it
		Expect(err).NotTo(HaveOccurred())
		defer w.Close()
		cmd, out, done := start(r, "pipe_read", "validate", "-")
		r.Close()
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(done, 5*time.Second).Should(Receive())
		Expect(cmd.ProcessState.ExitCode()).To(Equal(2), out.String())
		Expect(out.String()).To(ContainSubstring("context canceled"))
	})

	It("ends at once on a second signal, where no cancel reaches (opening a FIFO nobody writes)", func() {
		fifo := filepath.Join(GinkgoT().TempDir(), "fifo.xml")
		Expect(syscall.Mkfifo(fifo, 0o600)).To(Succeed())
		cmd, out, done := start(nil, "wait_for_partner", "validate", fifo)
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Consistently(done, 300*time.Millisecond).ShouldNot(Receive(), "one signal ended it")
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(done, 5*time.Second).Should(Receive())
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		Expect(ws.Signaled() && ws.Signal() == syscall.SIGTERM).To(BeTrue(), "%v; %s", cmd.ProcessState, out.String())
	})
})
