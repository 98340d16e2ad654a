package monitor

import (
	"slices"
	"testing"
)

// The trend shows the newest trendRuns runs, oldest first, complete ones
// only (it once showed the oldest 30 of the 200 runs a Source page loads).
func TestTrendOfKeepsTheNewestRuns(t *testing.T) {
	var runs []Run // newest first: run 40 has 40 errors, run 1 has 1
	for id := 40; id >= 1; id-- {
		st := StatusOK
		if id == 35 {
			st = StatusUnreachable
		}
		runs = append(runs, Run{ID: int64(id), Status: st, Errors: id})
	}
	var want []int
	for id := 11; id <= 40; id++ {
		if id != 35 {
			want = append(want, id)
		}
	}
	if got := trendOf(runs, 30); !slices.Equal(got, want) {
		t.Fatalf("trendOf = %v, want %v", got, want)
	}
	if got := trendOf(runs[:3], 30); !slices.Equal(got, []int{38, 39, 40}) {
		t.Fatalf("trendOf of 3 runs = %v", got)
	}
}
