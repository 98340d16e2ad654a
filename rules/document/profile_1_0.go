package document

import (
	"encoding/binary"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// The ResourceSync 1.0 profile (ANSI/NISO Z39.99-2014, --spec 1.0): what
// 1.0 requires that 1.1 no longer does, and what 1.1 added that 1.0 does not
// know. Rules that hold in both versions run under both profiles; the
// 1.1-only rule of section 14 is RS-LINK-MEMENTO-MODIFIED.
//
// The differences, read from the two texts side by side:
//   - <lastmod> is mandatory in Change Lists and Change Dump Manifests in 1.0
//     (section 7, Appendix A and its Table 4), optional everywhere in 1.1;
//   - the datetime attribute of <rs:md> does not exist in 1.0: <lastmod> is
//     the change time there (section 1.3: "these times are used to order the
//     Change List chronologically"), which RS-CL-ORDER follows;
//   - 1.0 asks for a unique URI and change datetime per change (12.1),
//     a sentence 1.1 dropped;
//   - 1.0 requires <lastmod> on an entry linking to prior versions (14.6:
//     "must be used"), where 1.1 says "may be used";
//   - 1.1 adds the modified attribute to the memento link (14.6).

// 1.0, section 7: "<lastmod> -- An element that conveys the last
// modification time of the resource ... Its use is mandatory in Change Lists
// and Change Dump Manifests, and optional in other documents."
var V10Lastmod = &engine.Rule{
	ID: "RS-V10-LASTMOD", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ChangeList, rs.ChangeDumpManifest},
	Specs:   []engine.Spec{engine.Spec10},
	Title:   "ResourceSync 1.0: every entry of a Change List or Change Dump Manifest has <lastmod>",
	Quote:   "<lastmod> -- An element that conveys the last modification time of the resource with the URI provided in <loc>, expressed as a W3C Datetime as described earlier in this section. Its use is mandatory in Change Lists and Change Dump Manifests, and optional in other documents.",
	Doc: "ResourceSync 1.0 (Z39.99-2014), section 7; Appendix A adds 'the <url> child element of the <urlset> root element in a Change List must have the <lastmod> child element to convey the last modification time of a resource', and its Table 4 marks /top/child/lastmod Mandatory for Change Lists and Change Dump Manifests (1.0 numbers the latter 13.1.1). In 1.0 <lastmod> is the time of the change and orders the Change List. " +
		"1.1 made <lastmod> optional and added the datetime attribute for the change time, so the rule runs only under --spec 1.0.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.LastmodPos.IsValid() || e.Lastmod != "" {
				continue
			}
			p.Reportf(e.Pos, "the entry for %s has no <lastmod>: ResourceSync 1.0 makes it mandatory in a %s, where it conveys the time of the change", RelatedEntryName(e), p.Kind.Title())
		}
		return nil
	},
}

// 1.0, section 7: "Communities may introduce additional attributes when
// needed but must use an XML Namespace other than that of ResourceSync and
// must appropriately use namespace prefixes for those attributes."
var V10Datetime = &engine.Rule{
	ID: "RS-V10-DATETIME", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Specs: []engine.Spec{engine.Spec10},
	Title: "ResourceSync 1.0: <rs:md> has no datetime attribute (it was added in 1.1)",
	Quote: "The attributes of these elements defined by ResourceSync are listed in Table 3 and detailed below. [...] Communities may introduce additional attributes when needed but must use an XML Namespace other than that of ResourceSync and must appropriately use namespace prefixes for those attributes.",
	Doc: "Table 3 and section 7 of ResourceSync 1.0 define no datetime attribute; 1.1 added it for the time of a change. An unprefixed datetime is therefore not a 1.0 attribute, and a 1.0 Destination orders changes by <lastmod>. " +
		"The schema rsconform validates against is that of 1.1, which knows datetime, so this rule tells a 1.1 document from a 1.0 one: a document with datetime is valid under --spec 1.1 only. Reported once per document, at the first datetime, with the count: a Source that writes one writes them all.",
	Check: func(p *engine.Pass) error {
		var first rs.Pos
		n := 0
		for ref := range p.ElementsWith(mdDatetime.Set(), 0) {
			if n == 0 {
				first = ref.Md.AttrPos(mdDatetime)
			}
			n++
		}
		switch {
		case n == 1:
			p.Reportf(first, "datetime is not an attribute of ResourceSync 1.0 (it was added in 1.1): under 1.0 <lastmod> conveys the time of a change; validate with --spec 1.1 if the Source follows 1.1")
		case n > 1:
			p.Reportf(first, "%d datetime attributes (the first here): datetime is not an attribute of ResourceSync 1.0 (it was added in 1.1); under 1.0 <lastmod> conveys the time of a change; validate with --spec 1.1 if the Source follows 1.1", n)
		}
		return nil
	},
}

