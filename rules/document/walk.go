package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
)

// Kind sets used by Applies.
var (
	// CapabilityDocs are the documents that sit under a Capability List
	// and must link up to it: every list, index, dump, manifest and archive.
	CapabilityDocs = kindsExcept(rs.SourceDescription, rs.SourceDescriptionIndex, rs.CapabilityList, rs.CapabilityListIndex)
	// SnapshotDocs take at/completed at the top (Appendix A).
	SnapshotDocs = []rs.Kind{rs.ResourceList, rs.ResourceListIndex, rs.ResourceDump, rs.ResourceDumpIndex, rs.ResourceDumpManifest}
	// ChangeDocs take from/until at the top (Appendix A).
	ChangeDocs = []rs.Kind{rs.ChangeList, rs.ChangeListIndex, rs.ChangeDump, rs.ChangeDumpIndex, rs.ChangeDumpManifest}
	// KnownKinds is every kind but KindUnknown.
	KnownKinds = rs.Kinds
)

func kindsExcept(except ...rs.Kind) []rs.Kind {
	var out []rs.Kind
outer:
	for _, k := range rs.Kinds {
		for _, e := range except {
			if k == e {
				continue outer
			}
		}
		out = append(out, k)
	}
	return out
}

// entryName is "<url>" or "<sitemap>" for messages.
func entryName(d *rs.Document) string {
	if d.Root == rs.RootSitemapIndex {
		return "<sitemap>"
	}
	return "<url>"
}

// rootName is "<urlset>" or "<sitemapindex>" for messages.
func rootName(d *rs.Document) string {
	if d.Root == rs.RootSitemapIndex {
		return "<sitemapindex>"
	}
	return "<urlset>"
}
