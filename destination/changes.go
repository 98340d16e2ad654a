package destination

import (
	"context"
	"fmt"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// change is one entry of a Change List or Change Dump Manifest.
type change struct {
	it     item
	kind   string // created, updated, deleted
	path   string // in a Change Dump package
	seg    int    // index of the segment or package it comes from
	dtTime time.Time
	hasDT  bool
}

// segRun is a Change List processed in this run and the cursor it leaves.
type segRun struct {
	sg     *segment
	cursor ListCursor
}

// changePlan is the changes to apply: the last change of each resource,
// in the order of those last changes, and where each list stops.
type changePlan struct {
	segs  []*segRun
	final []*change
	read  []string
}

// planChangeLists reads the Change Lists (and archived ones when needed)
// and collects the changes not processed yet: those at or after since, and,
// with useCursors, after the last change processed in each list (12.1:
// "The forward chronological order of changes in a Change List, the
// datetime of a resource change (if provided), and the URI of a changed
// resource help the Destination to determine the first unprocessed
// change"). Closed lists processed to their end are skipped (12.1: a
// closed list "will not be updated anymore").
func (s *syncer) planChangeLists(ctx context.Context, set *capSet, ss *SetState, sinceRaw string, useCursors bool) (*changePlan, error) {
	root := set.caps[rs.CapChangeList]
	segs, err := s.readSeries(ctx, root, rs.ChangeList)
	if err != nil {
		return nil, err
	}
	since, _ := parseDT(sinceRaw)
	if segs, err = s.withArchive(ctx, segs, since, set.caps[rs.CapChangeListArchive], rs.ChangeList); err != nil {
		return nil, err
	}
	plan := &changePlan{}
	var all []*change
	for i, sg := range segs {
		var cur *ListCursor
		if useCursors {
			cur = ss.cursor(sg.url, sg.from)
			if cur != nil && cur.Done && sg.closed {
				continue
			}
		}
		if sg.closed && !since.IsZero() && sg.untilT.Before(since) {
			continue
		}
		if err := s.fetchSegment(ctx, sg, rs.ChangeList); err != nil {
			return nil, err
		}
		if sg.closed && !since.IsZero() && sg.untilT.Before(since) {
			continue
		}
		plan.read = append(plan.read, sg.url)
		entries := sg.doc.Entries
		start := startOf(entries, cur, since)
		for _, e := range entries[start:] {
			c, ok := s.changeOf(sg.url, e, set.url, i)
			if ok {
				all = append(all, c)
			}
		}
		run := &segRun{sg: sg, cursor: ListCursor{URL: sg.url, From: sg.from, Until: sg.until, Done: sg.closed, Position: len(entries)}}
		if cur != nil && len(entries) == 0 {
			run.cursor.LastDatetime, run.cursor.LastLoc = cur.LastDatetime, cur.LastLoc
		}
		if n := len(entries); n > 0 {
			last := entries[n-1]
			run.cursor.LastLoc = strings.TrimSpace(last.Loc)
			if last.Md != nil {
				run.cursor.LastDatetime = last.Md.Datetime
			}
		}
		plan.segs = append(plan.segs, run)
	}
	plan.final = collapse(all)
	return plan, nil
}

// startOf is the index of the first entry to process. A cursor whose
// position still shows the entry it recorded last is trusted; otherwise
// processing starts at the first change at or after the cursor's (or
// since's) datetime: a change seen twice is harmless, one missed is not.
func startOf(entries []*rs.Entry, cur *ListCursor, since time.Time) int {
	if cur != nil && cur.Position > 0 && cur.Position <= len(entries) {
		e := entries[cur.Position-1]
		dt := ""
		if e.Md != nil {
			dt = e.Md.Datetime
		}
		if strings.TrimSpace(e.Loc) == cur.LastLoc && dt == cur.LastDatetime {
			return cur.Position
		}
	}
	from := since
	if cur != nil {
		if t, ok := parseDT(cur.LastDatetime); ok {
			from = t
		} else if cur.Position > 0 {
			// No datetimes to go by: trust the position.
			return min(cur.Position, len(entries))
		}
	}
	if from.IsZero() {
		return 0
	}
	for i, e := range entries {
		if e.Md == nil {
			return i
		}
		t, ok := parseDT(e.Md.Datetime)
		if !ok || !t.Before(from) {
			return i
		}
	}
	return len(entries)
}

// changeOf reads one change entry.
func (s *syncer) changeOf(base string, e *rs.Entry, set string, seg int) (*change, bool) {
	if e.Md == nil || e.Md.Change == "" {
		s.rep.problem(ProblemDocument, resolve(base, e.Loc), "", "a change entry without rs:md change (in "+base+")")
		return nil, false
	}
	switch e.Md.Change {
	case "created", "updated", "deleted":
	default:
		s.rep.problem(ProblemDocument, resolve(base, e.Loc), "", fmt.Sprintf("unknown change %q (in %s)", e.Md.Change, base))
		return nil, false
	}
	it, ok := s.itemOf(base, e, set)
	if !ok {
		return nil, false
	}
	c := &change{it: it, kind: e.Md.Change, path: e.Md.Path, seg: seg}
	c.dtTime, c.hasDT = parseDT(e.Md.Datetime)
	return c, true
}

// collapse keeps the last change of each resource, in the order of those
// last changes: a resource changed several times ends in its last state.
func collapse(all []*change) []*change {
	last := map[string]int{}
	for i, c := range all {
		last[c.it.url] = i
	}
	var out []*change
	for i, c := range all {
		if last[c.it.url] == i {
			out = append(out, c)
		}
	}
	return out
}

// applyPlan applies the last change of each resource (a deletion removes
// the copy without a request; a creation or update fetches the resource,
// unless the copy already matches) and, when nothing failed in a way
// that may go away, moves the cursors on.
func (s *syncer) applyPlan(ctx context.Context, set *capSet, ss *SetState, sr *SetReport, plan *changePlan) error {
	sr.Changes = append(sr.Changes, plan.read...)
	var tasks []task
	for _, c := range plan.final {
		c := c
		if c.kind == "deleted" {
			tasks = append(tasks, func(context.Context) error { s.deleteResource(c.it.url, c.it.rel); return nil })
		} else {
			tasks = append(tasks, func(ctx context.Context) error { return s.syncResource(ctx, c.it) })
		}
	}
	failed, err := s.runTasks(ctx, tasks)
	sr.Applied += len(plan.final) - failed
	if err != nil {
		return err
	}
	if failed > 0 {
		s.rep.note(fmt.Sprintf("%s: %d changes could not be applied; the next run reads the Change Lists from the same place", set.url, failed))
		return nil
	}
	now := time.Now().UTC()
	for _, run := range plan.segs {
		c := run.cursor
		c.Updated = now
		if cur := ss.cursor(c.URL, c.From); cur != nil {
			*cur = c
		} else {
			ss.ChangeLists = append(ss.ChangeLists, &c)
		}
		if run.sg.closed && laterDT(run.sg.until, ss.Since) {
			ss.Since = run.sg.until
		}
	}
	ss.prune()
	return nil
}
