package testtmp

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A child test binary prints the folder os.TempDir gives it.
func TestMain(m *testing.M) {
	if os.Getenv("RSCONFORM_TESTTMP_CHILD") != "" {
		fmt.Print(os.TempDir())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tempDirOfChild runs the test binary again with env (TMPDIR removed
// first) and returns its os.TempDir. The child inherits GORACE, which
// raceexit has made name atexit_sleep_ms under -race (no second's wait at
// its exit, no exec), and keeps whatever else the user's GORACE says.
func tempDirOfChild(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }),
		append(env, "RSCONFORM_TESTTMP_CHILD=1")...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	return string(out)
}

// Without TMPDIR, the temporary folder is ours on /dev/shm when it is a
// tmpfs with room, the system's otherwise (also when another user made a
// folder of that name first); a TMPDIR given is kept.
func TestTempDir(t *testing.T) {
	want := "/tmp"
	if ours := fmt.Sprintf("/dev/shm/rsconform-tests-%d", os.Getuid()); usable(ours) {
		want = ours
	}
	if got := tempDirOfChild(t); got != want {
		t.Errorf("without TMPDIR: os.TempDir() = %s, want %s", got, want)
	}
	given := t.TempDir()
	if got := tempDirOfChild(t, "TMPDIR="+given); got != given {
		t.Errorf("TMPDIR=%s: os.TempDir() = %s, want it kept", given, got)
	}
	if want != "/tmp" {
		st, err := os.Stat(want)
		if err != nil || st.Mode().Perm() != 0o711 || !owned(st) {
			t.Errorf("%s: %v: want a folder of ours, mode 0711", want, err)
		}
	}
}

// A folder that others can write to is not used.
func TestUsableRefusesOpenFolders(t *testing.T) {
	if free("/dev/shm") < MinFree {
		t.Skip("no roomy tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "rsconform-testtmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if !usable(dir) {
		t.Errorf("%s (mode 0700, ours): not usable", dir)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if usable(dir) {
		t.Errorf("%s (mode 0777): usable, want refused", dir)
	}
}
