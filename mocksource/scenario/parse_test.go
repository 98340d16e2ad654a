package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

// exampleYAML is testdata/example.yaml, a scenario with every action once
// (the mock's tests play it).
func exampleYAML() []byte {
	data, err := os.ReadFile("testdata/example.yaml")
	Expect(err).NotTo(HaveOccurred())
	return data
}

var _ = Describe("Scenarios", func() {
	It("parse every field of the format", func() {
		sc, err := scenario.Parse("example.yaml", exampleYAML())
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Name).To(Equal("example"))
		Expect(sc.Seed).To(Equal(int64(7)))
		Expect(sc.Start).To(Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
		Expect(sc.Resources).To(Equal(12))
		Expect(sc.Types).To(Equal([]string{"text/plain", "text/html"}))
		Expect(sc.MaxEntries).To(Equal(5))
		Expect(sc.PackageSize).To(Equal(4))
		Expect(sc.RetainChangeLists).To(Equal(2))
		Expect(sc.DeletedStatus).To(Equal(410))
		Expect(sc.Steps).To(HaveLen(2))
		st := sc.Steps[0]
		Expect(st.Line).To(Equal(13))
		Expect(st.Actions).To(HaveLen(12))
		Expect(st.Actions[0]).To(Equal(scenario.Action{Line: 16, Op: scenario.OpCreate, Path: "/res/a.txt"}))
		Expect(st.Actions[1]).To(Equal(scenario.Action{Line: 17, Op: scenario.OpCreate, Count: 2, Type: "application/json"}))
		Expect(st.Actions[4].Path).To(Equal("/res/0000002.txt"))
		Expect(st.Actions[10].Fault).To(Equal(&scenario.Fault{Line: 26, Match: "/res/*", Latency: 10 * time.Millisecond, Times: 3}))
		Expect(*st.Expect.Resources).To(Equal(14))
		Expect(sc.Steps[1].At).To(Equal(time.Date(2026, 3, 3, 13, 0, 0, 0, time.UTC)))
		Expect(sc.Steps[1].Expect).NotTo(BeNil())
	})

	DescribeTable("report errors with the file and line",
		func(yaml, want string) {
			_, err := scenario.Parse("scenario.yaml", []byte(yaml))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(HavePrefix(want))
			var se *scenario.Error
			Expect(errors.As(err, &se)).To(BeTrue())
		},
		Entry("an unknown action", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - update: /res/0000001.html\n      - udpate: /res/0000002.txt\n",
			`scenario.yaml:6: unknown action "udpate" (did you mean "update"?)`),
		Entry("an unknown scalar action", "name: x\nsteps:\n  - after: 1h\n    actions: [publish, close-changelist]\n",
			`scenario.yaml:4: unknown action "publish"`),
		Entry("time going backwards", "name: x\nsteps:\n  - at: 2026-01-02T00:00:00Z\n    actions: [close-changelist]\n  - at: 2026-01-01T12:00:00Z\n    actions: [close-changelist]\n",
			"scenario.yaml:5: step 2 at 2026-01-01T12:00:00Z goes back in time"),
		Entry("a step before the start", "name: x\nstart: 2026-02-01T00:00:00Z\nsteps:\n  - at: 2026-01-01T00:00:00Z\n    actions: [close-changelist]\n",
			"scenario.yaml:4: step 1 at 2026-01-01T00:00:00Z goes back in time"),
		Entry("bad YAML", "name: x\nsteps:\n  - after: 1h\n    actions: [close-changelist\n",
			"scenario.yaml:4: did not find expected ',' or ']'"),
		Entry("a missing key", "name: x\nsteps:\n  - after: 1h\n    actions: [close-changelist]\n   oops\n",
			"scenario.yaml:3: "),
		Entry("a tab", "name: x\nsteps:\n\t- after: 1h\n",
			"scenario.yaml:3: "),
		Entry("an unknown field", "name: x\nseeds: 3\n",
			`scenario.yaml:2: unknown field "seeds" in scenario`),
		Entry("an unknown step field", "name: x\nsteps:\n  - after: 1h\n    action: [close-changelist]\n",
			`scenario.yaml:4: unknown field "action" in step 1`),
		Entry("a duplicate field", "name: x\nseed: 1\nseed: 2\n",
			"scenario.yaml:3: "),
		Entry("no name", "seed: 1\n", "scenario.yaml:1: the scenario has no name"),
		Entry("a bad duration", "name: x\nsteps:\n  - after: soon\n    actions: [close-changelist]\n",
			`scenario.yaml:3: after must be a duration`),
		Entry("both at and after", "name: x\nsteps:\n  - at: 2026-01-02T00:00:00Z\n    after: 1h\n    actions: [close-changelist]\n",
			"scenario.yaml:4: step 1 has both at and after"),
		Entry("no time", "name: x\nsteps:\n  - actions: [close-changelist]\n",
			"scenario.yaml:3: step 1 needs a time"),
		Entry("a bad status", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - fault: {match: /res/*, status: 200}\n",
			"scenario.yaml:5: status must be an error status"),
		Entry("a fault without effect", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - fault:\n          match: /res/*\n          times: 2\n",
			"scenario.yaml:6: fault has no effect"),
		Entry("a fault without match", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - fault: {status: 503}\n",
			"scenario.yaml:5: fault needs match"),
		Entry("a reserved path", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - create: /dataset1/x.txt\n",
			"scenario.yaml:5: create: path \"/dataset1/x.txt\" is under /dataset1/"),
		Entry("the control API's path", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - create: {path: /_rsconform, type: text/plain}\n",
			"scenario.yaml:5: create: path \"/_rsconform\" is not a plain resource path"),
		Entry("a path with an unknown type", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - create: /res/x.weird\n",
			"scenario.yaml:5: create: cannot tell the media type"),
		Entry("both path and count", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - delete: {path: /res/0000001.html, count: 2}\n",
			"scenario.yaml:5: delete takes a path or a count"),
		Entry("an argument where none is taken", "name: x\nsteps:\n  - after: 1h\n    actions:\n      - close-changelist: now\n",
			"scenario.yaml:5: close-changelist takes no argument"),
		Entry("a bad deleted-status", "name: x\ndeleted-status: 403\n",
			"scenario.yaml:2: deleted-status must be 404 or 410"),
		Entry("a wrong type", "name: x\nresources:\n  count: many\n",
			`scenario.yaml:3: resources.count must be an integer, not "many"`),
		Entry("an empty document", "", "scenario.yaml: the scenario is empty"),
	)

	It("are all built in, documented, and load by name or file", func() {
		names := scenario.BuiltinNames()
		Expect(len(names)).To(BeNumerically(">=", 10))
		Expect(names).To(ContainElements("baseline-resourcelist", "baseline-resourcedump", "incremental-changelist",
			"changelist-rollover", "multiple-changes-one-resource", "create-update-delete", "incremental-changedump",
			"large-source", "flaky-server", "wrong-hash", "catch-up-archive"))
		for _, n := range names {
			sc, err := scenario.Load(n)
			Expect(err).NotTo(HaveOccurred(), n)
			Expect(sc.Name).To(Equal(n))
			Expect(len(sc.Description)).To(BeNumerically(">", 60), n)
			Expect(sc.Steps).NotTo(BeEmpty(), n)
		}
		f := filepath.Join(GinkgoT().TempDir(), "mine.yaml")
		Expect(os.WriteFile(f, exampleYAML(), 0o644)).To(Succeed())
		sc, err := scenario.Load(f)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.File).To(Equal(f))
		_, err = scenario.Load("no-such-scenario")
		Expect(err).To(MatchError(ContainSubstring("neither a built-in scenario")))
		bad := filepath.Join(GinkgoT().TempDir(), "bad.yaml")
		Expect(os.WriteFile(bad, []byte(strings.Replace(string(exampleYAML()), "publish-resourcedump", "publish-resourcedumb", 1)), 0o644)).To(Succeed())
		_, err = scenario.Load(bad)
		Expect(err).To(MatchError(HavePrefix(bad + `:22: unknown action "publish-resourcedumb"`)))
	})

	It("refuses a scenario file it would not read whole, before reading it", func() {
		_, err := scenario.Load(os.DevNull)
		Expect(err).To(MatchError(os.DevNull + ": the scenario file is a character device, not a regular file: refused"))
		big := filepath.Join(GinkgoT().TempDir(), "big.yaml")
		Expect(os.WriteFile(big, exampleYAML(), 0o644)).To(Succeed())
		Expect(os.Truncate(big, scenario.MaxFileBytes+1)).To(Succeed())
		_, err = scenario.Load(big)
		Expect(err).To(MatchError(big + ": the scenario file is larger than 4 MiB, more than any scenario file needs: refused"))
	})
})

var _ = Describe("Resource names and sizes a scenario may give (issue 24)", func() {
	It("refuses scenario paths whose escapes could give two paths one key", func() {
		for path, msg := range map[string]string{
			"/res/a%2fb.txt":      "upper case",
			"/res/%61.txt":        "written plain",
			"/res/a%2.txt":        "does not start an escape",
			"/res/a b.txt":        "use letters, digits",
			"/res/q.txt?":         "empty query",
			"/res/q.txt?a b":      "query",
			"/res/caf\u00e9 .txt": "use letters",
			// A query's escapes are held to the same rule.
			"/res/q.txt?a=%2f": "upper case",
			"/res/q.txt?a=%41": "written plain",
			"/res/q.txt?a=%2":  "does not start an escape",
			"/res/q.txt?a=:b":  "use letters, digits, . _ - ~ = & and %XX escapes",
		} {
			_, err := scenario.Parse("s.yaml", []byte("name: s\nsteps:\n  - after: 1h\n    actions:\n      - create: {path: \""+path+"\", type: text/plain}\n"))
			Expect(err).To(HaveOccurred(), "%s", path)
			Expect(err.Error()).To(ContainSubstring(msg), "%s", path)
		}
	})

	It("refuses a size beyond 64 MiB or without a number", func() {
		for _, size := range []string{"65MiB", "0", "big", "-1"} {
			_, err := scenario.Parse("s.yaml", []byte("name: s\nsteps:\n  - after: 1h\n    actions:\n      - create: {path: /res/a.bin, size: "+size+"}\n"))
			Expect(err).To(MatchError(ContainSubstring("size must be a byte count")), size)
		}
	})
})
