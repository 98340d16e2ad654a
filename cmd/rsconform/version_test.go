package main

import (
	"runtime/debug"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("rsconform version", func() {
	It("prints the module version and the VCS commit of the build", func() {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rsconform/rsconform", Version: "v0.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "c614ace57941"}, {Key: "vcs.time", Value: "2026-11-24T00:30:00Z"}, {Key: "vcs.modified", Value: "true"}}}
		Expect(buildLines(bi)).To(Equal([]string{
			"module:  github.com/rsconform/rsconform v0.2.0",
			"commit:  c614ace57941+dirty (2026-11-24T00:30:00Z)",
			"go:      go1.26.8",
		}))
	})

	It("falls back to the commit stamped with -ldflags, and says when there is none", func() {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rsconform/rsconform", Version: "(devel)"}}
		Expect(buildLines(bi)[1]).To(Equal("commit:  unknown (built without VCS information)"))
		defer func(c string) { commit = c }(commit)
		commit = "0123abc"
		Expect(buildLines(bi)[1]).To(Equal("commit:  0123abc"))
		Expect(buildLines(nil)).To(Equal([]string{"build:   no build information"}))
	})

	It("prints them from the running binary", func() {
		code, out, _ := cli("version")
		Expect(code).To(Equal(0))
		Expect(out).To(MatchRegexp(`(?m)^rsconform \S+ \(ResourceSync 1.1`))
		Expect(out).To(MatchRegexp(`(?m)^module:  github.com/rsconform/rsconform `))
		Expect(out).To(MatchRegexp(`(?m)^commit:  `))
	})
})
