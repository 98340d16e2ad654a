package crawler

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// readLine reads lines longer than the reader's buffer whole, stops at
// its limit, and leaves a last line without its newline to the caller.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100) + "\n"
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+long+"cut"), 16)
	for i, want := range []string{"a\n", long} {
		got, err := readLine(br, len(long))
		if err != nil || string(got) != want {
			t.Fatalf("line %d: %q, %v; want %q", i+1, got, err, want)
		}
	}
	if _, err := readLine(br, len(long)-1); !errors.Is(err, errLongLine) {
		t.Fatalf("a line one byte over the limit: %v, want errLongLine", err)
	}
	br = bufio.NewReaderSize(strings.NewReader("cut"), 16)
	if got, err := readLine(br, 10); string(got) != "cut" || err != io.EOF {
		t.Fatalf("the last line without its newline: %q, %v", got, err)
	}
}
