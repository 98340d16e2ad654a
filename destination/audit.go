package destination

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// audit compares DIR with the Source (5.2: "check that the content it
// obtained matches the current resources hosted by the Source both
// regarding coverage and accuracy"). The list of the Source's resources
// is compiled from the Resource List and the Change Lists published since
// its snapshot; each is compared by length and hash where given. Nothing
// is written.
func (s *syncer) audit(ctx context.Context, sets []*capSet) error {
	type want struct {
		url string
		fix Fixity
	}
	expected := map[string]want{} // by path
	var errs []error
	for _, set := range sets {
		sr := SetReport{CapabilityList: set.url}
		u := set.caps[rs.CapResourceList]
		if u == "" {
			errs = append(errs, fmt.Errorf("%s: an audit needs a Resource List and the Source offers none for this set", set.url))
			continue
		}
		leaves, at, _, err := s.readSnapshot(ctx, u, rs.ResourceList)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sr.Baseline = u
		byURL := map[string]item{}
		for _, lf := range leaves {
			for _, e := range lf.doc.Entries {
				if it, ok := s.itemOf(lf.url, e, set.url); ok {
					byURL[it.url] = it
				}
			}
		}
		if set.has(rs.CapChangeList) {
			plan, err := s.planChangeLists(ctx, set, &SetState{}, at, false)
			switch {
			case errors.Is(err, errGap):
				s.rep.note(set.url + ": the changes since the Resource List cannot all be read: " + err.Error())
			case err != nil:
				errs = append(errs, err)
				continue
			default:
				sr.Changes = plan.read
				for _, c := range plan.final {
					if c.kind == "deleted" {
						delete(byURL, c.it.url)
					} else {
						byURL[c.it.url] = c.it
					}
				}
			}
		}
		for u, it := range byURL {
			expected[it.rel] = want{url: u, fix: it.fix}
		}
		s.rep.Sets = append(s.rep.Sets, sr)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	a := &Audit{}
	paths := make([]string, 0, len(expected))
	for p := range expected {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var mu sync.Mutex
	var tasks []task
	for _, p := range paths {
		w := expected[p]
		tasks = append(tasks, func(context.Context) error {
			item, verified := s.auditOne(p, w.url, w.fix)
			mu.Lock()
			defer mu.Unlock()
			a.Checked++
			if !verified {
				a.Unverified++
			}
			if item != nil {
				if item.Reason == "missing" {
					item.Reason = ""
					a.Missing = append(a.Missing, *item)
				} else {
					a.Changed = append(a.Changed, *item)
				}
			}
			return nil
		})
	}
	if _, err := s.runTasks(ctx, tasks); err != nil {
		return err
	}
	files, err := s.m.walk(s.stateRel)
	if err != nil {
		return fmt.Errorf("listing %s: %w", s.o.Dir, err)
	}
	for _, f := range files {
		if _, ok := expected[f]; !ok {
			a.Extra = append(a.Extra, AuditItem{Path: f})
		}
	}
	byPath := func(items []AuditItem) {
		sort.Slice(items, func(i, j int) bool {
			if items[i].Path != items[j].Path {
				return items[i].Path < items[j].Path
			}
			return items[i].URL < items[j].URL
		})
	}
	// A resource the Source lists but whose URI cannot be kept is not
	// in DIR either: the directory is not in sync (sync fails on it too).
	// (Once each: the Resource List and a Change List may both list it.)
	s.mu.Lock()
	seen := map[string]bool{}
	for _, u := range s.unkept {
		if !seen[u.URL] {
			seen[u.URL] = true
			a.Missing = append(a.Missing, u)
		}
	}
	s.mu.Unlock()
	byPath(a.Missing)
	byPath(a.Changed)
	byPath(a.Extra)
	a.InSync = len(a.Missing)+len(a.Extra)+len(a.Changed) == 0
	s.rep.Audit = a
	return nil
}

// auditOne compares one file with the Source's metadata; it returns nil
// when they agree, and whether there was anything to compare beyond
// presence.
func (s *syncer) auditOne(rel, u string, fix Fixity) (*AuditItem, bool) {
	size := s.m.size(rel)
	if size < 0 {
		return &AuditItem{URL: u, Path: rel, Reason: "missing"}, fix.Known()
	}
	if fix.Length >= 0 && size != fix.Length {
		return &AuditItem{URL: u, Path: rel, Reason: fmt.Sprintf("length %d, the Source says %d", size, fix.Length)}, true
	}
	for _, alg := range algPreference {
		want, ok := fix.Hashes[alg]
		if !ok {
			continue
		}
		_, sums, err := s.m.hash(rel, []string{alg})
		if err != nil {
			return &AuditItem{URL: u, Path: rel, Reason: "cannot read: " + err.Error()}, true
		}
		if sums[alg] != want {
			return &AuditItem{URL: u, Path: rel, Reason: fmt.Sprintf("%s %s, the Source says %s", alg, sums[alg], want)}, true
		}
		return nil, true
	}
	return nil, fix.Known()
}
