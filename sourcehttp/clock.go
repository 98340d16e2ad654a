package sourcehttp

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits; Config.Clock replaces the real one in
// tests, so back-off, Retry-After and rate limits cost no real time.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StepClock is a Clock for tests: Sleep returns at once (unless ctx is
// done) and moves the time on by the wait, so back-off, Retry-After and
// rates are observed without waiting.
type StepClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

// NewStepClock returns a StepClock at t.
func NewStepClock(t time.Time) *StepClock { return &StepClock{now: t} }

func (c *StepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *StepClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.waits = append(c.waits, d)
		c.mu.Unlock()
	}
	return nil
}

// Waits are the waits so far, in order.
func (c *StepClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// Slept is the sum of the waits so far.
func (c *StepClock) Slept() time.Duration {
	var t time.Duration
	for _, d := range c.Waits() {
		t += d
	}
	return t
}
