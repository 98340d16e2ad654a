package destination

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/rsconform/rsconform/discovery"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// capSet is one set of resources: its Capability List and the URI of each
// capability it offers.
type capSet struct {
	url  string
	caps map[rs.Capability]string
}

func (c *capSet) has(cp rs.Capability) bool { return c.caps[cp] != "" }

// discover finds the sets of resources from the Source given: a Source
// Description (or its index), a Capability List, another capability
// document (its up link leads to the Capability List), or a site root or
// page, through the discovery of section 6.3 (package discovery: the
// well-known URI, a Link header or HTML link with rel="resourcesync",
// robots.txt), the same the crawl uses.
func (s *syncer) discover(ctx context.Context) ([]*capSet, error) {
	src := s.o.Source
	u, err := url.Parse(src)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("source %q is not an http or https URI", src)
	}
	var tried []string
	try := func(target string) []*capSet {
		tried = append(tried, target)
		sets, err := s.fromDocumentURL(ctx, target, 0)
		if err != nil {
			return nil // the next method may find it; 'tried' names them all
		}
		return sets
	}
	root := discovery.IsSiteRoot(u)
	if root {
		if sets := try(discovery.WellKnown(u)); sets != nil {
			return sets, nil
		}
	}
	page, err := s.fetchPage(ctx, src)
	if err != nil {
		return nil, err
	}
	if doc, perr := readDocument(page.body); perr == nil && doc.Kind() != rs.KindUnknown {
		return s.fromDocument(ctx, src, doc, 0)
	}
	// Not a ResourceSync document: look for a link to one.
	for _, t := range discovery.FromPage(page.url, page.header, page.body) {
		if sets := try(t.URL); sets != nil {
			return sets, nil
		}
	}
	if !root {
		if sets := try(discovery.WellKnown(u)); sets != nil {
			return sets, nil
		}
	}
	// 6.3.4: a document named in robots.txt (a Resource List, say, whose
	// up link leads to its Capability List).
	if robots, err := s.fetchPage(ctx, discovery.RobotsTxt(u)); err == nil {
		for _, t := range discovery.FromRobots(robots.url, robots.body) {
			if sets := try(t.URL); sets != nil {
				return sets, nil
			}
		}
	}
	return nil, fmt.Errorf("%s is not a ResourceSync document and no Capability List was found from it (tried %s)", src, strings.Join(tried, ", "))
}

type page struct {
	url    string
	body   []byte
	header http.Header
}

func (s *syncer) fetchPage(ctx context.Context, u string) (*page, error) {
	p := &page{url: u}
	resp, err := s.f.get(ctx, u, conditional{}, func(r io.Reader) error {
		b, err := rs.ReadAll(r, s.o.MaxDocumentBytes)
		if err != nil {
			var le *rs.LimitError
			if errors.As(err, &le) {
				return err
			}
			return sourcehttp.Retry(err)
		}
		p.body = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.url = resp.url
	p.header = http.Header{"Link": resp.link}
	return p, nil
}

func (s *syncer) fromDocumentURL(ctx context.Context, u string, depth int) ([]*capSet, error) {
	doc, err := s.f.document(ctx, u)
	if err != nil {
		return nil, err
	}
	return s.fromDocument(ctx, u, doc, depth)
}

func (s *syncer) fromDocument(ctx context.Context, u string, doc *rs.Document, depth int) ([]*capSet, error) {
	if depth > 3 {
		return nil, fmt.Errorf("%s: too many levels of documents", u)
	}
	switch doc.Kind() {
	case rs.CapabilityList:
		return []*capSet{capSetOf(u, doc)}, nil
	case rs.SourceDescription, rs.SourceDescriptionIndex:
		var sets []*capSet
		var errs []error
		for _, e := range doc.Entries {
			loc := strings.TrimSpace(e.Loc)
			if loc == "" {
				continue
			}
			if c, ok := e.Md.Get("capability"); ok && c != string(rs.CapCapabilityList) && c != string(rs.CapDescription) {
				continue
			}
			sub, err := s.fromDocumentURL(ctx, resolve(u, loc), depth+1)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sets = append(sets, sub...)
		}
		if len(sets) == 0 {
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			return nil, fmt.Errorf("%s: the Source Description lists no Capability List", u)
		}
		for _, err := range errs {
			s.rep.problem(ProblemDocument, "", "", err.Error())
		}
		return sets, nil
	case rs.KindUnknown:
		return nil, fmt.Errorf("%s: not a ResourceSync document (root %s, capability %q)", u, doc.RootLocal, doc.Capability())
	}
	// Another capability document: its up link leads to the Capability List.
	if up := doc.Link("up"); up != nil && up.Href != "" && depth == 0 {
		target := resolve(u, up.Href)
		if cdoc, err := s.f.document(ctx, target); err == nil && cdoc.Kind() == rs.CapabilityList {
			set := capSetOf(target, cdoc)
			// The document given is what the user asked for.
			set.caps[doc.Kind().Capability()] = u
			return []*capSet{set}, nil
		}
	}
	return []*capSet{{url: u, caps: map[rs.Capability]string{doc.Kind().Capability(): u}}}, nil
}

func capSetOf(u string, doc *rs.Document) *capSet {
	set := &capSet{url: u, caps: map[rs.Capability]string{}}
	for _, e := range doc.Entries {
		c, _ := e.Md.Get("capability")
		loc := strings.TrimSpace(e.Loc)
		if c == "" || loc == "" {
			continue
		}
		cp := rs.Capability(c)
		if set.caps[cp] == "" { // 9: "only one entry per capability"
			set.caps[cp] = resolve(u, loc)
		}
	}
	return set
}

// resolve is rs.Resolve, the one resolution crawl and sync share; a ref it
// cannot resolve is kept as written, so the problem sync reports (or the
// fetch that fails) names what the document says.
func resolve(base, ref string) string {
	if u := rs.Resolve(base, ref); u != "" {
		return u
	}
	return ref
}
