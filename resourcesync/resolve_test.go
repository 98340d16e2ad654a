package resourcesync_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var _ = DescribeTable("Resolve: the URL a link stands for",
	func(base, ref, want string) { Expect(rs.Resolve(base, ref)).To(Equal(want)) },
	Entry("relative to the document", "http://e.com/a/cl.xml", "rl.xml", "http://e.com/a/rl.xml"),
	Entry("absolute, white space around it", "http://e.com/a/cl.xml", "  https://f.org/x ", "https://f.org/x"),
	Entry("without its fragment", "http://e.com/a/cl.xml", "/p.zip#manifest.xml", "http://e.com/p.zip"),
	Entry("empty", "http://e.com/", "", ""),
	Entry("malformed", "http://e.com/", "http://[::1", ""),
)
