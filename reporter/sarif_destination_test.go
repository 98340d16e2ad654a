package reporter_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/reporter"
)

var _ = Describe("The sarif format of test-destination", func() {
	type logical struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
	}
	type location struct {
		PhysicalLocation *struct {
			ArtifactLocation struct{ URI string } `json:"artifactLocation"`
			Region           *struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
		LogicalLocations []logical `json:"logicalLocations"`
	}
	type log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID              string
						FullDescription *struct{ Text string } `json:"fullDescription"`
						Help            *struct{ Text string } `json:"help"`
						HelpURI         string                 `json:"helpUri"`
					}
				}
			}
			Results []struct {
				RuleID    string     `json:"ruleId"`
				Locations []location `json:"locations"`
			}
		}
	}
	write := func(results []*harness.Result) log {
		var b bytes.Buffer
		Expect(reporter.WriteDestination(&b, reporter.FormatSARIF, results, reporter.Options{Version: "test"})).To(Succeed())
		Expect(b.String()).NotTo(ContainSubstring("127.0.0.1"), "the mock's address changes with every run")
		var l log
		Expect(json.Unmarshal(b.Bytes(), &l)).To(Succeed())
		return l
	}

	It("describes every requirement fully, with its entry in docs/destination.md", func() {
		l := write(destinationResults())
		Expect(l.Runs[0].Tool.Driver.Rules).To(HaveLen(len(harness.Requirements)))
		for _, r := range l.Runs[0].Tool.Driver.Rules {
			Expect(r.FullDescription).NotTo(BeNil(), r.ID)
			Expect(strings.TrimSpace(r.FullDescription.Text)).NotTo(BeEmpty(), r.ID)
			Expect(r.Help).NotTo(BeNil(), r.ID)
			Expect(r.HelpURI).To(Equal("https://github.com/rsconform/rsconform/blob/main/docs/destination.md#"+strings.ToLower(r.ID)), r.ID)
		}
	})

	It("locates results logically, scenario / step / requirement, and at the step's line of a scenario file", func() {
		l := write(destinationResults())
		Expect(l.Runs[0].Results).NotTo(BeEmpty())
		for _, res := range l.Runs[0].Results {
			Expect(res.Locations).To(HaveLen(1))
			Expect(res.Locations[0].PhysicalLocation).To(BeNil(), "a built-in scenario has no file of the user's")
			Expect(res.Locations[0].LogicalLocations).To(HaveLen(1))
			Expect(res.Locations[0].LogicalLocations[0].Name).To(Equal(res.RuleID))
		}
		Expect(l.Runs[0].Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName).To(Equal("create-update-delete/step 0/DEST-PRESENT"))

		results := destinationResults()
		results[0].File = "ci/my-scenario.yaml"
		results[0].Steps[2].Line = 14
		l = write(results)
		var found bool
		for _, res := range l.Runs[0].Results {
			loc := res.Locations[0]
			Expect(loc.PhysicalLocation).NotTo(BeNil())
			Expect(loc.PhysicalLocation.ArtifactLocation.URI).To(Equal("ci/my-scenario.yaml"))
			if loc.LogicalLocations[0].FullyQualifiedName == "create-update-delete/step 2/DEST-NO-REFETCH" {
				found = true
				Expect(loc.PhysicalLocation.Region.StartLine).To(Equal(14))
			}
		}
		Expect(found).To(BeTrue())
	})
})
