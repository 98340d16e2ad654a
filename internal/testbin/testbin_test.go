package testbin_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsconform/rsconform/internal/testbin"
	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestDirIsOnePerNameAndKept(t *testing.T) {
	a, err := testbin.Dir("test-a")
	if err != nil {
		t.Fatal(err)
	}
	again, err := testbin.Dir("test-a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := testbin.Dir("test-b")
	if err != nil {
		t.Fatal(err)
	}
	if a != again || a == b {
		t.Errorf("Dir(test-a) = %s then %s, Dir(test-b) = %s: want one folder per name, the same each time", a, again, b)
	}
	if !strings.HasPrefix(a, os.TempDir()+string(filepath.Separator)) {
		t.Errorf("Dir(test-a) = %s: want a folder under %s", a, os.TempDir())
	}
	if st, err := os.Stat(a); err != nil || !st.IsDir() {
		t.Errorf("Dir(test-a) = %s: not created (%v)", a, err)
	}
}

// The point of the package: a second build of unchanged sources leaves
// the program where it is (the go command does not link it again).
func TestBuildLinksOnlyWhatChanged(t *testing.T) {
	bin, err := testbin.Build("test-build", "./testdata/hello")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(bin) != "hello" {
		t.Errorf("Build = %s: want the program named hello", bin)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("%s: %q, %v", bin, out, err)
	}
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	again, err := testbin.Build("test-build", "./testdata/hello")
	if err != nil {
		t.Fatal(err)
	}
	if again != bin {
		t.Fatalf("Build = %s, then %s: want one place", bin, again)
	}
	after, err := os.Stat(again)
	if err != nil {
		t.Fatal(err)
	}
	// A link writes a new file and moves it into place; an up-to-date
	// program is only touched.
	if !os.SameFile(before, after) {
		t.Errorf("%s was linked again by a build of unchanged sources", bin)
	}
}
