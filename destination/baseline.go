package destination

import (
	"context"
	"errors"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// catchUp is the changes published after a snapshot: they are applied
// after the baseline, and the resources they touch are left out of it (a
// resource changed since the snapshot no longer matches the snapshot's
// hash).
type catchUp struct {
	cl      *changePlan
	cd      *dumpPlan
	touched map[string]*change
}

func (c *catchUp) touches(u string) bool { return c != nil && c.touched[u] != nil }

// planCatchUp reads the changes since the snapshot time at. A Source
// without changes, or whose changes cannot be read, gives a nil catchUp
// (the baseline alone is the best that can be done).
func (s *syncer) planCatchUp(ctx context.Context, set *capSet, ss *SetState, at string) *catchUp {
	cu := &catchUp{touched: map[string]*change{}}
	var final []*change
	switch {
	case set.has(rs.CapChangeDump) && (s.o.PreferDumps || !set.has(rs.CapChangeList)):
		plan, err := s.planChangeDumps(ctx, set, at, false)
		if err != nil {
			s.catchUpFailed(set, err)
			return nil
		}
		cu.cd, final = plan, plan.final
	case set.has(rs.CapChangeList):
		plan, err := s.planChangeLists(ctx, set, ss, at, false)
		if err != nil {
			s.catchUpFailed(set, err)
			return nil
		}
		cu.cl, final = plan, plan.final
	default:
		return nil
	}
	for _, c := range final {
		cu.touched[c.it.url] = c
	}
	return cu
}

func (s *syncer) catchUpFailed(set *capSet, err error) {
	if errors.Is(err, errGap) {
		s.rep.note(set.url + ": the changes since the snapshot cannot all be read: " + err.Error())
		return
	}
	s.rep.problem(ProblemDocument, set.url, "", "reading the changes since the snapshot: "+err.Error())
}

func (s *syncer) applyCatchUp(ctx context.Context, set *capSet, ss *SetState, sr *SetReport, cu *catchUp) error {
	switch {
	case cu == nil:
		return nil
	case cu.cd != nil:
		return s.applyDumpPlan(ctx, set, ss, sr, cu.cd)
	case cu.cl != nil:
		return s.applyPlan(ctx, set, ss, sr, cu.cl)
	}
	return nil
}

// keepCreated adds the resources the catch-up creates or updates to the
// set of resources a baseline keeps.
func (c *catchUp) keepCreated(keep map[string]bool) {
	if c == nil {
		return
	}
	for u, ch := range c.touched {
		keep[u] = ch.kind != "deleted"
	}
}

// baselineFromList makes a baseline from a Resource List (or Resource List
// Index): every resource listed is fetched unless the copy is known to be
// current, copies of resources no longer listed are removed, and the
// changes published since the snapshot are applied (5.2).
func (s *syncer) baselineFromList(ctx context.Context, set *capSet, ss *SetState, sr *SetReport) error {
	u := set.caps[rs.CapResourceList]
	leaves, at, completed, err := s.readSnapshot(ctx, u, rs.ResourceList)
	if err != nil {
		return err
	}
	sr.Baseline = u
	cu := s.planCatchUp(ctx, set, ss, at)
	keep := map[string]bool{}
	var order []string
	items := map[string]item{}
	for _, lf := range leaves {
		for _, e := range lf.doc.Entries {
			it, ok := s.itemOf(lf.url, e, set.url)
			if !ok {
				continue
			}
			if it.datetime == "" {
				it.datetime = at
			}
			keep[it.url] = true
			if _, dup := items[it.url]; !dup {
				order = append(order, it.url)
			}
			items[it.url] = it
		}
	}
	cu.keepCreated(keep)
	var tasks []task
	for _, u := range order {
		it := items[u]
		if cu.touches(u) {
			continue
		}
		tasks = append(tasks, func(ctx context.Context) error { return s.syncResource(ctx, it) })
	}
	if _, err := s.runTasks(ctx, tasks); err != nil {
		return err
	}
	s.removeMissing(set.url, keep)
	ss.Baseline = &Baseline{Kind: string(rs.CapResourceList), URL: u, At: strings.TrimSpace(at), Completed: completed, Synced: time.Now().UTC()}
	ss.Since = strings.TrimSpace(at)
	if err := s.saveState(); err != nil {
		return err
	}
	return s.applyCatchUp(ctx, set, ss, sr, cu)
}
