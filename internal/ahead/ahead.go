// Package ahead runs jobs ahead of the code that needs their results, a
// few at a time: the test suites that play scenarios against the mock
// Source (destination's harness specs, suite/destination's self-test)
// start the next plays while a spec waits on one (a Retry-After, a
// child), so that they use the processors meanwhile.
package ahead

import (
	"context"
	"sync"
)

// Runner runs jobs, in the order they were added, ahead of Get: at most
// Window at once (at least 1). With a Lookahead, only the jobs from the
// one last asked for to Lookahead-1 past it start ahead (Lookahead 1: only
// the job asked for runs), and jobs before it that were not started are
// skipped (a focused run does not need them), run only if asked for; with
// none (0), every job not started, in order. A job asked for starts at
// once, whatever the window. Whenever a job ends, the next ones start.
type Runner[T any] struct {
	Window, Lookahead int

	wg      sync.WaitGroup
	mu      sync.Mutex
	jobs    []*job[T]
	cursor  int // the job last asked for
	running int
	closed  bool
}

type job[T any] struct {
	run     func() T
	started bool
	done    chan struct{}
	res     T
}

// Add registers a job and returns its index. run is called when the job
// starts, on a goroutine of its own.
func (r *Runner[T]) Add(run func() T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, &job[T]{run: run, done: make(chan struct{})})
	return len(r.jobs) - 1
}

// Get starts job i if it has not started, and the jobs after it that the
// window and the lookahead allow, and returns job i's result once it has
// ended; or ctx's error if ctx ends first.
func (r *Runner[T]) Get(ctx context.Context, i int) (T, error) {
	r.mu.Lock()
	j := r.jobs[i]
	r.cursor = i
	if !j.started {
		r.start(j)
	}
	r.fill()
	r.mu.Unlock()
	select {
	case <-j.done:
		return j.res, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Started says whether job i has started.
func (r *Runner[T]) Started(i int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.jobs[i].started
}

// Close starts no more jobs and waits for those started to end.
func (r *Runner[T]) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
}

// fill starts jobs while fewer than Window run; r.mu is held.
func (r *Runner[T]) fill() {
	from, end := 0, len(r.jobs)
	if r.Lookahead > 0 {
		from, end = r.cursor, min(end, r.cursor+r.Lookahead)
	}
	for k := from; k < end && r.running < max(r.Window, 1) && !r.closed; k++ {
		if !r.jobs[k].started {
			r.start(r.jobs[k])
		}
	}
}

// start runs j on a goroutine; r.mu is held.
func (r *Runner[T]) start(j *job[T]) {
	j.started = true
	r.running++
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		j.res = j.run()
		close(j.done)
		r.mu.Lock()
		r.running--
		r.fill()
		r.mu.Unlock()
	}()
}