// 1.0, 12.1: "In order for the determination of the first unprocessed
// change to be accurate, the combination of the URI of a changed resource
// and the datetime of its change should be unique. Hence, a Source should
// provide change datetime values at a sufficiently fine granularity."
var V10ChangeUnique = &engine.Rule{
	ID: "RS-V10-CHANGE-UNIQUE", Section: "12.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies:  []rs.Kind{rs.ChangeList},
	Specs:    []engine.Spec{engine.Spec10},
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "ResourceSync 1.0: no two entries of a Change List have the same <loc> and change time",
	Quote:    "In order for the determination of the first unprocessed change to be accurate, the combination of the URI of a changed resource and the datetime of its change should be unique. Hence, a Source should provide change datetime values at a sufficiently fine granularity.",
	Doc: "In 1.0 the datetime of a change is the <lastmod> of its entry. Two entries with the same <loc> (as written, compared by a 95-bit fingerprint as RS-LOC-DUPLICATE compares locs) and <lastmod> values denoting the same instant are reported at the second, whatever the notation (2013-01-03 and 2013-01-03T00:00:00Z are the same instant); a coarse granularity such as a date alone is the usual cause. " +
		"1.1 dropped the sentence (its change time, datetime, is optional), so the rule runs only under --spec 1.0. Unparsable values are left to RS-TIME-W3C.",
	Check: func(p *engine.Pass) error {
		// A change is its loc and the instant of its <lastmod>, kept as a
		// fingerprint of both with where it was first listed.
		first := engine.NewFingerprints()
		defer first.Release()
		var key []byte
		for e := range p.Entries() {
			if e.Loc == "" || e.Lastmod == "" {
				continue
			}
			d, _, ok := lastmodTimeOf(p, e)
			if !ok {
				continue
			}
			t := d.Time.UTC()
			key = append(append(key[:0], e.Loc...), 0) // no NUL in XML text
			key = binary.BigEndian.AppendUint64(key, uint64(t.Unix()))
			key = binary.BigEndian.AppendUint32(key, uint32(t.Nanosecond()))
			if f, ok := first.Seen(string(key), e.LastmodPos); ok {
				p.ReportRelated(e.LastmodPos, []rs.Pos{f}, "%s changed at %s is listed twice (first at line %d): the URI and datetime of a change should be unique; give change times at a finer granularity", truncateValue(e.Loc), e.Lastmod, f.Line)
			}
		}
		return nil
	},
}

// 1.0, 14.6: "When communicating about the resource, its time-generic URI
// is provided in <loc> and <lastmod> must be used to provide the resource's
// last modification time."
var V10PriorLastmod = &engine.Rule{
	ID: "RS-V10-PRIOR-LASTMOD", Section: "14.6", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceList, rs.ResourceDumpManifest},
	Specs:   []engine.Spec{engine.Spec10},
	Title:   "ResourceSync 1.0: an entry linking to prior versions (memento, timegate, timemap) has <lastmod>",
	Quote:   "When communicating about the resource, its time-generic URI is provided in <loc> and <lastmod> must be used to provide the resource's last modification time.",
	Doc: "ResourceSync 1.0, 14.6: the memento link is the version of the time of last modification 'as given in the <lastmod> element', and a TimeGate is asked for the version of the <lastmod> value. 1.1 relaxed it to 'may be used', so the rule runs only under --spec 1.0. " +
		"In Change Lists and Change Dump Manifests every entry needs <lastmod> under 1.0 anyway (RS-V10-LASTMOD), so the rule checks the Resource Lists and Resource Dump Manifests, the other documents 14.1 names.",
	Check: func(p *engine.Pass) error {
		for e := range p.Entries() {
			if e.LastmodPos.IsValid() || e.Lastmod != "" {
				continue
			}
			for _, l := range e.Links {
				if l.Is("memento") || l.Is("timegate") || l.Is("timemap") {
					p.ReportRelated(e.Pos, []rs.Pos{l.Pos}, "the entry for %s links to prior versions (%s, line %d) but has no <lastmod>: ResourceSync 1.0 requires <lastmod> for the resource's last modification time", RelatedEntryName(e), l.Rel, l.Pos.Line)
					break
				}
			}
		}
		return nil
	},
}

func init() { engine.Register(V10Lastmod, V10Datetime, V10ChangeUnique, V10PriorLastmod) }
