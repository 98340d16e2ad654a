package resourcesync

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestUTCSecondsIsTheParser holds parseUTCSeconds, the fast path of
// parseDatetime, to dtParser.parse: whatever value it accepts, the parser
// reads the same (form and instant); the values tried are the recommended
// form with random mutations, every day of every month of some years, and
// bounds of each field.
func TestUTCSecondsIsTheParser(t *testing.T) {
	values := []string{"2013-01-03T09:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2012-02-29T00:00:00Z",
		"2013-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2013-00-03T09:00:00Z", "2013-13-03T09:00:00Z",
		"2013-01-00T09:00:00Z", "2013-01-32T09:00:00Z", "2013-04-31T09:00:00Z", "2013-01-03T24:00:00Z", "2013-01-03T23:60:00Z",
		"2013-01-03T23:59:60Z", "2013-01-03T09:00:00z", "2013-01-03 09:00:00Z", "2013-01-03T09:00Z", "2013-01-03T09:00:00.5Z",
		"2013-01-03T09:00:00+00:00", "+013-01-03T09:00:00Z", "2013-01-03T09:00:0aZ"}
	for _, y := range []int{1, 1900, 2000, 2012, 2013} {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= 32; d++ {
				values = append(values, time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC).Format("2006-01-")+
					string(rune('0'+d/10))+string(rune('0'+d%10))+"T12:34:56Z")
			}
		}
	}
	alphabet := []byte("0123456789-:T.Z+z /\x00\xff")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		v := []byte("2013-01-03T09:00:00Z")
		for k := rng.IntN(3); k >= 0; k-- {
			v[rng.IntN(len(v))] = alphabet[rng.IntN(len(alphabet))]
		}
		values = append(values, string(v))
	}
	fast := 0
	for _, v := range values {
		for _, instant := range []bool{false, true} {
			d, ok := parseUTCSeconds(v, instant)
			p := dtParser{s: v, instant: instant}
			want, err := p.parse()
			want.Raw = v
			if ok {
				fast++
				if err != nil || d != want {
					t.Fatalf("%q (instant %v): fast path %+v, parser %+v %v", v, instant, d, want, err)
				}
			}
			if !ok && err == nil && len(v) == 20 && v[19] == 'Z' && want.Granularity == GranSecond {
				t.Fatalf("%q: the fast path refuses a value in its form", v)
			}
		}
	}
	if fast < 10_000 {
		t.Fatalf("the fast path took only %d values", fast)
	}
}
