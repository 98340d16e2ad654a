package mocksource_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// mock is a Source behind an httptest server.
type mock struct {
	parsed map[string]parsedDoc // crawl's memo: path -> last parse
	src    *mocksource.Source
	srv    *httptest.Server
	client *http.Client
	base   string // what the documents' URIs start with
}

func startMock(opts mocksource.Options) *mock {
	GinkgoHelper()
	src, err := mocksource.New(opts)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(src.Handler())
	DeferCleanup(srv.Close)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = srv.URL
	}
	return &mock{src: src, srv: srv, client: client, base: base}
}

func startScenario(name string, opts mocksource.Options) *mock {
	GinkgoHelper()
	sc, err := scenario.Load(name)
	Expect(err).NotTo(HaveOccurred())
	opts.Scenario = sc
	return startMock(opts)
}

func (m *mock) url(p string) string { return m.srv.URL + p }

func (m *mock) get(p string, header ...string) (*http.Response, []byte) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, m.url(p), nil)
	Expect(err).NotTo(HaveOccurred())
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := m.client.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, body
}

func (m *mock) step() mocksource.StepInfo {
	GinkgoHelper()
	in, err := m.src.Step()
	Expect(err).NotTo(HaveOccurred())
	return in
}

type parsedDoc struct {
	sum [32]byte
	doc *rs.Document
}

// parse parses a document, reusing the last parse of the same bytes at
// the same path (documents that a step did not change).
func (m *mock) parse(p string, body []byte) (*rs.Document, error) {
	sum := sha256.Sum256(body)
	if pd, ok := m.parsed[p]; ok && pd.sum == sum {
		return pd.doc, nil
	}
	doc, err := rs.ParseBytes(body)
	if err == nil {
		if m.parsed == nil {
			m.parsed = map[string]parsedDoc{}
		}
		m.parsed[p] = parsedDoc{sum: sum, doc: doc}
	}
	return doc, err
}

// pathOf strips the server's base from a URL.
func (m *mock) pathOf(u string) string {
	GinkgoHelper()
	Expect(u).To(HavePrefix(m.base))
	return strings.TrimPrefix(u, m.base)
}

var (
	validatorOnce sync.Once
	validator     *engine.Validator
)

// theValidator is the rule engine with libxml2's front end.
func theValidator() *engine.Validator {
	validatorOnce.Do(func() {
		sv, err := frontend.New()
		Expect(err).NotTo(HaveOccurred())
		validator = &engine.Validator{Schema: sv}
	})
	return validator
}

// findings formats a Result's diagnostics for failure messages.
func findings(r engine.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s", r.Location, r.Status, r.Error)
	for _, d := range r.Diagnostics {
		fmt.Fprintf(&b, "\n  %s %s [%s] line %d: %s", d.Severity, d.Rule, d.Section, d.Location.Line, d.Message)
	}
	return b.String()
}

// site is what a crawl of the Source found.
type site struct {
	docs     map[string][]byte       // path -> document bytes
	parsed   map[string]*rs.Document // path -> model
	zips     map[string][]byte       // path -> package bytes
	zipEntry map[string]*rs.Entry    // package path -> its entry in a dump
	parents  map[string]string       // path -> the path that led to it
}

// crawl walks every document from the Source Description: links up,
// index, archives and contents, the locs of descriptions, capability
// lists, indexes and archives, and the packages of dumps.
func (m *mock) crawl() *site {
	GinkgoHelper()
	s := &site{docs: map[string][]byte{}, parsed: map[string]*rs.Document{}, zips: map[string][]byte{},
		zipEntry: map[string]*rs.Entry{}, parents: map[string]string{}}
	queue := []string{"/.well-known/resourcesync"}
	seen := map[string]bool{queue[0]: true}
	push := func(from, u string) {
		p := m.pathOf(u)
		if !seen[p] {
			seen[p] = true
			s.parents[p] = from
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		resp, body := m.get(p, m.wildHeader()...)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "GET %s (linked from %s)", p, s.parents[p])
		if strings.HasSuffix(p, ".zip") {
			Expect(resp.Header.Get("Content-Type")).To(Equal(m.wildType("application/zip")))
			s.zips[p] = body
			continue
		}
		body = m.checkDocumentResponse(p, resp, body)
		doc, err := m.parse(p, body)
		Expect(err).NotTo(HaveOccurred(), p)
		s.docs[p], s.parsed[p] = body, doc
		for _, l := range doc.Links {
			switch l.Rel {
			case "up", "index", "archives":
				push(p, l.Href)
			}
		}
		k := doc.Kind()
		for _, e := range doc.Entries {
			switch {
			case k == rs.SourceDescription || k == rs.CapabilityList || k.IsIndex() || k.IsArchive():
				push(p, e.Loc)
			case k == rs.ResourceDump || k == rs.ChangeDump:
				push(p, e.Loc)
				s.zipEntry[m.pathOf(e.Loc)] = e
				for _, l := range e.Links {
					if l.Rel == "contents" {
						push(p, l.Href)
					}
				}
			}
		}
	}
	return s
}

