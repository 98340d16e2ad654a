package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Refused tells a file refused unread from any other error, wrapped or not.
func TestRefused(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tooLarge := ReadFile(big, "test file", 5, false)
	_, device := ReadFile(os.DevNull, "test file", 5, false)
	_, missing := ReadFile(filepath.Join(t.TempDir(), "none"), "test file", 5, false)
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{tooLarge, true},
		{fmt.Errorf("wrapped: %w", tooLarge), true},
		{device, true},
		{missing, false},
		{fs.ErrPermission, false},
		{nil, false},
	} {
		if got := Refused(tc.err); got != tc.want {
			t.Errorf("Refused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if _, err := ReadFile(big, "test file", 10, false); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
}
