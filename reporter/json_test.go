package reporter_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules/engine"
)

// The JSON contract, written out independently of the package's own types
// so that renaming a field there fails here. Decoding disallows unknown
// fields: a new member must be added here, and to the documented contract,
// on purpose.
type contractReport struct {
	Tool      *string            `json:"tool"`
	Version   *string            `json:"version"`
	Spec      *string            `json:"spec"`
	Strict    *bool              `json:"strict"`
	Documents []contractDocument `json:"documents"`
	Summary   *contractSummary   `json:"summary"`
	Sampling  *contractSampling  `json:"sampling"`
}

type contractSampling struct {
	Resources *int              `json:"resources"`
	Skipped   map[string]int    `json:"skipped"`
	Lists     []contractSampled `json:"lists"`
}

type contractSampled struct {
	Location *string        `json:"location"`
	Kind     *string        `json:"kind"`
	Entries  *int           `json:"entries"`
	Sampled  *int           `json:"sampled"`
	Skipped  map[string]int `json:"skipped"`
}

type contractDocument struct {
	Location *string           `json:"location"`
	Kind     *string           `json:"kind"`
	Status   *string           `json:"status"`
	Findings []contractFinding `json:"findings"`
	Error    string            `json:"error"`
	Parent   string            `json:"parent"`
	Children []string          `json:"children"`
}

type contractFinding struct {
	Rule     *string            `json:"rule"`
	Severity *string            `json:"severity"`
	Section  *string            `json:"section"`
	Message  *string            `json:"message"`
	Line     *int               `json:"line"`
	Column   *int               `json:"column"`
	Related  []contractLocation `json:"related"`
}

type contractLocation struct {
	URL    string `json:"url"`
	File   string `json:"file"`
	Line   *int   `json:"line"`
	Column *int   `json:"column"`
}

type contractSummary struct {
	Documents   *int `json:"documents"`
	Errors      *int `json:"errors"`
	Warnings    *int `json:"warnings"`
	Infos       *int `json:"infos"`
	Valid       *int `json:"valid"`
	Invalid     *int `json:"invalid"`
	Unprocessed *int `json:"unprocessed"`
	Skipped     *int `json:"skipped"`
	// Resources is optional: sampled resources with findings.
	Resources *int `json:"resources"`
}

func decodeContract(data []byte) contractReport {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep contractReport
	Expect(dec.Decode(&rep)).To(Succeed())
	Expect(dec.More()).To(BeFalse(), "one JSON document only")
	return rep
}

func ptr[T any](v T) *T { return &v }