func (s *site) sortedDocs() []string {
	var out []string
	for p := range s.docs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// validateAll validates every crawled document, each distinct body once.
func (m *mock) validateAll(s *site, memo map[string]bool) {
	GinkgoHelper()
	ctx := context.Background()
	for _, p := range s.sortedDocs() {
		body := s.docs[p]
		sum := sha256.Sum256(body)
		key := p + "\x00" + hex.EncodeToString(sum[:])
		if memo[key] {
			continue
		}
		res := theValidator().ValidateBytes(ctx, m.url(p), body)
		res.Diagnostics = m.wildAllowed(res.Diagnostics)
		Expect(res.Status).To(Equal(engine.StatusValid), findings(res))
		Expect(res.Diagnostics).To(BeEmpty(), findings(res))
		memo[key] = true
	}
}

// hashAttr is what a hash attribute should say of body.
func hashAttr(body []byte) string {
	m, s := md5.Sum(body), sha256.Sum256(body)
	return "md5:" + hex.EncodeToString(m[:]) + " sha-256:" + hex.EncodeToString(s[:])
}

// checkPackages opens every package: manifest.xml at the top level equal to
// the linked copy, every listed bitstream present with the advertised
// length and hash (unless skip says the hash is wrong on purpose), nothing
// else in the package, and the dump entry's length and hash true.
func (m *mock) checkPackages(s *site, skip func(loc string) bool) {
	GinkgoHelper()
	for p, data := range s.zips {
		e := s.zipEntry[p]
		Expect(e).NotTo(BeNil(), p)
		Expect(e.Md.Length).To(Equal(strconv.Itoa(len(data))), p)
		Expect(e.Md.Hash).To(Equal(hashAttr(data)), p)
		Expect(e.Md.Type).To(Equal("application/zip"), p)
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		Expect(err).NotTo(HaveOccurred(), p)
		members := map[string][]byte{}
		for _, f := range zr.File {
			rc, err := f.Open()
			Expect(err).NotTo(HaveOccurred())
			b, err := io.ReadAll(rc)
			Expect(err).NotTo(HaveOccurred())
			rc.Close()
			members[f.Name] = b
		}
		manifest, ok := members["manifest.xml"]
		Expect(ok).To(BeTrue(), "%s has no manifest.xml at the top level", p)
		copyPath := m.pathOf(e.Link("contents").Href)
		Expect(s.docs[copyPath]).To(Equal(manifest), "the manifest copy %s differs from %s's manifest.xml", copyPath, p)
		doc := s.parsed[copyPath]
		listed := map[string]bool{"manifest.xml": true}
		for _, me := range doc.Entries {
			if me.Md.Change == "deleted" {
				Expect(me.Md.Path).To(BeEmpty())
				continue
			}
			Expect(me.Md.Path).To(HavePrefix("/"))
			name := me.Md.Path[1:]
			b, ok := members[name]
			Expect(ok).To(BeTrue(), "%s lists %s, missing from the package", copyPath, me.Md.Path)
			listed[name] = true
			Expect(me.Md.Length).To(Equal(strconv.Itoa(len(b))), "%s %s", p, name)
			if skip == nil || !skip(me.Loc) {
				Expect(me.Md.Hash).To(Equal(hashAttr(b)), "%s %s", p, name)
			}
		}
		Expect(len(members)).To(Equal(len(listed)), "%s holds bitstreams its manifest does not list", p)
	}
}
