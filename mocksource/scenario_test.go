package mocksource_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

var _ = Describe("Scenarios", func() {
	It("play the example with every action once", func() {
		sc, err := scenario.Load("scenario/testdata/example.yaml")
		Expect(err).NotTo(HaveOccurred())
		m := startMock(mocksource.Options{Scenario: sc, IgnoreFaults: true})
		m.step()
		m.step()
		m.validateAll(m.crawl(), map[string]bool{})
	})

	It("arm and clear faults as their steps say (ArmedFaults)", func() {
		sc, err := scenario.Parse("scenario.yaml", []byte(`name: x
resources: {count: 3}
steps:
  - after: 1h
    actions:
      - fault: {match: /cl.xml, malformed: true}
      - fault: {match: "/res/*", latency: 10ms, times: 1}
  - after: 1h
    actions:
      - clear-faults: /cl.xml
  - after: 1h
    actions:
      - fault: {match: /rl.xml, status: 503}
  - after: 1h
    actions: [clear-faults]
`))
		Expect(err).NotTo(HaveOccurred())
		src, err := mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		matches := func() []string {
			var out []string
			for _, f := range src.ArmedFaults() {
				out = append(out, f.Match)
			}
			return out
		}
		Expect(matches()).To(BeEmpty(), "before the first step")
		for _, want := range [][]string{{"/cl.xml", "/res/*"}, {"/res/*"}, {"/res/*", "/rl.xml"}, nil} {
			_, err := src.Step()
			Expect(err).NotTo(HaveOccurred())
			Expect(matches()).To(Equal(want))
		}
		Expect(sc.Steps[0].Actions[0].Fault.Malformed).To(BeTrue())
	})

	DescribeTable("that cannot be played fail when the Source is built, with the line",
		func(yaml, want string) {
			sc, err := scenario.Parse("scenario.yaml", []byte(yaml))
			Expect(err).NotTo(HaveOccurred())
			_, err = mocksource.New(mocksource.Options{Scenario: sc})
			Expect(err).To(MatchError(HavePrefix(want)))
		},
		Entry("updating a path that does not exist", "name: x\nresources: {count: 3}\nsteps:\n  - after: 1h\n    actions:\n      - update: /res/nope.txt\n",
			"scenario.yaml:6: update: no resource /res/nope.txt"),
		Entry("updating a deleted resource", "name: x\nresources: {count: 3}\nsteps:\n  - after: 1h\n    actions:\n      - delete: /res/0000001.html\n      - update: /res/0000001.html\n",
			"scenario.yaml:7: update: /res/0000001.html is deleted"),
		Entry("creating what exists", "name: x\nresources: {count: 3}\nsteps:\n  - after: 1h\n    actions:\n      - create: /res/0000000.txt\n",
			"scenario.yaml:6: /res/0000000.txt already exists"),
		Entry("deleting more than there is", "name: x\nresources: {count: 3}\nsteps:\n  - after: 1h\n    actions:\n      - delete: {count: 4}\n",
			"scenario.yaml:6: delete: only 3 resources are live"),
		Entry("a wrong expectation", "name: x\nresources: {count: 3}\nsteps:\n  - after: 1h\n    actions: [close-changelist]\n    expect: {resources: 4}\n",
			"scenario.yaml:6: expect: 4 resources expected, the Source has 3"),
		Entry("closing an empty Change Dump", "name: x\nsteps:\n  - after: 1h\n    actions: [close-changedump]\n",
			"scenario.yaml:4: close-changedump: the open Change Dump has no package"),
	)
})
