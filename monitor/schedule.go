package monitor

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Serve runs every Source on its own schedule until ctx is done: each
// one Every after its last run started (its first run within the first
// Jitter of its period, or at once when it is overdue by the database),
// give or take Jitter of its period, at most MaxCrawls at once, never two
// runs of one Source at once. When ctx is done, the runs in progress go
// on for Grace, then are cut and recorded as interrupted; Serve returns
// once they are recorded. onRun, when set, hears of each run.
func (m *Monitor) Serve(ctx context.Context, onRun func(Result)) error {
	rng := rand.New(rand.NewPCG(uint64(m.clock.Now().UnixNano()), 28))
	now := m.clock.Now()
	q := &dueQueue{}
	for i := range m.cfg.Sources {
		src := &m.cfg.Sources[i]
		due := now.Add(m.jitter(rng, src.Every))
		if last, err := m.cfg.Store.Runs(ctx, src.Name, 1); err == nil && len(last) > 0 {
			if next := last[0].Started.Add(src.Every); next.After(due) {
				due = next
			}
		}
		heap.Push(q, dueSource{due: due, src: src})
	}
	// Runs are cut Grace after the stop, not at once.
	runCtx, cutRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cutRuns()
	stop := context.AfterFunc(ctx, func() {
		if m.cfg.Grace <= 0 {
			cutRuns()
			return
		}
		t := time.AfterFunc(m.cfg.Grace, cutRuns)
		context.AfterFunc(runCtx, func() { t.Stop() })
	})
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for q.Len() > 0 {
		next := heap.Pop(q).(dueSource)
		if err := m.clock.Sleep(ctx, next.due.Sub(m.clock.Now())); err != nil {
			return nil
		}
		// The next run is planned from this one's planned start, so that
		// a slow crawl does not make the schedule drift.
		following := next.due.Add(next.src.Every + m.jitter(rng, next.src.Every) - m.jitterMean(next.src.Every))
		if following.Before(m.clock.Now()) {
			following = m.clock.Now().Add(m.jitter(rng, next.src.Every))
		}
		heap.Push(q, dueSource{due: following, src: next.src})
		m.mu.Lock()
		busy := m.active[next.src.Name]
		m.mu.Unlock()
		if busy {
			m.logf("%s: the last run is still in progress; this one is skipped", next.src.Name)
			continue
		}
		select {
		case m.sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if ctx.Err() != nil {
			<-m.sem
			return nil
		}
		m.mu.Lock()
		m.active[next.src.Name] = true
		m.mu.Unlock()
		wg.Add(1)
		go func(src *Source) {
			defer wg.Done()
			res := m.RunSource(runCtx, src)
			m.mu.Lock()
			delete(m.active, src.Name)
			m.mu.Unlock()
			<-m.sem
			if res.Err != nil {
				m.logf("%s: %v", src.Name, res.Err)
			}
			if onRun != nil {
				onRun(res)
			}
		}(next.src)
	}
	return nil
}

// jitter is a random wait in [0, Jitter×every).
func (m *Monitor) jitter(rng *rand.Rand, every time.Duration) time.Duration {
	span := int64(float64(every) * m.cfg.Jitter)
	if span <= 0 {
		return 0
	}
	return time.Duration(rng.Int64N(span))
}

func (m *Monitor) jitterMean(every time.Duration) time.Duration {
	return time.Duration(float64(every) * m.cfg.Jitter / 2)
}

// dueSource is a Source and when it is next due.
type dueSource struct {
	due time.Time
	src *Source
}

// dueQueue is a min-heap of Sources by the time they are due.
type dueQueue []dueSource

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(dueSource)) }
func (q *dueQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
