package destination

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// readDocument reads a document's bytes through the validator's XML front
// end (schema.Validator.Read, without XSD validation), so that sync accepts
// exactly the documents that validate calls well-formed, and reads the same
// model from them. A document that is not well-formed gives a
// *rs.SyntaxError.
func readDocument(data []byte) (*rs.Document, error) {
	fe, err := schema.New()
	if err != nil {
		return nil, err
	}
	doc, _, err := fe.Read(data, false)
	return doc, err
}

// leaf is a <urlset> document reached from a capability document.
type leaf struct {
	url string
	doc *rs.Document
}

// readLeaves reads the document at u, a document of kind base or its
// index, and, of an index, every document it lists, which must be of kind
// base: it returns the document at u and the documents of kind base.
func (s *syncer) readLeaves(ctx context.Context, u string, base rs.Kind) (*rs.Document, []leaf, error) {
	doc, err := s.f.document(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	switch doc.Kind() {
	case base:
		return doc, []leaf{{u, doc}}, nil
	case base.Index():
	default:
		return nil, nil, fmt.Errorf("%s: expected a %s, found a %s", u, base.Title(), doc.Kind().Title())
	}
	var leaves []leaf
	for _, e := range doc.Entries {
		loc := strings.TrimSpace(e.Loc)
		if loc == "" {
			continue
		}
		child := resolve(u, loc)
		cdoc, err := s.f.document(ctx, child)
		if err != nil {
			return nil, nil, err
		}
		if cdoc.Kind() != base {
			return nil, nil, fmt.Errorf("%s: the %s lists %s, a %s", u, doc.Kind().Title(), child, cdoc.Kind().Title())
		}
		leaves = append(leaves, leaf{child, cdoc})
	}
	return doc, leaves, nil
}

// readSnapshot reads a Resource List or Resource Dump, or every document
// of its index (10.2: "The union of the Resource Lists referred to in the
// Resource List Index represents the entire set of resources"). at is the
// earliest snapshot time given, so that no change after it is missed.
func (s *syncer) readSnapshot(ctx context.Context, u string, base rs.Kind) (leaves []leaf, at, completed string, err error) {
	root, leaves, err := s.readLeaves(ctx, u, base)
	if err != nil {
		return nil, "", "", err
	}
	at, completed = root.Md.At, root.Md.Completed
	for _, l := range leaves {
		if l.doc.Md != nil && laterDT(at, l.doc.Md.At) {
			at = l.doc.Md.At
		}
	}
	return leaves, at, completed, nil
}

// segment is one Change List (or Change Dump) of a series: its interval
// and, once fetched, its document.
type segment struct {
	url         string
	from, until string
	fromT       time.Time
	untilT      time.Time
	closed      bool
	doc         *rs.Document
}

func segmentOf(u string, md *rs.Md, doc *rs.Document) *segment {
	sg := &segment{url: u, doc: doc}
	if md != nil {
		sg.from, sg.until = strings.TrimSpace(md.From), strings.TrimSpace(md.Until)
	}
	sg.fromT, _ = parseDT(sg.from)
	var ok bool
	sg.untilT, ok = parseDT(sg.until)
	sg.closed = ok
	return sg
}

// readSeries reads the root of a Change List or Change Dump: the document
// itself, or the documents its index lists (not fetched yet), in the
// order of the index (12.2: "forward chronological order").
func (s *syncer) readSeries(ctx context.Context, u string, base rs.Kind) ([]*segment, error) {
	doc, err := s.f.document(ctx, u)
	if err != nil {
		return nil, err
	}
	switch doc.Kind() {
	case base:
		return []*segment{segmentOf(u, doc.Md, doc)}, nil
	case base.Index():
		var segs []*segment
		for _, e := range doc.Entries {
			if loc := strings.TrimSpace(e.Loc); loc != "" {
				segs = append(segs, segmentOf(resolve(u, loc), e.Md, nil))
			}
		}
		return segs, nil
	}
	return nil, fmt.Errorf("%s: expected a %s, found a %s", u, base.Title(), doc.Kind().Title())
}

// readArchive lists the documents of a Change List (or Change Dump)
// Archive, following its index (ResourceSync Archives, sections 5-6).
func (s *syncer) readArchive(ctx context.Context, u string, kind rs.Kind) ([]*segment, error) {
	_, docs, err := s.readLeaves(ctx, u, kind)
	if err != nil {
		return nil, err
	}
	var segs []*segment
	for _, d := range docs {
		for _, e := range d.doc.Entries {
			if loc := strings.TrimSpace(e.Loc); loc != "" {
				segs = append(segs, segmentOf(resolve(d.url, loc), e.Md, nil))
			}
		}
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].fromT.Before(segs[j].fromT) })
	return segs, nil
}

// fetchSegment fetches a segment's document and checks that it is of kind.
func (s *syncer) fetchSegment(ctx context.Context, sg *segment, kind rs.Kind) error {
	if sg.doc == nil {
		doc, err := s.f.document(ctx, sg.url)
		if err != nil {
			return err
		}
		sg.doc = doc
	}
	if sg.doc.Kind() != kind {
		return fmt.Errorf("%s: expected a %s, found a %s", sg.url, kind.Title(), sg.doc.Kind().Title())
	}
	// The document's own interval is authoritative.
	if md := sg.doc.Md; md != nil {
		if sg.from == "" {
			sg.from = strings.TrimSpace(md.From)
			sg.fromT, _ = parseDT(sg.from)
		}
		if u := strings.TrimSpace(md.Until); u != "" {
			sg.until = u
			sg.untilT, sg.closed = parseDT(u)
		}
	}
	return nil
}

// withArchive completes the visible segments of a series with the
// archived ones needed to cover the changes since `since`; it returns
// errGap when changes since then are not published any more.
func (s *syncer) withArchive(ctx context.Context, segs []*segment, since time.Time, archiveURL string, kind rs.Kind) ([]*segment, error) {
	covered := func(segs []*segment) bool {
		return since.IsZero() || len(segs) > 0 && !segs[0].fromT.After(since)
	}
	if covered(segs) && !since.IsZero() {
		return segs, nil
	}
	if archiveURL == "" {
		if covered(segs) {
			return segs, nil
		}
		return nil, fmt.Errorf("%w: the first %s starts at %s, after %s, and the Source has no archive",
			errGap, kind.Title(), firstFrom(segs), rs.FormatDatetime(since))
	}
	arch, err := s.readArchive(ctx, archiveURL, rs.Kind(string(kind)+"-archive"))
	if err != nil {
		if covered(segs) {
			s.o.logf("reading the archive: %v", err)
			return segs, nil
		}
		return nil, fmt.Errorf("%w: the first %s starts at %s, after %s, and the archive cannot be read: %v",
			errGap, kind.Title(), firstFrom(segs), rs.FormatDatetime(since), err)
	}
	var older []*segment
	for _, a := range arch {
		if len(segs) > 0 && !a.fromT.Before(segs[0].fromT) {
			continue // visible already
		}
		if a.closed && !since.IsZero() && !a.untilT.After(since) {
			continue // before since
		}
		older = append(older, a)
	}
	all := append(older, segs...)
	if !covered(all) {
		return nil, fmt.Errorf("%w: the earliest %s, in the archive too, starts at %s, after %s",
			errGap, kind.Title(), firstFrom(all), rs.FormatDatetime(since))
	}
	return all, nil
}

func firstFrom(segs []*segment) string {
	if len(segs) == 0 {
		return "(none)"
	}
	return segs[0].from
}
