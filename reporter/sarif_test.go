package reporter_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules/engine"
)

// The parts of SARIF 2.1.0 that rsconform writes, as a consumer reads
// them; pointers tell absent from zero.
type sarifDoc struct {
	Schema  *string `json:"$schema"`
	Version *string `json:"version"`
	Runs    []struct {
		Tool *struct {
			Driver *struct {
				Name           *string `json:"name"`
				Version        string  `json:"version"`
				InformationURI string  `json:"informationUri"`
				Rules          []struct {
					ID               *string                 `json:"id"`
					Name             string                  `json:"name"`
					ShortDescription *sarifText              `json:"shortDescription"`
					FullDescription  *sarifText              `json:"fullDescription"`
					Help             *sarifText              `json:"help"`
					HelpURI          string                  `json:"helpUri"`
					Default          *struct{ Level string } `json:"defaultConfiguration"`
					Properties       map[string]string       `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful *bool `json:"executionSuccessful"`
			Notifications       []struct {
				Level     string          `json:"level"`
				Message   *sarifText      `json:"message"`
				Locations []sarifLocation `json:"locations"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID           *string         `json:"ruleId"`
			RuleIndex        *int            `json:"ruleIndex"`
			Level            string          `json:"level"`
			Message          *sarifText      `json:"message"`
			Locations        []sarifLocation `json:"locations"`
			RelatedLocations []sarifLocation `json:"relatedLocations"`
		} `json:"results"`
		Properties map[string]any `json:"properties"`
	} `json:"runs"`
}

type sarifText struct {
	Text *string `json:"text"`
}

type sarifLocation struct {
	ID               *int `json:"id"`
	PhysicalLocation *struct {
		ArtifactLocation *struct {
			URI *string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine   *int `json:"startLine"`
			StartColumn int  `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

func decodeSARIF(data []byte) sarifDoc {
	var doc sarifDoc
	Expect(json.Unmarshal(data, &doc)).To(Succeed())
	return doc
}

// checkLocation checks what SARIF requires of a location and returns its
// URI and region (0, 0 when there is none).
func checkLocation(l sarifLocation) (uri string, line, col int) {
	Expect(l.PhysicalLocation).NotTo(BeNil())
	Expect(l.PhysicalLocation.ArtifactLocation).NotTo(BeNil())
	Expect(l.PhysicalLocation.ArtifactLocation.URI).NotTo(BeNil())
	if r := l.PhysicalLocation.Region; r != nil {
		Expect(r.StartLine).NotTo(BeNil())
		Expect(*r.StartLine).To(BeNumerically(">=", 1), "a region's startLine is 1 or more")
		Expect(r.StartColumn).To(BeNumerically(">=", 0))
		line, col = *r.StartLine, r.StartColumn
	}
	return *l.PhysicalLocation.ArtifactLocation.URI, line, col
}

var _ = Describe("The sarif format", func() {
	It("is a SARIF 2.1.0 log with the required properties", func() {
		doc := decodeSARIF(render("sarif", sampleOptions, sampleResults()...))
		Expect(doc.Schema).To(Equal(ptr("https://json.schemastore.org/sarif-2.1.0.json")))
		Expect(doc.Version).To(Equal(ptr("2.1.0")))
		Expect(doc.Runs).To(HaveLen(1))
		run := doc.Runs[0]
		Expect(run.Tool).NotTo(BeNil())
		Expect(run.Tool.Driver).NotTo(BeNil())
		d := run.Tool.Driver
		Expect(d.Name).To(Equal(ptr("rsconform")))
		Expect(d.Version).To(Equal("0.0.0-test"))
		Expect(d.InformationURI).To(Equal("https://github.com/rsconform/rsconform"))
		Expect(run.Properties).To(HaveKeyWithValue("strict", false))
		Expect(run.Properties).To(HaveKeyWithValue("spec", "1.1"))

		ids := map[string]bool{}
		for _, r := range d.Rules {
			Expect(r.ID).NotTo(BeNil())
			Expect(ids[*r.ID]).To(BeFalse(), "rule %s listed twice", *r.ID)
			ids[*r.ID] = true
			Expect(r.ShortDescription).NotTo(BeNil())
			Expect(*r.ShortDescription.Text).NotTo(BeEmpty())
			Expect(r.Default).NotTo(BeNil())
			Expect(r.Default.Level).To(BeElementOf("error", "warning", "note"))
			Expect(r.Properties).To(HaveKey("section"))
		}
		// Every rule of the catalogue, with its metadata.
		for i, rule := range engine.All() {
			r := d.Rules[i]
			Expect(*r.ID).To(Equal(rule.ID))
			Expect(*r.ShortDescription.Text).To(Equal(rule.Title))
			Expect(r.Properties).To(Equal(map[string]string{"section": rule.Section, "level": rule.Level.String()}))
			want := map[engine.Level]string{engine.Must: "error", engine.Should: "warning", engine.Info: "note"}[rule.Level]
			Expect(r.Default.Level).To(Equal(want))
			if rule.Quote != "" && rule.English == "" {
				Expect(r.FullDescription).NotTo(BeNil())
				Expect(*r.FullDescription.Text).To(Equal(rule.Quote))
			}
		}
		xsd := d.Rules[indexOf(engine.All(), "RS-XSD")]
		Expect(xsd.Name).To(Equal("RsXsd"))
		// A rule with findings that the catalogue does not know is added.
		Expect(ids).To(HaveKey(notInCatalogue))
		Expect(d.Rules).To(HaveLen(len(engine.All()) + 1))
	})

	// GitHub code scanning rejects a rule without help (GH2012) and links
	// a rule's alerts to its helpUri.
	It("gives every rule help text and a helpUri at its entry in docs/rules.md", func() {
		d := decodeSARIF(render("sarif", sampleOptions, sampleResults()...)).Runs[0].Tool.Driver
		catalogue, err := os.ReadFile("../docs/rules.md")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range d.Rules {
			Expect(r.Help).NotTo(BeNil(), "rule %s has no help", *r.ID)
			Expect(r.Help.Text).NotTo(BeNil())
			Expect(*r.Help.Text).NotTo(BeEmpty(), "rule %s", *r.ID)
			if *r.ID == notInCatalogue {
				continue
			}
			Expect(r.HelpURI).To(Equal("https://github.com/rsconform/rsconform/blob/main/docs/rules.md#"+strings.ToLower(*r.ID)), *r.ID)
			// The anchor exists: GitHub makes "### RS-CL-ORDER" into #rs-cl-order.
			Expect(string(catalogue)).To(ContainSubstring("\n### "+*r.ID+"\n"), *r.ID)
			Expect(*r.Help.Text).To(ContainSubstring(r.HelpURI))
		}
	})

	It("puts English first in the full description of rules quoting a Japanese text", func() {
		d := decodeSARIF(render("sarif", sampleOptions)).Runs[0].Tool.Driver
		translated := 0
		for i, rule := range engine.All() {
			full := *d.Rules[i].FullDescription.Text
			ascii := strings.IndexFunc(rule.Quote, func(r rune) bool { return r > unicode.MaxASCII && r != '–' && r != '’' }) < 0
			if ascii {
				continue
			}
			translated++
			Expect(rule.English).NotTo(BeEmpty(), "%s quotes a non-English text without a translation", rule.ID)
			Expect(full).To(HavePrefix(rule.English), rule.ID)
			Expect(full).To(HaveSuffix(rule.Quote), "%s keeps the quote", rule.ID)
		}
		Expect(translated).To(BeNumerically(">=", 8))
	})

	It("writes files under the repository as paths relative to it", func() {
		root, err := filepath.Abs("..")
		Expect(err).NotTo(HaveOccurred())
		o := sampleOptions
		o.SourceRoot = root
		for _, name := range []string{filepath.Join(root, "build", "site", "changelist.xml"), "changelist.xml"} {
			r := engine.Result{Location: name, Kind: "changelist", Status: engine.StatusInvalid,
				Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7", Message: "m", Location: loc(name, 1, 1)}}}
			uri, _, _ := checkLocation(decodeSARIF(render("sarif", o, r)).Runs[0].Results[0].Locations[0])
			want := "build/site/changelist.xml"
			if name == "changelist.xml" {
				want = "reporter/changelist.xml" // the test runs in reporter/
			}
			Expect(uri).To(Equal(want))
		}
		outside := engine.Result{Location: "/elsewhere/x.xml", Status: engine.StatusInvalid,
			Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError, Message: "m", Location: loc("/elsewhere/x.xml", 1, 1)}}}
		uri, _, _ := checkLocation(decodeSARIF(render("sarif", o, outside)).Runs[0].Results[0].Locations[0])
		Expect(uri).To(Equal("file:///elsewhere/x.xml"))
	})

	It("has one result per finding, pointing into the rules and the documents", func() {
		run := decodeSARIF(render("sarif", sampleOptions, sampleResults()...)).Runs[0]
		rs := run.Tool.Driver.Rules
		Expect(run.Results).To(HaveLen(5))
		for _, res := range run.Results {
			Expect(res.RuleID).NotTo(BeNil())
			Expect(res.RuleIndex).NotTo(BeNil())
			Expect(*rs[*res.RuleIndex].ID).To(Equal(*res.RuleID), "ruleIndex points at the rule")
			Expect(res.Message).NotTo(BeNil())
			Expect(res.Message.Text).NotTo(BeNil())
			Expect(res.Level).To(BeElementOf("error", "warning", "note"))
			Expect(res.Locations).To(HaveLen(1))
			checkLocation(res.Locations[0])
		}

		size := run.Results[0]
		Expect(*size.RuleID).To(Equal("RS-LIMIT-SIZE"))
		Expect(size.Level).To(Equal("warning"))
		uri, line, _ := checkLocation(size.Locations[0])
		Expect(uri).To(Equal("testdata/changelist.xml"))
		Expect(line).To(Equal(0), "no region when the line is unknown")
		Expect(size.Locations[0].PhysicalLocation.Region).To(BeNil())

		x := run.Results[1]
		Expect(*x.RuleID).To(Equal("RS-XSD"))
		Expect(x.Level).To(Equal("error"))
		_, line, col := checkLocation(x.Locations[0])
		Expect([]int{line, col}).To(Equal([]int{12, 3}))
		Expect(x.RelatedLocations).To(HaveLen(2))
		uri, line, col = checkLocation(x.RelatedLocations[1])
		Expect(uri).To(Equal("testdata/other.xml"))
		Expect([]int{line, col}).To(Equal([]int{4, 0}))
		Expect(*x.RelatedLocations[0].ID).NotTo(Equal(*x.RelatedLocations[1].ID))

		Expect(run.Results[3].Level).To(Equal("note"), "info becomes note")

		uri, line, col = checkLocation(run.Results[4].Locations[0])
		Expect(*run.Results[4].RuleID).To(Equal("RS-XML-WELLFORMED"))
		Expect(uri).To(Equal("broken.xml"))
		Expect([]int{line, col}).To(Equal([]int{3, 14}))
	})

	It("reports documents that could not be processed as tool execution notifications", func() {
		run := decodeSARIF(render("sarif", sampleOptions, sampleResults()...)).Runs[0]
		Expect(run.Invocations).To(HaveLen(1))
		inv := run.Invocations[0]
		Expect(inv.ExecutionSuccessful).To(Equal(ptr(true)))
		Expect(inv.Notifications).To(HaveLen(2))
		n := inv.Notifications[1]
		Expect(n.Level).To(Equal("error"))
		Expect(*n.Message.Text).To(ContainSubstring("404 Not Found"))
		uri, _, _ := checkLocation(n.Locations[0])
		Expect(uri).To(Equal("https://example.com/missing.xml"))
	})

	It("is unsuccessful only when nothing could be processed", func() {
		failed := sampleResults()[3]
		inv := decodeSARIF(render("sarif", sampleOptions, failed)).Runs[0].Invocations[0]
		Expect(inv.ExecutionSuccessful).To(Equal(ptr(false)))

		inv = decodeSARIF(render("sarif", sampleOptions, failed, sampleResults()[1])).Runs[0].Invocations[0]
		Expect(inv.ExecutionSuccessful).To(Equal(ptr(true)))

		// A malformed document was processed: its fault is a result.
		inv = decodeSARIF(render("sarif", sampleOptions, sampleResults()[2])).Runs[0].Invocations[0]
		Expect(inv.ExecutionSuccessful).To(Equal(ptr(true)))

		doc := decodeSARIF(render("sarif", sampleOptions))
		Expect(doc.Runs[0].Invocations[0].ExecutionSuccessful).To(Equal(ptr(true)))
		Expect(doc.Runs[0].Results).NotTo(BeNil(), "results is [] when there is none")
	})

	It("keeps levels under strict", func() {
		o := sampleOptions
		o.Strict = true
		run := decodeSARIF(render("sarif", o, sampleResults()[0])).Runs[0]
		Expect(run.Results[0].Level).To(Equal("warning"))
		Expect(run.Properties).To(HaveKeyWithValue("strict", true))
	})

	DescribeTable("writes artifact locations as URI references",
		func(name, want string) {
			r := engine.Result{Location: name, Kind: "resourcelist", Status: engine.StatusInvalid,
				Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7",
					Message: "m", Location: loc(name, 1, 1)}}}
			uri, _, _ := checkLocation(decodeSARIF(render("sarif", sampleOptions, r)).Runs[0].Results[0].Locations[0])
			Expect(uri).To(Equal(want))
		},
		Entry("relative file", "sitemaps/resourcelist.xml", "sitemaps/resourcelist.xml"),
		Entry("relative file with a space and a hash", "my dir/a#1.xml", "my%20dir/a%231.xml"),
		Entry("relative file with a colon", "a:b.xml", "./a:b.xml"),
		Entry("absolute file", "/srv/rs/resourcelist.xml", "file:///srv/rs/resourcelist.xml"),
		Entry("URL", "https://example.com/rs/resourcelist.xml?x=1", "https://example.com/rs/resourcelist.xml?x=1"),
	)

	It("writes hostile messages as valid JSON", func() {
		r := sampleResults()[0]
		r.Diagnostics[0].Message = hostile
		data := render("sarif", sampleOptions, r)
		Expect(json.Valid(data)).To(BeTrue())
		Expect(bytes.Contains(data, []byte("\x1b"))).To(BeFalse())
		run := decodeSARIF(data).Runs[0]
		Expect(*run.Results[0].Message.Text).To(HavePrefix(`bad "quote" 'apos' <tag attr="x">`))
	})
})

func indexOf(all []*engine.Rule, id string) int {
	for i, r := range all {
		if r.ID == id {
			return i
		}
	}
	Fail("rule " + id + " is not in the catalogue")
	return -1
}
