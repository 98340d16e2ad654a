package graph

import (
	"crypto/sha256"
	"encoding/hex"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/document"
)

// The facts the graph computes from what the crawler records: the crawler
// fetches a URL and hands over the document it read (SetDocument), and a
// second reading of it (SetRevisit); what the cross-document rules compare
// is worked out here.

// SetDocument records on n the document read at its URL (nil when the URL
// did not yield a parsed document): the document as the graph keeps it
// (see Graph), its kind and number of entries, the fingerprints of the
// <loc>s of a Resource List or manifest, the canonical digest of a
// manifest, the changes a Change List records (History), and, with
// revisit (--revisit), what a second visit will be compared with.
func (g *Graph) SetDocument(n *Node, d *rs.Document, revisit bool) {
	if d == nil {
		n.Doc, n.Kind = nil, rs.KindUnknown
		return
	}
	k := d.Kind()
	n.Doc, n.Kind = d.Detached(keepsEntries(k)), k
	g.RecordChanges(n.URL, d, false)
	n.Entries = len(d.Entries)
	n.LocFingerprints = locFingerprints(d)
	if k.IsManifest() {
		n.Canonical = canonical(d)
	}
	if revisit && n.Revisits() {
		if n.Canonical == "" {
			n.Canonical = canonical(d)
		}
		if k == rs.ResourceList {
			n.Claims = NoteClaims(d.Entries)
		}
		if k == rs.ChangeList {
			n.EntriesDigest = EntriesDigest(d.Entries)
			if len(d.Entries) > 0 && d.Entries[len(d.Entries)-1].Md != nil {
				n.LastDatetime = d.Entries[len(d.Entries)-1].Md.Datetime
			}
		}
	}
}

// SetRevisit records on n what a second visit of its URL read (--revisit),
// and the changes an open Change List recorded since.
func (g *Graph) SetRevisit(n *Node, d *rs.Document) {
	rv := &Revisit{Canonical: canonical(d), Entries: len(d.Entries)}
	if d.Md != nil {
		rv.Md = d.Detached(false).Md
	}
	if d.Kind() == rs.ChangeList && len(d.Entries) >= n.Entries {
		rv.PrefixDigest = EntriesDigest(d.Entries[:n.Entries])
		rv.Disorder, rv.DisorderPos = document.AppendedDisorder(n.LastDatetime, d.Entries[n.Entries:])
		g.RecordChanges(n.URL, d, true)
	}
	if d.Kind() == rs.ResourceList {
		rv.LastmodMoves = n.Claims.Moves(d.Entries)
	}
	n.Revisit = rv
}

// Revisits reports whether a document is read again by --revisit: the
// lists and dumps, and whatever carried until.
func (n *Node) Revisits() bool {
	if n.Role != RoleDocument || n.Doc == nil || n.Doc.Md == nil {
		return false
	}
	switch n.Kind.Base() {
	case rs.ResourceList, rs.ChangeList, rs.ResourceDump, rs.ChangeDump:
		return true
	}
	return n.Doc.Md.Until != ""
}

// RecordChanges adds the changes a Change List at list records to the
// History (a document of another kind records none); again says the list
// is read once more after the sampled resources were fetched (or by
// --revisit): see History.RecordAgain.
func (g *Graph) RecordChanges(list string, d *rs.Document, again bool) {
	if d == nil || d.Kind() != rs.ChangeList {
		return
	}
	resolve := func(loc string) string { return rs.Resolve(list, loc) }
	if again {
		g.History.RecordAgain(list, d, resolve)
		return
	}
	g.History.Record(list, d, resolve)
}

// keepsEntries reports whether the Graph keeps the entries of a kind:
// those of documents that point at other documents.
func keepsEntries(k rs.Kind) bool {
	switch {
	case k == rs.KindUnknown:
		return false
	case k.IsIndex(), k.IsArchive():
		return true
	}
	switch k {
	case rs.SourceDescription, rs.CapabilityList, rs.ResourceDump, rs.ChangeDump:
		return true
	}
	return false
}

// locFingerprints are the LocFingerprints of a Resource List or manifest;
// nil for other kinds.
func locFingerprints(d *rs.Document) map[uint64]struct{} {
	k := d.Kind()
	if k != rs.ResourceList && !k.IsManifest() {
		return nil
	}
	out := make(map[uint64]struct{}, len(d.Entries))
	for _, e := range d.Entries {
		if e.Loc != "" {
			out[LocFingerprint(e.Loc)] = struct{}{}
		}
	}
	return out
}

// canonical is the hex sha-256 of the document as resourcesync.Write
// re-serialises it (Node.Canonical); "" when it cannot be written.
func canonical(d *rs.Document) string {
	h := sha256.New()
	if err := rs.Write(h, d); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
