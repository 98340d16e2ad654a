package mocksource_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// wildAllowed leaves out the findings a scenario of Sources seen in the
// wild asks for: RS-TIME-UTC (a SHOULD) on every datetime when it writes
// them at offsets from UTC.
func (m *mock) wildAllowed(ds []engine.Diagnostic) []engine.Diagnostic {
	sc := m.src.Scenario()
	if sc == nil || len(sc.TimeOffsets) == 0 {
		return ds
	}
	var out []engine.Diagnostic
	for _, d := range ds {
		if d.Rule != "RS-TIME-UTC" {
			out = append(out, d)
		}
	}
	return out
}

var datetimeAttr = regexp.MustCompile(`(?:at|from|until|datetime|completed)="([^"]+)"|<lastmod>([^<]+)</lastmod>`)

var _ = Describe("Scenarios of Sources seen in the wild", func() {
	It("write every datetime at the time-offsets, the same instants", func() {
		m := startScenario("time-zone-offsets", mocksource.Options{})
		m.step()
		_, body := m.get("/dataset1/changelist.xml")
		var seen []string
		for _, match := range datetimeAttr.FindAllStringSubmatch(string(body), -1) {
			v := match[1] + match[2]
			Expect(v).NotTo(HaveSuffix("Z"), string(body))
			seen = append(seen, v[len(v)-6:])
		}
		Expect(seen).To(ContainElements("+01:00", "-05:00", "+05:30"))
		// The three creations of step 1, at 00:10Z, written in turn at
		// each offset.
		Expect(string(body)).To(ContainSubstring(`datetime="2026-01-01T01:10:00+01:00"`))
		Expect(string(body)).To(ContainSubstring(`datetime="2025-12-31T19:10:00-05:00"`))
		Expect(string(body)).To(ContainSubstring(`datetime="2026-01-01T05:40:00+05:30"`))
		d, err := m.parse("/dataset1/changelist.xml", body)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range d.Entries {
			t, _, err := e.Md.Time("datetime")
			Expect(err).NotTo(HaveOccurred())
			Expect(t.Time.UTC()).To(Equal(time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)))
		}
	})

	DescribeTable("refuse a time-offsets value that is no offset from UTC",
		func(v, want string) {
			_, err := scenario.Parse("s.yaml", []byte("name: x\ntime-offsets: ["+v+"]\nsteps:\n  - after: 1h\n    actions: [close-changelist]\n"))
			Expect(err).To(MatchError(want))
		},
		Entry("UTC", `"+00:00"`, `s.yaml:2: time-offsets: "+00:00" is UTC: give offsets other than +00:00`),
		Entry("not an offset", `"CET"`, `s.yaml:2: time-offsets: "CET" is not a time zone offset such as +01:00 or -05:00`),
		Entry("out of range", `"+24:00"`, `s.yaml:2: time-offsets: "+24:00" is not a time zone offset such as +01:00 or -05:00`),
	)
})

// scenarioTime is mustTime for a scenario that may write its datetimes at
// offsets from UTC (time-offsets): then any time zone designator goes.
func (m *mock) scenarioTime(s string) time.Time {
	GinkgoHelper()
	if sc := m.src.Scenario(); sc == nil || len(sc.TimeOffsets) == 0 {
		return mustTime(s)
	}
	d, err := rs.ParseDatetime(s)
	Expect(err).NotTo(HaveOccurred())
	return d.Time
}

// wildHeader is what a request of the tests sends to a scenario's Source:
// its bearer token, if it wants one.
func (m *mock) wildHeader() []string {
	if t := m.src.Scenario().BearerToken; t != "" {
		return []string{"Authorization", "Bearer " + t}
	}
	return nil
}

// wildType is the Content-Type a response of the scenario's Source has
// where it would have ctype.
func (m *mock) wildType(ctype string) string {
	if m.src.Scenario().NoContentType {
		return ""
	}
	return ctype
}

// checkDocumentResponse checks the headers of a document's response and
// returns the document (gunzipped under a .gz name).
func (m *mock) checkDocumentResponse(p string, resp *http.Response, body []byte) []byte {
	GinkgoHelper()
	sc := m.src.Scenario()
	ctype, doc := "application/xml", body
	if strings.HasSuffix(p, ".gz") {
		ctype = "application/gzip"
		zr, err := gzip.NewReader(bytes.NewReader(body))
		Expect(err).NotTo(HaveOccurred(), p)
		doc, err = io.ReadAll(zr)
		Expect(err).NotTo(HaveOccurred(), p)
	}
	Expect(resp.Header.Get("Content-Type")).To(Equal(m.wildType(ctype)), p)
	switch {
	case sc.Chunked:
		Expect(resp.TransferEncoding).To(Equal([]string{"chunked"}), p)
		Expect(resp.Header.Get("Content-Length")).To(BeEmpty(), p)
	case sc.GzipEncoding:
		// Sent gzip-encoded; Go's client decoded it.
		Expect(resp.Uncompressed).To(BeTrue(), p)
	default:
		Expect(resp.Header.Get("Content-Length")).To(Equal(strconv.Itoa(len(body))), p)
	}
	return doc
}

var _ = Describe("Sources seen in the wild, on the wire", func() {
	It("answer 401 without the bearer token, and 200 with it", func() {
		m := startScenario("bearer-token", mocksource.Options{})
		resp, _ := m.get("/.well-known/resourcesync")
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(resp.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer "))
		resp, _ = m.get("/res/0000000.txt", "Authorization", "Bearer wrong")
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		resp, _ = m.get("/res/0000000.txt", m.wildHeader()...)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	})

	It("serve renamed documents under their new names only, linked by them", func() {
		m := startScenario("gzip-and-names", mocksource.Options{})
		resp, _ := m.get("/dataset1/resourcelist.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		resp, body := m.get("/dataset1/capabilitylist.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(string(body)).To(ContainSubstring("/dataset1/lists/resources-2026.xml.gz</loc>"))
		Expect(string(body)).To(ContainSubstring("/dataset1/lists/changes-open.xml.gz</loc>"))
		Expect(string(body)).NotTo(ContainSubstring("/dataset1/resourcelist.xml"))
		resp, body = m.get("/dataset1/lists/resources-2026.xml.gz")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/gzip"))
		Expect(body[:2]).To(Equal([]byte{0x1f, 0x8b}))
	})

	DescribeTable("refuse a scenario's wild fields that cannot be served",
		func(yaml, want string) {
			_, err := scenario.Parse("s.yaml", []byte("name: x\n"+yaml+"steps:\n  - after: 1h\n    actions: [close-changelist]\n"))
			Expect(err).To(MatchError(want))
		},
		Entry("a token with a space", "bearer-token: a b\n", `s.yaml:2: bearer-token "a b" is not a bearer token (RFC 6750 2.1: letters, digits and -._~+/ then any =)`),
		Entry("an unknown document", "document-names: {/dataset1/x.xml: /y.xml}\n", `s.yaml:2: unknown field "/dataset1/x.xml" in document-names (known: /dataset1/capabilitylist.xml, /dataset1/changelist.xml, /dataset1/resourcelist.xml)`),
		Entry("two documents, one name", "document-names: {/dataset1/changelist.xml: /a.xml, /dataset1/resourcelist.xml: /a.xml}\n", `s.yaml:2: document-names: /dataset1/changelist.xml and /dataset1/resourcelist.xml both named /a.xml`),
	)
})
