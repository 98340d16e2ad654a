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
