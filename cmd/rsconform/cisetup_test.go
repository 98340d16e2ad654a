package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// .ci/setup played with fake apt-get, dpkg and go on a PATH of their own:
// what it asks apt-get, and what it does when chromium cannot be had.
var _ = Describe(".ci/setup", func() {
	var fake, log string
	BeforeEach(func() {
		fake = GinkgoT().TempDir()
		log = filepath.Join(fake, "apt.log")
		for _, tool := range []string{"bash", "dirname", "cat"} {
			p, err := exec.LookPath(tool)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.Symlink(p, filepath.Join(fake, tool))).To(Succeed())
		}
		script := func(name, body string) {
			Expect(os.WriteFile(filepath.Join(fake, name), []byte("#!"+filepath.Join(fake, "bash")+"\n"+body+"\n"), 0o755)).To(Succeed())
		}
		// apt-get logs its arguments and cannot install chromium (the
		// lock held, no network); dpkg says libxml2-dev is installed.
		script("apt-get", `echo "$*" >> `+log+`
case "$*" in *install*chromium*) echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit 100;; esac`)
		script("dpkg", "exit 0")
		script("pkg-config", "exit 0")
		script("gcc", "exit 0")
		script("go", "exit 0")
		script("sudo", `"$@"`)
	})
	setup := func(env ...string) (string, error) {
		cmd := exec.Command(filepath.Join(fake, "bash"), "../../.ci/setup")
		cmd.Env = append([]string{"PATH=" + fake}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	It("waits for the dpkg lock, and in CI fails when chromium cannot be installed", func() {
		out, err := setup("RSCONFORM_BROWSER=1")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("the browser test will be skipped"))
		calls, err := os.ReadFile(log)
		Expect(err).NotTo(HaveOccurred())
		for _, call := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
			Expect(call).To(MatchRegexp(`^-o DPkg::Lock::Timeout=[1-9]`), "every apt-get call waits for the lock")
		}

		out, err = setup("RSCONFORM_BROWSER=1", "CI=true")
		Expect(err).To(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("CI=true: the browser test must run"))
	})
})
