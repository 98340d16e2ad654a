package ahead

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

// gatedJobs adds n jobs to r that each wait for their gate, recording how
// many run at once at most.
type gatedJobs struct {
	mu            sync.Mutex
	running, most int
	gates         []chan struct{}
}

func addGated(r *Runner[int], n int) *gatedJobs {
	g := &gatedJobs{}
	for i := 0; i < n; i++ {
		gate := make(chan struct{})
		g.gates = append(g.gates, gate)
		r.Add(func() int {
			g.mu.Lock()
			g.running++
			g.most = max(g.most, g.running)
			g.mu.Unlock()
			<-gate
			g.mu.Lock()
			g.running--
			g.mu.Unlock()
			return i * 10
		})
	}
	return g
}

func started(r *Runner[int], n int) []bool {
	var out []bool
	for i := 0; i < n; i++ {
		out = append(out, r.Started(i))
	}
	return out
}

func equal(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// waitFor polls cond for a second: jobs start and end on goroutines.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("not within 1 s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWindowAndLookahead(t *testing.T) {
	r := &Runner[int]{Window: 2, Lookahead: 3}
	defer r.Close()
	g := addGated(r, 6)
	close(g.gates[0])
	if got, err := r.Get(context.Background(), 0); got != 0 || err != nil {
		t.Fatalf("job 0: %d, %v", got, err)
	}
	// Job 0 ended: jobs 1 and 2 run (the window), 3 is past the lookahead.
	waitFor(t, "jobs 1 and 2 started", func() bool { return equal(started(r, 6), []bool{true, true, true, false, false, false}) })
	close(g.gates[1])
	if got, _ := r.Get(context.Background(), 1); got != 10 {
		t.Fatalf("job 1: %d", got)
	}
	// The cursor at 1: job 3 within the lookahead starts when 1 ends.
	waitFor(t, "job 3 started", func() bool { return r.Started(3) })
	if r.Started(4) {
		t.Fatal("job 4 started beyond the window")
	}
	for _, i := range []int{2, 3, 4, 5} {
		close(g.gates[i])
	}
	for i := 2; i < 6; i++ {
		if got, _ := r.Get(context.Background(), i); got != i*10 {
			t.Fatalf("job %d: %d", i, got)
		}
	}
	if g.most > 2 {
		t.Errorf("%d jobs ran at once, window 2", g.most)
	}
}

// A job asked for out of order starts at once; the jobs before it that
// were not started are skipped, run only when asked for.
func TestOutOfOrder(t *testing.T) {
	r := &Runner[int]{Window: 1, Lookahead: 1}
	defer r.Close()
	g := addGated(r, 4)
	for _, gate := range g.gates {
		close(gate)
	}
	if got, _ := r.Get(context.Background(), 2); got != 20 {
		t.Fatalf("job 2: %d", got)
	}
	if r.Started(0) || r.Started(1) || r.Started(3) {
		t.Fatalf("started %v: want only job 2 (lookahead 1)", started(r, 4))
	}
	if got, _ := r.Get(context.Background(), 0); got != 0 {
		t.Fatalf("job 0: %d", got)
	}
}

// Get gives up when its context ends; Close waits for the jobs started.
func TestCancelAndClose(t *testing.T) {
	r := &Runner[int]{Window: 2, Lookahead: 2}
	g := addGated(r, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Get(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled context: %v", err)
	}
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while jobs 0 and 1 run")
	case <-time.After(20 * time.Millisecond):
	}
	waitFor(t, "Close started", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.closed })
	close(g.gates[0])
	close(g.gates[1])
	<-closed
	if r.Started(2) {
		t.Error("job 2 started after Close")
	}
}

// Without a lookahead, the jobs not started run in order, those before
// the one asked for too.
func TestNoLookahead(t *testing.T) {
	r := &Runner[int]{Window: 3}
	defer r.Close()
	g := addGated(r, 5)
	close(g.gates[3])
	if got, _ := r.Get(context.Background(), 3); got != 30 {
		t.Fatalf("job 3: %d", got)
	}
	waitFor(t, "jobs 0, 1 and 2 started", func() bool { return equal(started(r, 5), []bool{true, true, true, true, false}) })
	for _, i := range []int{0, 1, 2, 4} {
		close(g.gates[i])
	}
	waitFor(t, "job 4 started", func() bool { return r.Started(4) })
	if g.most > 3 {
		t.Errorf("%d jobs ran at once, window 3", g.most)
	}
}