var _ = Describe("The json format", func() {
	It("matches its golden file", func() {
		golden("report.json.golden", render("json", sampleOptions, sampleResults()...))
	})

	It("follows the contract, every required member present", func() {
		data := render("json", sampleOptions, sampleResults()...)
		rep := decodeContract(data)
		Expect(rep.Tool).To(Equal(ptr("rsconform")))
		Expect(rep.Version).To(Equal(ptr("0.0.0-test")))
		Expect(rep.Spec).To(Equal(ptr("1.1")))
		Expect(rep.Strict).To(Equal(ptr(false)))
		Expect(rep.Documents).To(HaveLen(5))
		for _, d := range rep.Documents {
			Expect(d.Location).NotTo(BeNil())
			Expect(d.Kind).NotTo(BeNil())
			Expect(*d.Status).To(BeElementOf("valid", "invalid", "error", "skipped"))
			Expect(d.Findings).NotTo(BeNil(), "findings is [] when empty, never null or absent")
			for _, f := range d.Findings {
				Expect(f.Rule).NotTo(BeNil())
				Expect(*f.Severity).To(BeElementOf("error", "warning", "info"))
				Expect(f.Section).NotTo(BeNil())
				Expect(f.Message).NotTo(BeNil())
				Expect(f.Line).NotTo(BeNil(), "line is always present")
				Expect(f.Column).NotTo(BeNil(), "column is always present")
				for _, l := range f.Related {
					Expect(l.URL != "" || l.File != "").To(BeTrue())
					Expect(l.Line).NotTo(BeNil())
					Expect(l.Column).NotTo(BeNil())
				}
			}
		}
		d := rep.Documents[0]
		Expect(*d.Location).To(Equal("testdata/changelist.xml"))
		Expect(*d.Kind).To(Equal("changelist"))
		Expect(*d.Status).To(Equal("invalid"))
		Expect(d.Parent).To(Equal("https://example.com/capabilitylist.xml"))
		Expect(d.Children).To(Equal([]string{"https://example.com/a.xml", "https://example.com/b.xml"}))
		Expect(d.Findings).To(HaveLen(4))
		f := d.Findings[1]
		Expect(*f.Rule).To(Equal("RS-XSD"))
		Expect(*f.Severity).To(Equal("error"))
		Expect(*f.Section).To(Equal("7"))
		Expect(*f.Line).To(Equal(12))
		Expect(*f.Column).To(Equal(3))
		Expect(f.Related).To(HaveLen(2))
		Expect(f.Related[1].File).To(Equal("testdata/other.xml"))
		Expect(*f.Related[1].Line).To(Equal(4))
		Expect(*d.Findings[0].Line).To(Equal(0), "unknown line is 0")

		Expect(*rep.Documents[1].Status).To(Equal("valid"))
		Expect(rep.Documents[1].Findings).To(BeEmpty())
		Expect(*rep.Documents[3].Kind).To(Equal("unknown"), "an empty kind is reported as unknown")
		Expect(rep.Documents[3].Error).To(ContainSubstring("404"))

		s := rep.Summary
		Expect(s).NotTo(BeNil())
		Expect([]int{*s.Documents, *s.Errors, *s.Warnings, *s.Infos}).To(Equal([]int{5, 3, 1, 1}))
		Expect([]int{*s.Valid, *s.Invalid, *s.Unprocessed, *s.Skipped}).To(Equal([]int{1, 1, 2, 1}))
	})

	It("writes [] for no documents and no findings, never null", func() {
		data := render("json", sampleOptions)
		Expect(string(data)).To(ContainSubstring(`"documents": []`))
		rep := decodeContract(data)
		Expect(rep.Documents).NotTo(BeNil())
		Expect(*rep.Summary.Documents).To(Equal(0))

		data = render("json", sampleOptions, engine.Result{Location: "a.xml", Kind: "resourcelist", Status: engine.StatusValid})
		Expect(string(data)).To(ContainSubstring(`"findings": []`))
		Expect(string(data)).NotTo(ContainSubstring("null"))
	})

	It("is one pretty-printed document with two-space indentation, written at Flush", func() {
		data := render("json", sampleOptions, sampleResults()[1])
		Expect(json.Valid(data)).To(BeTrue())
		Expect(string(data)).To(HavePrefix("{\n  \"tool\": \"rsconform\",\n"))
		Expect(string(data)).To(HaveSuffix("}\n"))
	})

	It("says whether the run was strict", func() {
		o := sampleOptions
		o.Strict = true
		Expect(decodeContract(render("json", o)).Strict).To(Equal(ptr(true)))
	})

	It("writes hostile messages as valid UTF-8 JSON", func() {
		r := sampleResults()[0]
		r.Diagnostics[0].Message = hostile
		data := render("json", sampleOptions, r)
		Expect(utf8.Valid(data)).To(BeTrue())
		rep := decodeContract(data)
		msg := *rep.Documents[0].Findings[0].Message
		Expect(msg).To(HavePrefix(`bad "quote" 'apos' <tag attr="x"> & &amp; ]]> ` + "\x00\x01"))
		Expect(strings.Count(msg, "\uFFFD")).To(Equal(2), "each invalid byte becomes U+FFFD")
	})
})
