package mocksource

import (
	"slices"
	"testing"
)

// The log keeps the last size requests, growing to size and then
// overwriting the oldest.
func TestRequestLogKeepsTheLatest(t *testing.T) {
	seqs := func(rs []Request) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.Seq)
		}
		return out
	}
	l := newRequestLog(3)
	for _, c := range []struct {
		add         int
		since       int64
		want        []int64
		description string
	}{
		{0, 0, nil, "empty"},
		{2, 0, []int64{1, 2}, "growing"},
		{1, 1, []int64{2, 3}, "full"},
		{2, 0, []int64{3, 4, 5}, "wrapped: 1 and 2 lost"},
		{0, 4, []int64{5}, "since a kept request"},
		{4, 0, []int64{7, 8, 9}, "wrapped again"},
		{0, 9, nil, "since the last"},
	} {
		for i := 0; i < c.add; i++ {
			l.add(Request{Path: "/x"})
		}
		if got := seqs(l.since(c.since)); !slices.Equal(got, c.want) {
			t.Errorf("%s: since(%d) = %v, want %v", c.description, c.since, got, c.want)
		}
	}
	if len(l.recs) != 3 {
		t.Errorf("the log holds %d requests, want at most 3", len(l.recs))
	}
}
