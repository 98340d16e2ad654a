package engine

import (
	rs "github.com/rsconform/rsconform/resourcesync"
)

// The values of an entry that several document rules read (EntryValue),
// the engine's to offer as it offers Pass.ElementsWith: computed once per
// entry, whatever the number of rules that require them.

// MdTimeAttrs are the datetime attributes of <rs:md>, in the order
// EntryDatetimes holds them.
var MdTimeAttrs = [...]string{"at", "completed", "from", "until", "datetime"}

// MdTimeKeys are MdTimeAttrs named once (EntryTimes and the datetime
// rules of rules/document read them on every entry).
var MdTimeKeys = func() (k [len(MdTimeAttrs)]rs.MdAttr) {
	for i, a := range MdTimeAttrs {
		k[i] = rs.MdAttrOf(a)
	}
	return
}()

// MdTimeSet is the set of MdTimeKeys (what the datetime rules walk).
var MdTimeSet = func() (s rs.MdAttrSet) {
	for _, a := range MdTimeKeys {
		s |= a.Set()
	}
	return
}()

// ParsedTime is a datetime value read as rs.ParseDatetimeForm reads it
// (its form: whether it is a W3C Datetime, its granularity, its time zone
// designator), with its instant computed once, the first time a rule asks
// for it (Instant); Present is false when the item is absent.
type ParsedTime struct {
	raw     string
	D       rs.Datetime // its form; its instant too once Instant was called
	Err     error
	Present bool
	timed   bool // D.Time is computed
	untimed bool // ParseDatetime refused what ParseDatetimeForm accepted (it does not)
}

// Value is the value as written ("" when absent).
func (t *ParsedTime) Value() string { return t.raw }

// OK reports whether the value is present and a W3C Datetime.
func (t *ParsedTime) OK() bool { return t.Present && t.Err == nil }

// Instant is the datetime with its instant (rs.ParseDatetime), and whether
// the value is present and a W3C Datetime.
func (t *ParsedTime) Instant() (rs.Datetime, bool) {
	if !t.OK() {
		return rs.Datetime{}, false
	}
	if !t.timed {
		d, err := rs.ParseDatetime(t.raw)
		t.D, t.untimed, t.timed = d, err != nil, true
	}
	return t.D, !t.untimed
}

// ParseTime reads a datetime value v, present or not, as ParsedTime holds it.
func ParseTime(v string, present bool) ParsedTime {
	if !present {
		return ParsedTime{}
	}
	d, err := rs.ParseDatetimeForm(v)
	return ParsedTime{raw: v, D: d, Err: err, Present: true}
}

// EntryDatetimes are the datetimes of an entry: the attributes of its
// <rs:md> (MdTimeAttrs) and its <lastmod>.
type EntryDatetimes struct {
	Md      [len(MdTimeAttrs)]ParsedTime
	Lastmod ParsedTime
}

// Attr is the <rs:md> datetime attribute name (one of MdTimeAttrs).
func (t *EntryDatetimes) Attr(name string) *ParsedTime {
	for i, a := range MdTimeAttrs {
		if a == name {
			return &t.Md[i]
		}
	}
	panic("not a datetime attribute: " + name)
}

// EntryTimes reads every datetime of an entry once (into the storage of
// the entry at the same place of the previous window), its instant once
// when a rule needs it: RS-TIME-W3C and RS-TIME-UTC read their form,
// RS-CL-ORDER, RS-CL-ORDER-LASTMOD, RS-DATETIME-INTERVAL and RS-CDM-ORDER
// their instants. The rules that share it run one after another on one
// goroutine (or, a document checked whole, each on its own value).
var EntryTimes = NewEntryValue("the datetimes of the entry's <rs:md> and <lastmod>",
	func(e *rs.Entry, t *EntryDatetimes) *EntryDatetimes {
		if t == nil {
			t = new(EntryDatetimes)
		}
		var has rs.MdAttrSet // the attributes e's <rs:md> has: most have no datetime
		if e.Md != nil {
			has = e.Md.AttrSet()
		}
		// No datetime attribute here, none in the storage: nothing to do
		// for them (most entries of most lists).
		if has&MdTimeSet == 0 && !anyPresent(t.Md[:]) {
			t.Lastmod.set(e.Lastmod, e.Lastmod != "" || e.LastmodPos.IsValid())
			return t
		}
		for i, a := range MdTimeKeys {
			if has&a.Set() == 0 {
				t.Md[i].set("", false)
				continue
			}
			v, _ := e.Md.Attr(a)
			t.Md[i].set(v, true)
		}
		t.Lastmod.set(e.Lastmod, e.Lastmod != "" || e.LastmodPos.IsValid())
		return t
	})

// anyPresent reports whether one of ts is present (each of MdTimeAttrs,
// whatever their number).
func anyPresent(ts []ParsedTime) bool {
	for i := range ts {
		if ts[i].Present {
			return true
		}
	}
	return false
}

// set makes t ParseTime(v, present), writing t only when that changes it:
// most datetimes an entry could have are absent, entry after entry, and a
// ParsedTime holds five pointers, each write of which costs a write
// barrier while the GC marks (writing all of EntryDatetimes, zero then
// values, for every entry was a third of the write barriers of validate).
// An absent ParsedTime is all zero (ParseTime), so a slot already absent is
// left as it is.
func (t *ParsedTime) set(v string, present bool) {
	if present {
		*t = ParseTime(v, true)
	} else if t.Present {
		*t = ParsedTime{}
	}
}

var mdHash = rs.MdAttrOf("hash")

// EntryHashes are the hash values of an entry's <rs:md> hash attribute,
// split and checked once: RS-HASH-SYNTAX and RS-HASH-ALGORITHM read them.
var EntryHashes = NewEntryValue("the hash values of the entry's <rs:md>",
	func(e *rs.Entry, reuse []rs.CheckedHash) []rs.CheckedHash {
		v, ok := e.Md.Attr(mdHash)
		if !ok {
			return reuse[:0]
		}
		return rs.AppendCheckedHashes(reuse[:0], v)
	})
