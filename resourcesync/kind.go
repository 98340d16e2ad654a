package resourcesync

// Root is the root element of a document.
type Root int

const (
	RootUnknown      Root = iota // anything else (wrong name or namespace)
	RootURLSet                   // <urlset> in the Sitemap namespace
	RootSitemapIndex             // <sitemapindex> in the Sitemap namespace
)

func (r Root) String() string {
	switch r {
	case RootURLSet:
		return "urlset"
	case RootSitemapIndex:
		return "sitemapindex"
	}
	return "unknown"
}

// Capability is the value of the capability attribute of <rs:md>.
type Capability string

// Capability values of the specification (section 7) and of the Archives
// draft (section 2.1).
const (
	CapDescription          Capability = "description"
	CapCapabilityList       Capability = "capabilitylist"
	CapResourceList         Capability = "resourcelist"
	CapChangeList           Capability = "changelist"
	CapResourceDump         Capability = "resourcedump"
	CapChangeDump           Capability = "changedump"
	CapResourceDumpManifest Capability = "resourcedump-manifest"
	CapChangeDumpManifest   Capability = "changedump-manifest"
	CapResourceListArchive  Capability = "resourcelist-archive"
	CapResourceDumpArchive  Capability = "resourcedump-archive"
	CapChangeListArchive    Capability = "changelist-archive"
	CapChangeDumpArchive    Capability = "changedump-archive"
)

// Capabilities lists every capability value this package knows, in the
// order of the specification.
var Capabilities = []Capability{
	CapDescription, CapCapabilityList, CapResourceList, CapChangeList,
	CapResourceDump, CapChangeDump, CapResourceDumpManifest, CapChangeDumpManifest,
	CapResourceListArchive, CapResourceDumpArchive, CapChangeListArchive, CapChangeDumpArchive,
}

// Known reports whether c is a capability value defined by the
// specification or the Archives draft.
func (c Capability) Known() bool {
	for _, k := range Capabilities {
		if k == c {
			return true
		}
	}
	return false
}

// Kind is what a document is: its capability combined with its root element.
// Its string form is stable and used in reports.
type Kind string

const (
	KindUnknown Kind = "unknown"
	// KindPackage is not a document: reports use it for the ZIP packages
	// of Resource and Change Dumps. KindOf never returns it.
	KindPackage Kind = "package"
	// KindResource is not a document either: a crawl's report uses it for
	// a sampled resource that a finding is about (RS-HTTP-LASTMOD-DATE).
	// Reports count such results apart from documents, so that "N
	// documents" does not depend on which resources had a finding.
	KindResource Kind = "resource"

	SourceDescription      Kind = "description"
	SourceDescriptionIndex Kind = "description-index"
	CapabilityList         Kind = "capabilitylist"
	CapabilityListIndex    Kind = "capabilitylist-index" // discouraged by section 9
	ResourceList           Kind = "resourcelist"
	ResourceListIndex      Kind = "resourcelist-index"
	ChangeList             Kind = "changelist"
	ChangeListIndex        Kind = "changelist-index"
	ResourceDump           Kind = "resourcedump"
	ResourceDumpIndex      Kind = "resourcedump-index"
	ChangeDump             Kind = "changedump"
	ChangeDumpIndex        Kind = "changedump-index"
	ResourceDumpManifest   Kind = "resourcedump-manifest"
	ChangeDumpManifest     Kind = "changedump-manifest"
	// Manifest indexes do not exist: a manifest describes one package.
	ResourceDumpManifestIndex Kind = "resourcedump-manifest-index"
	ChangeDumpManifestIndex   Kind = "changedump-manifest-index"

	ResourceListArchive      Kind = "resourcelist-archive"
	ResourceListArchiveIndex Kind = "resourcelist-archive-index"
	ResourceDumpArchive      Kind = "resourcedump-archive"
	ResourceDumpArchiveIndex Kind = "resourcedump-archive-index"
	ChangeListArchive        Kind = "changelist-archive"
	ChangeListArchiveIndex   Kind = "changelist-archive-index"
	ChangeDumpArchive        Kind = "changedump-archive"
	ChangeDumpArchiveIndex   Kind = "changedump-archive-index"
)

