package words_test

import (
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	"github.com/rsconform/rsconform/internal/words"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		word string
		want string
	}{
		{0, "error", "0 errors"},
		{1, "error", "1 error"},
		{2, "warning", "2 warnings"},
		{1, "fetch", "1 fetch"},
		{3, "fetch", "3 fetches"},
		{2, "index", "2 indexes"},
		{2, "pass", "2 passes"},
		{2, "wish", "2 wishes"},
		{1, "entry", "1 entry"},
		{2, "entry", "2 entries"},
		{2, "key", "2 keys"},
	} {
		if got := words.Count(c.n, c.word); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
	if got := words.Noun(1, "fetch"); got != "fetch" {
		t.Errorf("Noun(1, fetch) = %q", got)
	}
	if got := words.Noun(2, "fetch"); got != "fetches" {
		t.Errorf("Noun(2, fetch) = %q", got)
	}
}
