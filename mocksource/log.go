package mocksource

import (
	"net/http"
	"sync"
	"time"
)

// Request is one request the Source served, as the control API reports it.
type Request struct {
	// Seq numbers requests from 1; GET /_rsconform/log?since=N returns
	// those after N.
	Seq int64 `json:"seq"`
	// Time is the virtual time when the request was served; Received the
	// real time it arrived; Duration how long it took in real time.
	Time     time.Time     `json:"time"`
	Received time.Time     `json:"received"`
	Duration time.Duration `json:"duration_ns"`
	Method   string        `json:"method"`
	// Origin is 2 for a request to the Source's second origin
	// (Origin2Handler), whose Path is as asked there (/res/a.txt for the
	// resource /origin2/res/a.txt); 0 for the first origin.
	Origin int    `json:"origin,omitempty"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Status is 0 when the connection was dropped before any response.
	Status int   `json:"status"`
	Bytes  int64 `json:"bytes"`
	// Fault names the faults that fired, comma-separated.
	Fault string `json:"fault,omitempty"`
	// RetryAfter is the Retry-After header of the response, when sent.
	RetryAfter string `json:"retry_after,omitempty"`
	// Headers holds the request headers that matter to synchronisation
	// (conditional requests, ranges, the client's name) when present.
	Headers map[string]string `json:"headers,omitempty"`
}

// loggedHeaders are the request headers the log keeps.
var loggedHeaders = []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range", "User-Agent", "Accept-Encoding"}

func requestHeaders(h http.Header) map[string]string {
	var out map[string]string
	for _, k := range loggedHeaders {
		if v := h.Get(k); v != "" {
			if out == nil {
				out = make(map[string]string, 2)
			}
			out[k] = v
		}
	}
	return out
}

// requestLog is a ring of the latest requests. It grows as requests come
// (the harness asks for room for 200,000, some 40 MB a Source allocated
// and cleared up front, while a scenario serves hundreds).
type requestLog struct {
	mu   sync.Mutex
	size int       // requests kept at most
	recs []Request // up to size, then a ring
	next int64     // sequence number of the next request, from 1
}

func newRequestLog(n int) *requestLog { return &requestLog{size: n, next: 1} }

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	r.Seq = l.next
	if len(l.recs) < l.size {
		l.recs = append(l.recs, r)
	} else {
		l.recs[(l.next-1)%int64(l.size)] = r
	}
	l.next++
	l.mu.Unlock()
}

// since returns the kept requests with Seq > seq, oldest first.
func (l *requestLog) since(seq int64) []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := max(l.next-int64(len(l.recs)), 1, seq+1)
	out := make([]Request, 0, max(l.next-first, 0))
	for s := first; s < l.next; s++ {
		out = append(out, l.recs[(s-1)%int64(len(l.recs))])
	}
	return out
}
