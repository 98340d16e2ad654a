// Package testbin keeps the programs that tests build (go build, go
// install) in a folder per work tree that outlives one test run: finding
// a program there up to date (its build ID matches the sources), the go
// command does not link it again, which costs seconds of CPU each time
// for rsconform (cgo, libxml2). Two work trees never share a folder.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Dir returns the folder named name kept for the module the test runs
// in (the go command's GOMOD, seen from the working directory), creating
// it. The go command decides whether what is in it is up to date.
func Dir(name string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: not in a module")
	}
	sum := sha256.Sum256([]byte(filepath.Dir(gomod)))
	dir := filepath.Join(os.TempDir(), "rsconform-testbin-"+hex.EncodeToString(sum[:6]), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// Build builds the command pkg (an import path, or a path relative to
// the working directory) into Dir(name), under the last element of pkg,
// and returns the program's path.
func Build(name, pkg string) (string, error) {
	dir, err := Dir(name)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w: %s", pkg, err, out)
	}
	return bin, nil
}
