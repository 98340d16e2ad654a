package digits

import (
	"math"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestGrouped(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{1184, "1,184"},
		{65536, "65,536"},
		{100000, "100,000"},
		{52428800, "52,428,800"},
		{-1, "-1"},
		{-999, "-999"},
		{-1024, "-1,024"},
		{-100000, "-100,000"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Grouped(c.n); got != c.want {
			t.Errorf("Grouped(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
