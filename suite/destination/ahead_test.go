package destination_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// aheadPlayer is the self-test's Config.Play: the scenario a container
// asks for is played at once, and while fewer than window plays run, the
// next scenarios of the list are played too, each with its own mock
// Source and directory, so that while one play waits (a Retry-After, its
// child) the others use the processors. The suite judges each result as
// it would judge harness.Run's: the harness configuration of a play run
// ahead is the one the first container asked for, with its own scenario
// and directory.
type aheadPlayer struct {
	window int
	dir    string
	next   []*scenario.Scenario // not yet started, in order

	mu       sync.Mutex
	ahead    bool // decided at the first play (playsAhead)
	template *harness.Config
	plays    map[string]*aheadPlay
	running  int
	wg       sync.WaitGroup
}

type aheadPlay struct {
	done chan struct{}
	out  bytes.Buffer // the harness serialises its writes, all made by the end of the play
	res  *harness.Result
	err  error
}

// newAheadPlayer plays scenarios (names or files, in that order) ahead,
// at most window at once.
func newAheadPlayer(window int, scenarios []string) (*aheadPlayer, error) {
	dir, err := os.MkdirTemp("", "rsconform-suite-plays-")
	if err != nil {
		return nil, err
	}
	a := &aheadPlayer{window: window, dir: dir, plays: map[string]*aheadPlay{}}
	for _, name := range scenarios {
		sc, err := scenario.Load(name)
		if err != nil {
			return nil, err
		}
		a.next = append(a.next, sc)
	}
	return a, nil
}

// Play is the suite's Config.Play.
func (a *aheadPlayer) Play(ctx context.Context, cfg harness.Config) (*harness.Result, error) {
	a.mu.Lock()
	if a.template == nil {
		t := cfg
		a.template, a.ahead = &t, playsAhead()
	}
	p := a.plays[cfg.Scenario.Name]
	if p == nil {
		p = a.start(cfg.Scenario)
	}
	a.fill()
	a.mu.Unlock()
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if cfg.Output != nil {
		cfg.Output.Write(p.out.Bytes())
	}
	return p.res, p.err
}

// start plays sc in its own directory; a.mu is held.
func (a *aheadPlayer) start(sc *scenario.Scenario) *aheadPlay {
	for i, n := range a.next {
		if n.Name == sc.Name {
			a.next = append(a.next[:i], a.next[i+1:]...)
			break
		}
	}
	p := &aheadPlay{done: make(chan struct{})}
	a.plays[sc.Name] = p
	cfg := *a.template
	cfg.Scenario, cfg.Dir, cfg.Output = sc, filepath.Join(a.dir, sc.Name), &p.out
	a.running++
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		p.res, p.err = harness.Run(context.Background(), cfg)
		close(p.done)
		a.mu.Lock()
		a.running--
		a.fill()
		a.mu.Unlock()
	}()
	return p
}

// fill starts the next scenarios while fewer than window plays run; a.mu
// is held.
func (a *aheadPlayer) fill() {
	for a.ahead && a.running < a.window && len(a.next) > 0 {
		if a.plays[a.next[0].Name] != nil {
			a.next = a.next[1:] // listed twice
			continue
		}
		a.start(a.next[0])
	}
}

// close waits for the plays started and removes their directories.
func (a *aheadPlayer) close() {
	a.mu.Lock()
	a.next = nil
	a.mu.Unlock()
	a.wg.Wait()
	os.RemoveAll(a.dir)
}

// playsAhead says whether plays may run ahead: not in a run that selects
// specs (a focus, a skip or a label filter), which may not need them;
// there each container's scenario is played when it asks, as without
// the player.
func playsAhead() bool {
	sc, _ := GinkgoConfiguration()
	return len(sc.FocusStrings) == 0 && len(sc.SkipStrings) == 0 && sc.LabelFilter == "" &&
		len(sc.FocusFiles) == 0 && len(sc.SkipFiles) == 0
}
