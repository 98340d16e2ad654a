//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// opensOf counts the opens of the files of dir, by name, from inotify.
type opensOf struct{ fd int }

func watchOpens(dir string) *opensOf {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { syscall.Close(fd) })
	// Closes are watched too, so that two opens in a row are two events:
	// inotify merges an event with the one before it when they are equal.
	_, err = syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE)
	Expect(err).NotTo(HaveOccurred())
	return &opensOf{fd}
}

// take returns the opens since the last take, by file name.
func (w *opensOf) take() map[string]int {
	opens := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if err == syscall.EAGAIN || n <= 0 {
			return opens
		}
		Expect(err).NotTo(HaveOccurred())
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			if ev.Mask&syscall.IN_OPEN != 0 {
				opens[string(bytes.TrimRight(name, "\x00"))]++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

var _ = Describe("--baseline FILE", func() {
	It("is opened once a run: read before the documents are checked, or, missing, written (not read back)", func() {
		dir := GinkgoT().TempDir()
		base := filepath.Join(dir, "baseline.json")
		cl := filepath.Join(GinkgoT().TempDir(), "cl.xml")
		Expect(os.WriteFile(cl, []byte(unsortedCL), 0o644)).To(Succeed())
		opens := watchOpens(dir)

		code, _, errs := cli("validate", "--baseline", base, cl)
		Expect(code).To(Equal(0), errs)
		Expect(errs).To(MatchRegexp(`wrote [1-9]\d* findings? to the baseline`))
		Expect(opens.take()).To(Equal(map[string]int{"baseline.json": 1}))

		code, _, errs = cli("validate", "--baseline", base, cl)
		Expect(code).To(Equal(0), errs)
		Expect(errs).To(MatchRegexp(`[1-9]\d* known findings? of the baseline`))
		Expect(opens.take()).To(Equal(map[string]int{"baseline.json": 1}))
	})
})
