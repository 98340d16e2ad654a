package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// The values of an entry that several rules read (engine.EntryValue):
// computed once per entry, whatever the number of rules that require them.

// mdTimeAttrs are the datetime attributes of <rs:md>, in the order
// forEachDatetime reports them.
var mdTimeAttrs = [...]string{"at", "completed", "from", "until", "datetime"}

// parsedTime is a datetime value read as rs.ParseDatetimeForm reads it
// (its form: whether it is a W3C Datetime, its granularity, its time zone
// designator), with its instant computed once, the first time a rule asks
// for it (instant); present is false when the item is absent.
type parsedTime struct {
	raw     string
	d       rs.Datetime
	err     error
	present bool
	timed   bool // d.Time is computed
	untimed bool // ParseDatetime refused what ParseDatetimeForm accepted (it does not)
}

// ok reports whether the value is present and a W3C Datetime.
func (t *parsedTime) ok() bool { return t.present && t.err == nil }

// instant is the datetime with its instant (rs.ParseDatetime), and whether
// the value is present and a W3C Datetime.
func (t *parsedTime) instant() (rs.Datetime, bool) {
	if !t.ok() {
		return rs.Datetime{}, false
	}
	if !t.timed {
		d, err := rs.ParseDatetime(t.raw)
		t.d, t.untimed, t.timed = d, err != nil, true
	}
	return t.d, !t.untimed
}

func parseTime(v string, present bool) parsedTime {
	if !present {
		return parsedTime{}
	}
	d, err := rs.ParseDatetimeForm(v)
	return parsedTime{raw: v, d: d, err: err, present: true}
}

// entryDatetimes are the datetimes of an entry: the attributes of its
// <rs:md> (mdTimeAttrs) and its <lastmod>.
type entryDatetimes struct {
	md      [len(mdTimeAttrs)]parsedTime
	lastmod parsedTime
}

// attr is the <rs:md> datetime attribute name (one of mdTimeAttrs).
func (t *entryDatetimes) attr(name string) *parsedTime {
	for i, a := range mdTimeAttrs {
		if a == name {
			return &t.md[i]
		}
	}
	panic("not a datetime attribute: " + name)
}

// entryTimes reads every datetime of an entry once (into the storage of
// the entry at the same place of the previous window), its instant once
// when a rule needs it: RS-TIME-W3C and RS-TIME-UTC read their form,
// RS-CL-ORDER, RS-CL-ORDER-LASTMOD, RS-DATETIME-INTERVAL and RS-CDM-ORDER
// their instants. The rules that share it run one after another on one
// goroutine (or, a document checked whole, each on its own value).
var entryTimes = engine.NewEntryValue("the datetimes of the entry's <rs:md> and <lastmod>",
	func(e *rs.Entry, t *entryDatetimes) *entryDatetimes {
		if t == nil {
			t = new(entryDatetimes)
		}
		*t = entryDatetimes{}
		if e.Md != nil {
			for i, a := range mdTimeAttrs {
				v, ok := e.Md.Get(a)
				t.md[i] = parseTime(v, ok)
			}
		}
		t.lastmod = parseTime(e.Lastmod, e.Lastmod != "" || e.LastmodPos.IsValid())
		return t
	})

// checkedHash is a hash value with what RS-HASH-SYNTAX finds wrong with
// it ("" when nothing).
type checkedHash struct {
	rs.Hash
	problem string
}

// entryHashes are the hash values of an entry's <rs:md> hash attribute,
// split and checked once: RS-HASH-SYNTAX and RS-HASH-ALGORITHM read them.
var entryHashes = engine.NewEntryValue("the hash values of the entry's <rs:md>",
	func(e *rs.Entry, reuse []checkedHash) []checkedHash {
		v, ok := e.Md.Get("hash")
		if !ok {
			return reuse[:0]
		}
		return appendCheckedHashes(reuse[:0], v)
	})

// appendCheckedHashes splits a hash attribute's value and checks each of
// its hash values, appending them to dst.
func appendCheckedHashes(dst []checkedHash, v string) []checkedHash {
	var buf [4]rs.Hash
	for _, h := range rs.AppendHashes(buf[:0], v) {
		dst = append(dst, checkedHash{h, h.Problem()})
	}
	return dst
}
