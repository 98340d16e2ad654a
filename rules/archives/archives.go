// Package archives holds the document rules of the ResourceSync Archives
// draft (0.9.1, read in its Japanese translation): what one archive,
// archive index or capability document shows. They are document rules like
// those of rules/document, whose helpers they use; the crawl rules of
// archives (RS-ARCHIVES-LINK, RS-ARCHIVE-TARGET, RS-ARCHIVE-LISTS-ORDER)
// are rules/graph's.
package archives

import (
	"slices"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/document"
	"github.com/rsconform/rsconform/rules/engine"
)

// The ResourceSync Archives draft (0.9.1, in its Japanese translation):
// what one archive, archive index or capability document shows. The
// mandatory up link of archives is RS-LINK-UP; the capability values are
// RS-KIND-CAPABILITY; where archives links and archive entries lead is
// checked in crawls (RS-ARCHIVES-LINK, RS-ARCHIVE-TARGET). The recommended
// index link of an archive ("if a ... Archive Index exists") cannot be
// checked on one document, nor whether a Source that publishes several
// archives groups them in an index (sections 4 to 6).

// archivesCapabilityDocs are the capability documents that have a
// corresponding archive (Archives 1.2, 2.2), and their indexes.
var archivesCapabilityDocs = []rs.Kind{rs.ResourceList, rs.ResourceDump, rs.ChangeList, rs.ChangeDump}

// archivesEntriesAreDocuments reports whether the entries of documents of
// kind k are ResourceSync documents (rather than resources or packages):
// then an archives link on an entry cannot be a link about a resource.
func archivesEntriesAreDocuments(k rs.Kind) bool {
	if k.IsIndex() || k.IsArchive() {
		return true
	}
	return k == rs.SourceDescription || k == rs.CapabilityList
}

// Archives 2.2: "Individual capability documents such as a Change List or a
// Change List Index may provide a link to the corresponding archive by means
// of a top-level <rs:ln> element with the archives relation type."
var ArchivesLinkPlace = &engine.Rule{
	ID: "RS-ARCHIVES-LINK-PLACE", Section: "Archives 2.2", Level: engine.Info, Scope: engine.ScopeEntries,
	Applies: document.KnownKinds,
	Title:   "archives links stand at the top level of a Resource List, Resource Dump, Change List or Change Dump (or index)",
	Quote:   "「Change List」や「Change List Index」などの個々の機能ドキュメントは、関係タイプ archives を持つトップレベルの <rs:ln> 要素を使用して、対応するアーカイブへのリンクを提供することができます",
	English: "Individual capability documents, such as a Change List or a Change List Index, can provide a link to the corresponding archive by means of a top-level <rs:ln> element with the relation type archives.",
	Doc: "(The text, broken over a page, reads アーカイク for アーカイブ, archive.) " +
		"The draft defines archives for Resource Lists, Resource Dumps, Change Lists and Change Dumps only (1.2, 3 to 6), so an archives link at the top of a Source Description, Capability List, manifest or archive has no corresponding archive to lead to; a Capability List advertises archives as entries with capability=\"...-archive\" (2.1). " +
		"On an entry, an archives link is reported only where entries are ResourceSync documents (Source Descriptions, Capability Lists, indexes, archives): a Destination looks for the archive of a document at the top of that document. In Resource Lists, Change Lists, dumps and manifests an entry's archives link is about the resource (section 14.1 admits registered relation types) and is not reported. " +
		"The draft says 'can' (できます): nothing is forbidden, so the findings are hints. Where the link leads is RS-ARCHIVES-LINK (crawls).",
	Check: func(p *engine.Pass) error {
		entries := archivesEntriesAreDocuments(p.Kind)
		if entries {
			document.RelatedEntryLinks(p, "archives", func(e *rs.Entry, l *rs.Ln) {
				hint := "link to the archive from the top level of the archived document itself"
				if p.Kind.Base() == rs.CapabilityList {
					hint = "list the archive as an entry of its own with capability=\"...-archive\" (Archives 2.1)"
				}
				p.Reportf(l.Pos, "an archives link on the entry for %s: the draft defines it as a top-level <rs:ln> of a capability document; %s", document.RelatedEntryName(e), hint)
			})
		}
		if slices.Contains(archivesCapabilityDocs, p.Kind.Base()) {
			return nil
		}
		// Once the entries are read, every top-level link is known (while
		// a document is read, Pass.Doc is the header read so far).
		if !entries {
			for range p.Entries() {
			}
		}
		for _, l := range p.Doc.Links {
			if !l.Is("archives") {
				continue
			}
			msg := "a %s has no corresponding archive: the archives link belongs at the top of a Resource List, Resource Dump, Change List or Change Dump (or its index)"
			if p.Kind.Base() == rs.CapabilityList {
				msg += "; a Capability List lists its archives as entries with capability=\"resourcelist-archive\" and the like"
			}
			p.Reportf(l.Pos, msg, p.Kind.Title())
		}
		return nil
	},
}

