package mocksource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
)

var _ = Describe("Documents served by every built-in scenario", func() {
	for _, name := range scenario.BuiltinNames() {
		opts := mocksource.Options{IgnoreFaults: true}
		labels := Labels{"Kind:all"}
		if name == "large-source" {
			// The short variant: the same steps over 4,000 resources,
			// 1,500 to a list (an index of three lists, as 12,000 and 5,000
			// gave, in a third of the time). The full one is labelled slow.
			opts.Resources, opts.MaxEntries = 4000, 1500
		}
		if reproducible[name] {
			// Virtual time: a second Source of the scenario, under the same
			// base URL, is asked for every path the first one's crawl found.
			opts.BaseURL = "http://source.example"
			It("validate with no finding at every step, a second Source serving identical bytes (virtual time makes runs reproducible): "+name, labels, func() {
				playAndCheck(startScenario(name, opts), startScenario(name, opts))
			})
			continue
		}
		It("validate with no finding at every step: "+name, labels, func() {
			playAndCheck(startScenario(name, opts), nil)
		})
	}
	It("validate with no finding at every step: large-source, 100,000 resources", Label("slow"), func() {
		skipUnlessSlow()
		playAndCheck(startScenario("large-source", mocksource.Options{IgnoreFaults: true}), nil)
	})
})

// reproducible are the scenarios whose runs are played twice, by two
// Sources, to see them serve identical bytes at every step: change dumps,
// archives, resource dumps (packages built at virtual times) and wrong
// hashes.
var reproducible = map[string]bool{"incremental-changedump": true, "catch-up-archive": true,
	"baseline-resourcedump": true, "wrong-hash": true}

// playAndCheck crawls, validates and checks every document at every step.
// With a twin, a second Source of the same scenario and base URL, it also
// checks that the twin serves the same bytes at every path and step: as
// the bytes are equal, so are the links its own crawl would follow.
func playAndCheck(m, twin *mock) {
	GinkgoHelper()
	memo := map[string]bool{}
	wrong := wrongHashPaths(m.src.Scenario())
	for {
		s := m.crawl()
		m.validateAll(s, memo)
		m.checkPackages(s, func(loc string) bool { return wrong[m.pathOf(loc)] })
		checkStructure(m, s)
		if twin != nil {
			sameBytes(s, twin)
		}
		if m.src.Info().Done {
			if twin != nil {
				Expect(twin.src.Info().Done).To(BeTrue())
			}
			break
		}
		in := m.step()
		if twin != nil {
			Expect(twin.step()).To(Equal(in))
		}
	}
}

// sameBytes checks that twin serves what a crawl found, byte for byte.
func sameBytes(s *site, twin *mock) {
	GinkgoHelper()
	for _, p := range s.sortedDocs() {
		resp, body := twin.get(p, twin.wildHeader()...)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), p)
		body = twin.checkDocumentResponse(p, resp, body)
		Expect(string(body)).To(Equal(string(s.docs[p])), p)
	}
	for p, z := range s.zips {
		_, body := twin.get(p, twin.wildHeader()...)
		Expect(sha(body)).To(Equal(sha(z)), p)
	}
}

// skipUnlessSlow skips specs labelled slow unless the label filter asks
// for them: go test ./mocksource/ -ginkgo.label-filter=slow
func skipUnlessSlow() {
	if !strings.Contains(GinkgoLabelFilter(), "slow") {
		Skip("slow: run with -ginkgo.label-filter=slow")
	}
}

// wrongHashPaths are the paths a scenario advertises wrong hashes for.
func wrongHashPaths(sc *scenario.Scenario) map[string]bool {
	return faultPaths(sc, len(sc.Steps), func(f *scenario.Fault) bool { return f.WrongHash })
}

// faultPaths are the paths of the faults that "is" selects armed by the
// first steps of a scenario.
func faultPaths(sc *scenario.Scenario, steps int, is func(*scenario.Fault) bool) map[string]bool {
	out := map[string]bool{}
	for _, st := range sc.Steps[:steps] {
		for _, a := range st.Actions {
			if a.Fault != nil && is(a.Fault) {
				out[a.Fault.Match] = true
			}
		}
	}
	return out
}

