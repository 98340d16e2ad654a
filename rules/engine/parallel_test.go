package engine_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

var _ = Describe("Rules of a large document", func() {
	It("run on all cores and give the same findings, in the same order, every time", func() {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="changelist" from="2013-01-01T00:00:00Z"/>
`)
		// 2,000 entries: the least that runs the rules on all cores
		// (parallelEntries).
		for i := 0; i < 2000; i++ {
			minute := i % 60 // out of order every 60 entries
			hash := "md5:1584abdf8ebdc9802ac0c6a7402c03b6"
			if i%500 == 0 {
				hash = "md5:nothex"
			}
			fmt.Fprintf(&b, `<url><loc>http://example.com/r%d</loc><rs:md change="updated" datetime="2013-01-02T10:%02d:00Z" hash=%q type="text/html"/></url>`+"\n", i, minute, hash)
		}
		b.WriteString("</urlset>\n")
		doc, err := rs.ParseBytes([]byte(b.String()))
		Expect(err).NotTo(HaveOccurred())
		first := engine.Run("x.xml", engine.Input{Doc: doc}, engine.Config{})
		Expect(first.Diagnostics).NotTo(BeEmpty())
		ids := map[string]int{}
		for _, d := range first.Diagnostics {
			ids[d.Rule]++
		}
		Expect(ids["RS-HASH-SYNTAX"]).To(Equal(4))
		Expect(ids["RS-CL-ORDER"]).To(BeNumerically(">", 1500))
		for i := 0; i < 5; i++ {
			Expect(engine.Run("x.xml", engine.Input{Doc: doc}, engine.Config{})).To(Equal(first))
		}
	})
})
