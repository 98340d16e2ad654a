package destination_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/ahead"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// aheadPlayer is the self-test's Config.Play: the scenario a container
// asks for is played at once, and while fewer than window plays run, the
// next scenarios of the list are played too (internal/ahead), each with
// its own mock Source and directory, so that while one play waits (a
// Retry-After, its child) the others use the processors. The suite judges
// each result as it would judge harness.Run's: the harness configuration
// of a play run ahead is the one the first container asked for, with its
// own scenario and directory.
type aheadPlayer struct {
	window    int
	dir       string
	scenarios []*scenario.Scenario // in order

	mu       sync.Mutex
	template harness.Config // the first container's
	runner   *ahead.Runner[*aheadPlay]
	index    map[string]int // the plays, by scenario name
}

type aheadPlay struct {
	out bytes.Buffer // the harness serialises its writes, all made by the end of the play
	res *harness.Result
	err error
}

// newAheadPlayer plays scenarios (names or files, in that order) ahead,
// at most window at once.
func newAheadPlayer(window int, scenarios []string) (*aheadPlayer, error) {
	dir, err := os.MkdirTemp("", "rsconform-suite-plays-")
	if err != nil {
		return nil, err
	}
	a := &aheadPlayer{window: window, dir: dir, index: map[string]int{}}
	for _, name := range scenarios {
		sc, err := scenario.Load(name)
		if err != nil {
			return nil, err
		}
		a.scenarios = append(a.scenarios, sc)
	}
	return a, nil
}

// Play is the suite's Config.Play.
func (a *aheadPlayer) Play(ctx context.Context, cfg harness.Config) (*harness.Result, error) {
	a.mu.Lock()
	if a.runner == nil {
		// Decided at the first play (playsAhead): without plays ahead,
		// each scenario is played when its container asks.
		lookahead := 1
		if playsAhead() {
			lookahead = 0 // every scenario of the list, in order
		}
		a.template = cfg
		a.runner = &ahead.Runner[*aheadPlay]{Window: a.window, Lookahead: lookahead}
		for _, sc := range a.scenarios {
			a.add(sc)
		}
	}
	i, ok := a.index[cfg.Scenario.Name]
	if !ok {
		i = a.add(cfg.Scenario)
	}
	a.mu.Unlock()
	p, err := a.runner.Get(ctx, i)
	if err != nil {
		return nil, err
	}
	if cfg.Output != nil {
		cfg.Output.Write(p.out.Bytes())
	}
	return p.res, p.err
}

// add registers the play of sc in its own directory; a.mu is held.
func (a *aheadPlayer) add(sc *scenario.Scenario) int {
	if i, ok := a.index[sc.Name]; ok {
		return i // listed twice
	}
	cfg := a.template
	p := &aheadPlay{}
	cfg.Scenario, cfg.Dir, cfg.Output = sc, filepath.Join(a.dir, sc.Name), &p.out
	i := a.runner.Add(func() *aheadPlay {
		p.res, p.err = harness.Run(context.Background(), cfg)
		return p
	})
	a.index[sc.Name] = i
	return i
}

// close waits for the plays started and removes their directories.
func (a *aheadPlayer) close() {
	a.mu.Lock()
	r := a.runner
	a.mu.Unlock()
	if r != nil {
		r.Close()
	}
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