// checkStructure checks what the rules cannot see in one document: links
// between documents and the time attributes of Appendix A.
func checkStructure(m *mock, s *site) {
	GinkgoHelper()
	wrongUp := faultPaths(m.src.Scenario(), m.src.Info().Step, func(f *scenario.Fault) bool { return f.WrongUp })
	wrongIndex := faultPaths(m.src.Scenario(), m.src.Info().Step, func(f *scenario.Fault) bool { return f.WrongIndex })
	for _, p := range s.sortedDocs() {
		d := s.parsed[p]
		k := d.Kind()
		Expect(k).NotTo(Equal(rs.KindUnknown), p)
		if k != rs.SourceDescription {
			up := d.Link("up")
			Expect(up).NotTo(BeNil(), "%s has no up link", p)
			switch {
			case k == rs.CapabilityList:
				Expect(m.pathOf(up.Href)).To(Equal("/.well-known/resourcesync"))
			case wrongUp[p] || strings.HasPrefix(p, "/dataset2/"):
				// Under a wrong-up fault, and the second set's own.
				Expect(m.pathOf(up.Href)).To(Equal("/dataset2/capabilitylist.xml"), p)
			default:
				Expect(m.pathOf(up.Href)).To(Equal("/dataset1/capabilitylist.xml"), p)
			}
		}
		if idx := d.Link("index"); idx != nil {
			// The index lists the document that links to it.
			ip := m.pathOf(idx.Href)
			Expect(s.parsed).To(HaveKey(ip), "%s: index %s not reachable", p, ip)
			var listed bool
			for _, e := range s.parsed[ip].Entries {
				listed = listed || m.pathOf(e.Loc) == p
			}
			// Under a wrong-index fault, it links to an index that does
			// not list it.
			Expect(listed).To(Equal(!wrongIndex[p]), "%s links to index %s: listed %v", p, ip, listed)
			Expect(s.parsed[ip].Kind()).To(Equal(k.Index()))
		}
		if k.IsIndex() {
			for _, e := range d.Entries {
				cp := m.pathOf(e.Loc)
				child := s.parsed[cp]
				Expect(child).NotTo(BeNil(), cp)
				if !k.IsArchive() {
					Expect(child.Link("index")).NotTo(BeNil(), "%s, listed in %s, has no index link", cp, p)
				}
				Expect(child.Kind()).To(Equal(k.Base()), cp)
			}
		}
		switch {
		case k.IsSnapshotKind():
			Expect(d.Md.At).NotTo(BeEmpty(), p)
			Expect(d.Md.From+d.Md.Until).To(BeEmpty(), p)
		case k.IsChangeKind():
			Expect(d.Md.From).NotTo(BeEmpty(), p)
			Expect(d.Md.At+d.Md.Completed).To(BeEmpty(), p)
		}
		if k == rs.ChangeList || k == rs.ChangeDumpManifest {
			from := m.scenarioTime(d.Md.From)
			until := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
			if d.Md.Until != "" {
				until = m.scenarioTime(d.Md.Until)
			}
			prev := from
			for _, e := range d.Entries {
				t := m.scenarioTime(e.Md.Datetime)
				Expect(t).NotTo(BeTemporally("<", prev), "%s: %s out of order", p, e.Loc)
				Expect(t).NotTo(BeTemporally(">", until), "%s: %s after until", p, e.Loc)
				prev = t
			}
		}
		if k == rs.ChangeListIndex || k == rs.ChangeDumpIndex || k == rs.ChangeListArchive || k == rs.ChangeDumpArchive {
			// Forward chronological order, contiguous intervals.
			var prevUntil string
			for i, e := range d.Entries {
				Expect(e.Md.From).NotTo(BeEmpty())
				if i > 0 && prevUntil != "" {
					Expect(e.Md.From).To(Equal(prevUntil), "%s: a gap before %s", p, e.Loc)
				}
				prevUntil = e.Md.Until
			}
		}
	}
}

func mustTime(s string) time.Time {
	GinkgoHelper()
	d, err := rs.ParseDatetime(s)
	Expect(err).NotTo(HaveOccurred())
	Expect(d.IsUTCZ()).To(BeTrue(), s)
	return d.Time
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var _ = Describe("Fixity", func() {
	It("lists the true hash, length, type and lastmod of every resource right after a Resource List is published", func() {
		m := startScenario("baseline-resourcelist", mocksource.Options{})
		m.step()
		_, body := m.get("/dataset1/resourcelist.xml")
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(200))
		for _, e := range d.Entries {
			resp, b := m.get(m.pathOf(e.Loc))
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(e.Md.Hash).To(Equal(hashAttr(b)), e.Loc)
			Expect(e.Md.Length).To(Equal(strconv.Itoa(len(b))))
			Expect(e.Md.Length).To(Equal(resp.Header.Get("Content-Length")))
			Expect(e.Md.Type).To(Equal(resp.Header.Get("Content-Type")))
			lm, err := http.ParseTime(resp.Header.Get("Last-Modified"))
			Expect(err).NotTo(HaveOccurred())
			Expect(mustTime(e.Lastmod)).To(BeTemporally("==", lm))
			Expect(len(b)).To(BeNumerically(">=", 50))
			Expect(len(b)).To(BeNumerically("<=", 2100))
		}
	})

	It("lists in Change Lists the hash of what each change made, the last one being what is served", func() {
		m := startScenario("multiple-changes-one-resource", mocksource.Options{})
		for !m.src.Info().Done {
			m.step()
			_, body := m.get("/dataset1/changelist.xml")
			d, err := rs.ParseBytes(body)
			Expect(err).NotTo(HaveOccurred())
			last := map[string]*rs.Entry{}
			for _, e := range d.Entries {
				last[e.Loc] = e
			}
			for loc, e := range last {
				resp, b := m.get(m.pathOf(loc))
				if e.Md.Change == "deleted" {
					Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
					continue
				}
				Expect(resp.StatusCode).To(Equal(http.StatusOK))
				Expect(e.Md.Hash).To(Equal(hashAttr(b)), loc)
				Expect(e.Md.Length).To(Equal(strconv.Itoa(len(b))))
			}
		}
	})

	It("expects exactly what the Source serves", func() {
		m := startScenario("create-update-delete", mocksource.Options{})
		for {
			exp := m.src.Expected()
			Expect(len(exp)).To(Equal(countLive(m)))
			for p, e := range exp {
				resp, b := m.get(p)
				Expect(resp.StatusCode).To(Equal(http.StatusOK), p)
				Expect(sha(b)).To(Equal(e.SHA256), p)
				Expect(len(b)).To(Equal(e.Length))
				Expect(resp.Header.Get("Content-Type")).To(Equal(e.Type))
			}
			if m.src.Info().Done {
				break
			}
			m.step()
		}
	})
})