// archivesEntryAt reports the <rs:md> of archive entries that lack at.
func archivesEntryAt(p *engine.Pass, archived string) {
	for e := range p.Entries() {
		md := e.Md
		if md == nil || md.Has("at") {
			continue
		}
		if md.Has("from") || md.Has("until") {
			continue // RS-TIME-NOT-USED: only at and completed belong there
		}
		pos := md.Pos
		what := "an <rs:md> without at"
		if md.Has("completed") {
			pos, what = md.AttrPosition("completed"), "completed without at"
		}
		p.Reportf(pos, "the entry for %s has %s: the <rs:md> of a %s entry carries at, the datetime the snapshot of the archived %s started (and possibly completed)", document.RelatedEntryName(e), what, p.Kind.Title(), archived)
	}
}

const archivesEntryAtDoc = "The <rs:md> of an entry is optional, and the draft describes it as having at and possibly completed, without a keyword: rsconform reports an <rs:md> without at as a warning, whether it is empty or has completed alone (the end of a process whose start is not given). " +
	"An <rs:md> with from or until instead is left to RS-TIME-NOT-USED. Entries without <rs:md> are not reported."

// Archives 3: "An optional <rs:md> child element with the at attribute, and
// possibly the completed attribute, conveying the datetimes at which the
// process of taking a snapshot of resources to create the archived Resource
// List started and ended."
var ArchiveResourceListEntryAt = &engine.Rule{
	ID: "RS-ARCHIVE-RL-ENTRY-AT", Section: "Archives 3", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceListArchive},
	Title:   "The <rs:md> of a Resource List Archive entry has at",
	Quote:   "任意の子要素<rs:md>は、at 属性、および、場合によっては completed 属性を持ち、リソースのスナップショットを取得してアーカイブされた「Resource List」を作成するプロセスが、それぞれ開始および終了した日時を伝えます。",
	English: "The optional child element <rs:md> has the at attribute and possibly the completed attribute, conveying the datetimes at which the process of taking a snapshot of resources to create the archived Resource List started and ended, respectively.",
	Doc:     archivesEntryAtDoc + " (The draft's previous bullet says the mandatory top-level <rs:ln> must have capability=\"resourcelist-archive\": <rs:md> is meant.)",
	Check: func(p *engine.Pass) error {
		archivesEntryAt(p, "Resource List")
		return nil
	},
}

// Archives 4: the same of Resource Dump Archive entries.
var ArchiveResourceDumpEntryAt = &engine.Rule{
	ID: "RS-ARCHIVE-RD-ENTRY-AT", Section: "Archives 4", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceDumpArchive},
	Title:   "The <rs:md> of a Resource Dump Archive entry has at",
	Quote:   "任意の子要素<rs:md>は、at 属性、および、場合によっては completed 属性を持ち、リソースのスナップショットを取得してアーカイブされた「Resource Dump」を作成するプロセスが、それぞれ開始および終了した日時を伝えます。",
	English: "The optional child element <rs:md> has the at attribute and possibly the completed attribute, conveying the datetimes at which the process of taking a snapshot of resources to create the archived Resource Dump started and ended, respectively.",
	Doc:     archivesEntryAtDoc,
	Check: func(p *engine.Pass) error {
		archivesEntryAt(p, "Resource Dump")
		return nil
	},
}