// Kinds lists every kind that KindOf can return besides KindUnknown.
var Kinds = []Kind{
	SourceDescription, SourceDescriptionIndex, CapabilityList, CapabilityListIndex,
	ResourceList, ResourceListIndex, ChangeList, ChangeListIndex,
	ResourceDump, ResourceDumpIndex, ChangeDump, ChangeDumpIndex,
	ResourceDumpManifest, ChangeDumpManifest, ResourceDumpManifestIndex, ChangeDumpManifestIndex,
	ResourceListArchive, ResourceListArchiveIndex, ResourceDumpArchive, ResourceDumpArchiveIndex,
	ChangeListArchive, ChangeListArchiveIndex, ChangeDumpArchive, ChangeDumpArchiveIndex,
}

// KindOf combines a root element and a capability value. An unknown root
// or an unknown capability gives KindUnknown.
func KindOf(root Root, c Capability) Kind {
	if !c.Known() {
		return KindUnknown
	}
	switch root {
	case RootURLSet:
		return Kind(c)
	case RootSitemapIndex:
		return Kind(string(c) + "-index")
	}
	return KindUnknown
}

// IsIndex reports whether documents of this kind are <sitemapindex> documents.
func (k Kind) IsIndex() bool {
	return len(k) > 6 && k[len(k)-6:] == "-index"
}

// Capability is the capability value documents of this kind carry.
func (k Kind) Capability() Capability {
	if k == KindUnknown {
		return ""
	}
	if k.IsIndex() {
		return Capability(k[:len(k)-6])
	}
	return Capability(k)
}

// Base is the kind without its index: ResourceListIndex gives ResourceList.
func (k Kind) Base() Kind { return Kind(k.Capability()) }

// Index is the index kind of k: ResourceList gives ResourceListIndex.
func (k Kind) Index() Kind {
	if k == KindUnknown || k.IsIndex() {
		return k
	}
	return Kind(string(k) + "-index")
}

// IsArchive reports whether k belongs to the Archives draft.
func (k Kind) IsArchive() bool {
	switch k.Base() {
	case ResourceListArchive, ResourceDumpArchive, ChangeListArchive, ChangeDumpArchive:
		return true
	}
	return false
}

// IsManifest reports whether k is a Resource or Change Dump Manifest (or
// the meaningless index of one).
func (k Kind) IsManifest() bool {
	return k.Base() == ResourceDumpManifest || k.Base() == ChangeDumpManifest
}

// IsChangeKind reports whether documents of kind k describe changes over a
// temporal interval (from/until) rather than a snapshot (at/completed):
// change lists, change dumps, their manifests and indexes.
func (k Kind) IsChangeKind() bool {
	switch k.Base() {
	case ChangeList, ChangeDump, ChangeDumpManifest:
		return true
	}
	return false
}

// IsSnapshotKind reports whether documents of kind k describe a snapshot
// (at/completed): resource lists, resource dumps, their manifests and indexes.
func (k Kind) IsSnapshotKind() bool {
	switch k.Base() {
	case ResourceList, ResourceDump, ResourceDumpManifest:
		return true
	}
	return false
}

// Title is the name of the kind as the specification writes it.
func (k Kind) Title() string {
	names := map[Kind]string{
		SourceDescription: "Source Description", CapabilityList: "Capability List",
		ResourceList: "Resource List", ChangeList: "Change List",
		ResourceDump: "Resource Dump", ChangeDump: "Change Dump",
		ResourceDumpManifest: "Resource Dump Manifest", ChangeDumpManifest: "Change Dump Manifest",
		ResourceListArchive: "Resource List Archive", ResourceDumpArchive: "Resource Dump Archive",
		ChangeListArchive: "Change List Archive", ChangeDumpArchive: "Change Dump Archive",
	}
	if n, ok := names[k.Base()]; ok {
		if k.IsIndex() {
			return n + " Index"
		}
		return n
	}
	return "unknown document"
}
