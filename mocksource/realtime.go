package mocksource

import (
	"fmt"
	"time"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

// Real-time mode: resources change while a client crawls, as on a live
// Source. The scenario's steps set the scene (and are all played when the
// Source is built); from then on, one resource changes every
// Options.Realtime of the clock (Options.Clock, real time by default),
// each change recorded in the open Change List at the tick's instant.
//
// Changes are played lazily: every request (and Info, Expected, Step)
// first plays the ticks that are due, each at its own instant, so that
// the Source a request sees is the Source at the time it was received,
// and a test with an injected clock decides exactly when changes happen
// without a timer or a sleep.
//
// Tick k updates a live resource chosen by the seed, except every tenth
// (k = 4 mod 10) which creates one and every tenth (k = 9 mod 10) which
// deletes one. Resources a fault is armed for never change: a wrong hash
// stays wrong, and a client cannot excuse it by a recorded change.

// Clock tells the time in real-time mode.
type Clock func() time.Time

// realtime is the state of real-time mode; guarded by Source.mu.
type realtime struct {
	every time.Duration
	clock Clock
	next  time.Time // instant of the next tick
	ticks int       // ticks played
}

// startRealtime plays the remaining steps and arms the ticks; s.mu is not
// yet shared.
func (s *Source) startRealtime() error {
	every, clock := s.opts.Realtime, s.opts.Clock
	if every <= 0 {
		return nil
	}
	if clock == nil {
		clock = time.Now
	}
	file := s.sc.File
	if file == "" {
		file = s.sc.Name
	}
	for s.w.step < len(s.sc.Steps) {
		if err := s.w.runStep(&s.sc.Steps[s.w.step], file); err != nil {
			return err
		}
	}
	now := clock().UTC()
	if now.Before(s.w.now) {
		return fmt.Errorf("mocksource: real-time mode: the scenario %s ends at %s, after the clock's now (%s)",
			s.sc.Name, s.w.now.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	s.w.now = now
	s.clock.Store(now.UnixNano())
	s.rt = &realtime{every: every, clock: clock, next: now.Add(every)}
	s.rtNext.Store(s.rt.next.UnixNano())
	return nil
}

// catchUp plays the real-time ticks that are due.
func (s *Source) catchUp() {
	if s.rt == nil {
		return
	}
	now := s.rt.clock().UTC()
	if now.UnixNano() < s.rtNext.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.rt.next.After(now) {
		s.w.now = s.rt.next
		s.w.tick(s.rt.ticks)
		s.rt.ticks++
		s.rt.next = s.rt.next.Add(s.rt.every)
	}
	s.w.now = now
	s.clock.Store(now.UnixNano())
	s.rtNext.Store(s.rt.next.UnixNano())
}

// tick plays real-time change k at w.now.
func (w *world) tick(k int) {
	salt := uint64(k)<<8 | 0x5a
	switch k % 10 {
	case 4:
		typ := w.types[int(w.total)%len(w.types)]
		var b [40]byte
		p := append(b[:0], "/res/r"...)
		p = pad7(p, int(w.total))
		p = append(p, scenario.ExtFor(typ)...)
		// A fresh path cannot exist: the error is impossible.
		_ = w.create(string(p), typ, 0)
	case 9:
		if id, ok := w.pickUnfaulted(salt); ok && w.alive > 1 {
			w.remove(id)
		}
	default:
		if id, ok := w.pickUnfaulted(salt); ok {
			w.update(id)
		}
	}
}

// pickUnfaulted chooses a live resource no fault is armed for.
func (w *world) pickUnfaulted(salt uint64) (int32, bool) {
	x := mix64(uint64(w.seed) ^ salt*0x9e3779b97f4a7c15)
	for try := 0; try < 64; try++ {
		x = mix64(x)
		id := int32(x % uint64(w.total))
		if w.isAlive(id) && !w.faulted(w.current(id).path) {
			return id, true
		}
	}
	return 0, false
}

// faulted reports whether any fault is armed for the path.
func (w *world) faulted(p string) bool {
	for _, f := range w.faults {
		if f.Matches(p) {
			return true
		}
	}
	return false
}
