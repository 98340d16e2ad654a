package engine

import (
	"fmt"
	"sync/atomic"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Values the rules share, as go/analysis's Requires and ResultOf: what
// several rules need of every entry (its parsed datetimes, its hash values)
// is an EntryValue, computed once per entry for all of them instead of once
// per rule. A rule lists the values it reads in Rule.Requires and reads
// them with EntryValue.Of. While a document is read, the engine computes
// the values the rules of ScopeEntries require for each window of entries
// before it resumes them (on their goroutine, a window behind the front
// end), and drops them with the window: a rule keeps nothing of a value
// beyond the entry it is at, as it keeps nothing of the entry. When a
// document is checked as a whole (Run, ValidateDoc: no window), each rule
// computes the values it reads, once per entry.

// EntryValue is a value of each entry.
type EntryValue[T any] struct {
	// Name says what the value is.
	Name string
	// Compute computes the value of an entry. reuse is the value computed
	// before at the same place of an earlier window (the zero T at first):
	// Compute may reuse its storage (a slice's backing array), since no
	// rule keeps a value beyond its window.
	Compute func(e *rs.Entry, reuse T) T
	id      int
}

// Value is what Rule.Requires lists: an *EntryValue of any type.
type Value interface {
	valueID() int
	newSlot() slot
}

var valueIDs atomic.Int32

// NewEntryValue declares a value of each entry (at package level: the
// values, like the rules, are declared once).
// A Pass keeps the values its rule requires as a set of 64 bits: a 65th
// value panics, at start-up.
func NewEntryValue[T any](name string, compute func(e *rs.Entry, reuse T) T) *EntryValue[T] {
	id := int(valueIDs.Add(1)) - 1
	if id >= 64 {
		panic("rules/engine: more than 64 entry values (Pass.required is a uint64)")
	}
	return &EntryValue[T]{Name: name, Compute: compute, id: id}
}

func (v *EntryValue[T]) valueID() int  { return v.id }
func (v *EntryValue[T]) newSlot() slot { return &slotOf[T]{v: v} }

// Of returns the value of e, the entry p is at (the one Pass.Entries, or
// EntriesWith, ElementsWith, WalkWith and Lns, last
// yielded): computed once for every rule that requires it. For another entry, or when the document is checked as
// a whole, the value is computed here. A rule reads only the values it
// requires: Of panics otherwise, as go/analysis's ResultOf has no result
// of an analyzer not required (the check runs as a rule that could not
// run).
func (v *EntryValue[T]) Of(p *Pass, e *rs.Entry) T {
	if !p.requires(v.id) {
		panic(fmt.Sprintf("rule %s reads the value %q, which it does not require (Rule.Requires)", p.Rule.ID, v.Name))
	}
	if t := p.values; t != nil {
		if s, ok := t.slots[v.id].(*slotOf[T]); ok && p.at < len(s.entries) && s.entries[p.at] == e {
			return s.vals[p.at]
		}
	}
	// Computed for this rule alone, and kept while it reads the same
	// entry, in storage reused from entry to entry.
	if p.own == nil {
		p.own = newValues([]*Rule{p.Rule})
	}
	s := p.own.slots[v.id].(*slotOf[T])
	if len(s.entries) == 1 && s.entries[0] == e {
		return s.vals[0]
	}
	s.fill(append(s.entries[:0], e))
	return s.vals[0]
}

// requires reports whether p's rule requires the value numbered id (lists
// it in Rule.Requires): Of asks for every entry.
func (p *Pass) requires(id int) bool { return p.required&(1<<id) != 0 }

// requiredSet is the set of the IDs of the values r requires.
func requiredSet(r *Rule) (set uint64) {
	for _, v := range r.Requires {
		set |= 1 << v.valueID()
	}
	return set
}

// slot holds the values of one EntryValue for the entries of a window.
type slot interface{ fill(entries []*rs.Entry) }

type slotOf[T any] struct {
	v       *EntryValue[T]
	entries []*rs.Entry
	vals    []T
}

func (s *slotOf[T]) fill(entries []*rs.Entry) {
	s.entries = entries
	if n := len(entries); cap(s.vals) < n {
		s.vals = append(s.vals[:cap(s.vals)], make([]T, n-cap(s.vals))...)
	}
	s.vals = s.vals[:len(entries)]
	for i, e := range entries {
		s.vals[i] = s.v.Compute(e, s.vals[i])
	}
}

// values is the table of the values some rules of a document require, by
// value ID, for the window being checked.
type values struct {
	slots []slot // by value ID; nil for the values no rule requires
	used  []slot
}

// newValues is the table of the values rules require; nil when none does.
func newValues(rules []*Rule) *values {
	var t *values
	for _, r := range rules {
		for _, v := range r.Requires {
			if t == nil {
				t = &values{}
			}
			id := v.valueID()
			if id >= len(t.slots) {
				t.slots = append(t.slots, make([]slot, id+1-len(t.slots))...)
			}
			if t.slots[id] == nil {
				t.slots[id] = v.newSlot()
				t.used = append(t.used, t.slots[id])
			}
		}
	}
	return t
}

// fill computes every value of the table for the entries of a window.
func (t *values) fill(entries []*rs.Entry) {
	for _, s := range t.used {
		s.fill(entries)
	}
}
