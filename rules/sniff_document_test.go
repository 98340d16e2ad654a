package rules_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules/graph"
)

var _ = DescribeTable("SniffDocument tells a ResourceSync document from the start of a body",
	func(head, want string) { Expect(graph.SniffDocument([]byte(head))).To(Equal(want)) },
	Entry("a Resource List", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, "urlset resourcelist"),
	Entry("a Change List Index, another prefix", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:x="http://www.openarchives.org/rs/terms/">`+"\n"+`<x:md capability='changelist'/>`, "sitemapindex changelist"),
	Entry("a plain Sitemap", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://example.com/</loc></url></urlset>`, ""),
	Entry("text that mentions urlset", `the <urlset> element, capability="resourcelist"`, ""),
	Entry("an unknown capability", `<urlset><rs:md capability="bogus"/>`, ""),
	Entry("gzip", "\x1f\x8b\x08\x00", ""),
)