// countLive counts the live resources by replaying the Change List over
// the first Resource List.
func countLive(m *mock) int {
	GinkgoHelper()
	n := 0
	for range m.src.Expected() {
		n++
	}
	return n
}

var _ = Describe("Virtual time", func() {
	It("starts at 2026-01-01T00:00:00Z and advances to each step's time", func() {
		m := startScenario("incremental-changelist", mocksource.Options{})
		Expect(m.src.Now()).To(Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		in := m.step()
		Expect(in.Time).To(Equal(time.Date(2026, 1, 1, 0, 15, 0, 0, time.UTC)))
		Expect(in.Step).To(Equal(1))
		Expect(in.Steps).To(Equal(3))
		Expect(in.Changes).To(Equal(3))
		Expect(m.src.Now()).To(Equal(in.Time))
	})
})

// tinyLimits exercises every index: at most 4 entries per document.
const tinyLimits = `name: tiny-limits
description: every document beyond its limit
seed: 5
max-entries: 4
package-size: 2
resources: {count: 8}
steps:
  - after: 1h
    actions:
      - update: {count: 7}
      - publish-changedump
      - publish-resourcedump
      - publish-resourcelist
  - after: 1h
    actions:
      - update: {count: 2}
      - publish-changedump
      - close-changedump
      - publish-resourcelist
      - close-changelist
  - after: 1h
    actions:
      - create: {count: 2}
      - publish-changedump
      - close-changedump
      - publish-resourcelist
      - publish-resourcelist
      - publish-resourcedump
      - close-changelist
  - after: 1h
    actions:
      - update: {count: 1}
      - publish-changedump
      - close-changedump
      - publish-changedump
      - publish-resourcelist
      - close-changelist
    expect: {resources: 10}
`

var _ = Describe("Limits", func() {
	It("split every kind of document into indexes, and Change Lists roll over at the limit", func() {
		sc, err := scenario.Parse("tiny.yaml", []byte(tinyLimits))
		Expect(err).NotTo(HaveOccurred())
		m := startMock(mocksource.Options{Scenario: sc})
		playAndCheck(m, nil)
		s := m.crawl()
		kinds := map[rs.Kind]int{}
		for _, p := range s.sortedDocs() {
			d := s.parsed[p]
			kinds[d.Kind()]++
			if d.Kind() != rs.CapabilityList { // never an index (section 9)
				Expect(len(d.Entries)).To(BeNumerically("<=", 4), p)
			}
		}
		for _, k := range []rs.Kind{rs.ResourceListIndex, rs.ResourceDumpIndex, rs.ChangeListIndex, rs.ChangeDumpIndex,
			rs.ResourceListArchiveIndex, rs.ChangeListArchiveIndex, rs.ChangeDumpArchive, rs.ResourceDumpArchive} {
			Expect(kinds).To(HaveKey(k))
		}
		// 7 + 2 + 2 + 1 changes, 4 to a list: the first list rolled over
		// within the first step, before any close-changelist.
		_, body := m.get("/dataset1/changelist/1.xml")
		d, err := rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(4))
		Expect(d.Md.Until).To(Equal("2026-01-01T01:00:00Z"))
		// The 7 changes of the first step went into 2 packages.
		_, body = m.get("/dataset1/changedump/1.xml")
		d, err = rs.ParseBytes(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(3))
		Expect(d.Entries[0].Md.From).To(Equal("2026-01-01T00:00:00Z"))
		Expect(d.Entries[0].Md.Until).To(Equal("2026-01-01T01:00:00Z"))
		Expect(d.Entries[1].Md.From).To(Equal("2026-01-01T01:00:00Z"))
		Expect(d.Entries[1].Md.Until).To(Equal("2026-01-01T01:00:00Z"))
	})
})
