package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
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

// LimitReader passes a reader of limit bytes whole and refuses one with
// more, whatever sizes the reads come in.
func TestLimitReader(t *testing.T) {
	tooMuch := errors.New("too much")
	for _, tc := range []struct {
		data string
		want error
	}{
		{"", nil},
		{"01234", nil},
		{"012345", tooMuch},
		{"0123456789", tooMuch},
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.data)
			if one {
				r = iotest.OneByteReader(r)
			}
			got, err := io.ReadAll(LimitReader(r, 5, tooMuch))
			if err != tc.want {
				t.Errorf("%q (one byte a read: %v): error %v, want %v", tc.data, one, err, tc.want)
			}
			if len(got) > 5 || (tc.want == nil && string(got) != tc.data) {
				t.Errorf("%q (one byte a read: %v): read %q", tc.data, one, got)
			}
		}
	}
}
