package monitor

import (
	"time"

	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Diff is diff of runs that omitted no finding, for the tests.
func Diff(before map[fingerprint.Key]Finding, now []Finding) Regression {
	return diff(before, nil, now, nil)
}

// DiffOmitted is diff, for the tests.
func DiffOmitted(before map[fingerprint.Key]Finding, beforeOmitted []Omitted, now []Finding, nowOmitted []Omitted) Regression {
	return diff(before, beforeOmitted, now, nowOmitted)
}

// HostWaits reserves requests to hosts in turn at the rate each asks,
// after declaring the Sources' rates, and returns the waits.
func HostWaits(c sourcehttp.Clock, declared map[string][]float64, requests []string, rate float64) []time.Duration {
	h := newHostLimiter(c)
	for host, rates := range declared {
		for _, r := range rates {
			h.declare(host, r)
		}
	}
	var out []time.Duration
	for _, host := range requests {
		out = append(out, h.reserve(host, rate))
	}
	return out
}

// SetMaxReportBytes sets the bound of a full report of s (MaxReportBytes).
func SetMaxReportBytes(s *Store, n int64) { s.maxReport = n }