// Archives 3.1: "<lastmod> should not be provided unless the Source updates
// the Resource List Archive Index every time it updates the Resource List
// Archive." Sections 4 to 6 build the other archive indexes "in the same
// manner as described in 3.1".
var ArchiveIndexLastmod = &engine.Rule{
	ID: "RS-ARCHIVE-INDEX-LASTMOD", Section: "Archives 3.1", Level: engine.Should, Scope: engine.ScopeEntries,
	Applies: []rs.Kind{rs.ResourceListArchiveIndex, rs.ResourceDumpArchiveIndex, rs.ChangeListArchiveIndex, rs.ChangeDumpArchiveIndex},
	Title:   "An archive index has no <lastmod>, unless it is updated with every archive it lists",
	Quote:   "<lastmod>は、ソースが「Resource List Archive」を更新するたびに「Resource List Archive Index」を更新するのでない限り、提供すべきではありません。",
	English: "<lastmod> should not be provided unless the Source updates the Resource List Archive Index every time it updates the Resource List Archive.",
	Doc: "Sections 4, 5 and 6 group Resource Dump, Change List and Change Dump Archives in an index 'in the same manner as described in 3.1' (3.1 項の説明と同様の方法で), so the rule checks all four archive indexes. " +
		"The exception cannot be verified on one document, so any <lastmod> is reported, once per document at the first one, with the exception in the message, as RS-SD-LASTMOD does for Source Descriptions: a Source that keeps them current can suppress the rule.",
	Check: func(p *engine.Pass) error {
		document.ReportLastmod(p, p.Kind.Title(), p.Kind.Base().Title()+"s")
		return nil
	},
}

// archivesCheckOrder reports entries whose from (or until) is earlier
// than the from (or until) of an entry listed before them, as RS-CL-ORDER
// reports a Change List's (document.ForwardOrder): one finding per entry.
func archivesCheckOrder(p *engine.Pass) error {
	var from, until document.ForwardOrder
	for e := range p.Entries() {
		if e.Md == nil {
			continue
		}
		times := engine.EntryTimes.Of(p, e)
		next := func(o *document.ForwardOrder, name string) bool {
			d, ok := times.Attr(name).Instant()
			return o.Next(p, name, d, e.Md.AttrPosition(name), ok)
		}
		if !next(&from, "from") {
			next(&until, "until")
		}
	}
	return nil
}

const archivesOrderDoc = "時系列 (chronological order) is read as forward chronological order, least recent first, as Examples 5.1 and 6.1 list them and as the core specification orders Change Lists and Change List Indexes. " +
	"The order is checked on the from attributes of the entries' <rs:md>, and separately on their until attributes; entries without them (both are optional) are skipped, and an entry out of order on both is reported once, at from. <lastmod> is not used: an archived document may be modified after a later one was created. Unparsable values are left to RS-TIME-W3C. " +
	"Each entry is compared with the latest time listed before it as RS-CL-ORDER compares change times, fractions of a second exactly, whatever their length, and reported in its words."

// Archives 5: "The pointers of a Change List Archive must be in
// chronological order."
var ArchiveChangeListOrder = &engine.Rule{
	ID: "RS-ARCHIVE-CL-ORDER", Section: "Archives 5", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies:  []rs.Kind{rs.ChangeListArchive},
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "Change List Archive entries are in chronological order",
	Quote:    "「Change List Archive」のポインタは、時系列でなければなりません。デスティネーションは、アーカイブされた各「Change List」に指定されたfrom属性およびuntil属性を検査するか、あるいは、「Change Lists」をダウンロードすることにより、「Change Lists」が連続していて、時間差がないかどうかを判別することができます。",
	English:  "The pointers of a Change List Archive must be in chronological order. A Destination can determine whether the Change Lists are contiguous, without gaps in time, by inspecting the from and until attributes given for each archived Change List, or by downloading the Change Lists.",
	Doc:      archivesOrderDoc,
	Check:    archivesCheckOrder,
}

// Archives 6: "The pointers of a Change Dump Archive must be in
// chronological order."
var ArchiveChangeDumpOrder = &engine.Rule{
	ID: "RS-ARCHIVE-CD-ORDER", Section: "Archives 6", Level: engine.Must, Scope: engine.ScopeEntries,
	Applies:  []rs.Kind{rs.ChangeDumpArchive},
	Requires: []engine.Value{engine.EntryTimes},
	Title:    "Change Dump Archive entries are in chronological order",
	Quote:    "「Change Dump Archive」のポインタは、時系列でなければなりません。",
	English:  "The pointers of a Change Dump Archive must be in chronological order.",
	Doc:      archivesOrderDoc,
	Check:    archivesCheckOrder,
}

func init() {
	engine.Register(ArchivesLinkPlace, ArchiveResourceListEntryAt, ArchiveResourceDumpEntryAt, ArchiveIndexLastmod,
		ArchiveChangeListOrder, ArchiveChangeDumpOrder)
}
