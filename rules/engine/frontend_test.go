package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing/iotest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/bench/benchdata"
	"github.com/rsconform/rsconform/internal/pieces"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// Issue 12: one XML front end decides well-formedness whatever rules are
// selected; selection only filters findings.
var _ = Describe("The XML front end", func() {
	const open = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`
	notWellFormed := map[string]string{
		"a duplicate attribute":              open + `<url><loc>http://example.com/a</loc><rs:md length="1" length="2"/></url></urlset>`,
		"an XML declaration after a newline": "\n" + `<?xml version="1.0" encoding="UTF-8"?>` + open + `<url><loc>http://example.com/a</loc></url></urlset>`,
		"a surrogate character reference":    open + `<url><loc>http://example.com/&#xD800;</loc></url></urlset>`,
		"an unbound prefix":                  open + `<url><loc>http://example.com/a</loc><x:y/></url></urlset>`,
	}
	sv, err := frontend.New()
	Expect(err).NotTo(HaveOccurred())
	for what, doc := range notWellFormed {
		for _, sel := range []string{"", "*", "*,-RS-XSD", "RS-XML-WELLFORMED", "RS-CL-*"} {
			It("refuses "+what+" under --rules '"+sel+"'", func() {
				cfg := engine.Config{}
				if sel != "" {
					s, err := engine.ParseSelector(sel)
					Expect(err).NotTo(HaveOccurred())
					cfg.Select = s
				}
				res, parsed := (&engine.Validator{Config: cfg, Schema: sv}).ValidateDoc(context.Background(), "t.xml", []byte(doc))
				Expect(res.Status).To(Equal(engine.StatusError), "%+v", res)
				Expect(res.Error).To(ContainSubstring("not a well-formed XML document"))
				Expect(parsed).To(BeNil())
			})
		}
	}
	It("reads a document without checking it (Parse) under the same verdict", func() {
		v := &engine.Validator{Schema: sv}
		for what, doc := range notWellFormed {
			_, err := v.Parse([]byte(doc))
			Expect(err).To(HaveOccurred(), what)
		}
		d, err := v.Parse([]byte(open + `<url><loc>http://example.com/a</loc></url></urlset>`))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Entries).To(HaveLen(1))
	})
	It("gives the same findings on a valid document with and without RS-XSD, but for RS-XSD", func() {
		doc := []byte(open + `<url><loc>http://example.com/a</loc><rs:md bogus="1" length="x"/></url></urlset>`)
		all := (&engine.Validator{Schema: sv}).ValidateBytes(context.Background(), "t.xml", doc)
		sel, err := engine.ParseSelector("*,-RS-XSD")
		Expect(err).NotTo(HaveOccurred())
		some := (&engine.Validator{Config: engine.Config{Select: sel}, Schema: sv}).ValidateBytes(context.Background(), "t.xml", doc)
		var want []engine.Diagnostic
		for _, d := range all.Diagnostics {
			if d.Rule != engine.SchemaRuleID {
				want = append(want, d)
			}
		}
		Expect(len(want)).To(BeNumerically("<", len(all.Diagnostics)))
		Expect(some.Diagnostics).To(Equal(want))
	})
})

// Issue 13: positions on a one-line document are right to the byte at its
// end (they used to be found by scanning back to the line's start, which
// also made validation quadratic in the line's length).
var _ = Describe("Positions on a one-line document", func() {
	// oneLine is a Resource List of n entries on one line whose last entry
	// has a bad lastmod and an unknown rs:md attribute.
	oneLine := func(n int) []byte {
		data := bytes.ReplaceAll(benchdata.ResourceList(n), []byte("\n"), nil)
		last := bytes.LastIndex(data, []byte("<url>"))
		entry := string(data[last:])
		entry = strings.Replace(entry, "<lastmod>2025-", "<lastmod>2025-13-", 1)
		entry = strings.Replace(entry, "<rs:md ", `<rs:md bogus="1" `, 1)
		return append(data[:last:last], entry...)
	}
	sv, err := frontend.New()
	Expect(err).NotTo(HaveOccurred())
	v := &engine.Validator{Schema: sv}

	It("are right to the byte for findings at the end of a 2,000-entry list on one line", func() {
		data := oneLine(2000)
		lastmod := bytes.LastIndex(data, []byte("<lastmod>"))
		md := bytes.LastIndex(data, []byte("<rs:md "))
		// Far past any 16-bit column and many times the 1000-byte reads.
		Expect(lastmod).To(BeNumerically(">", 500_000))

		whole := v.ValidateBytes(context.Background(), "one-line.xml", data)
		// Streamed, in reads of 1000 bytes: the tags' positions are found
		// across the chunks libxml2 is fed.
		streamed := v.ValidateReader(context.Background(), "one-line.xml", iotest.HalfReader(pieces.Reader(data, 1000)))
		Expect(streamed).To(Equal(whole))
		res := streamed
		Expect(res.Status).To(Equal(engine.StatusInvalid))
		at := map[string]int{}
		for _, d := range res.Diagnostics {
			Expect(d.Location.Line).To(Equal(1), "%+v", d)
			at[d.Rule] = d.Location.Column
		}
		Expect(at).To(HaveKeyWithValue(engine.SchemaRuleID, md+1))
		Expect(at).To(HaveKeyWithValue("RS-TIME-W3C", lastmod+1))
	})

	// The guard against quadratic time, measured against the machine's
	// own speed rather than the clock: eight times the line costs about
	// eight times the CPU when positions are counted forward, and 30 to
	// 60 times when each tag scans back to the line's start (that made
	// 5,000 entries take 5.7 s of CPU). The smaller run's best of three
	// is compared with the larger one's best of two.
	//
	// Only the front end's rule and the rule of the bad lastmod run: the
	// positions are the front end's, found for every tag whatever rules
	// run, and the other rules' linear time (most of it under -race) only
	// hid part of a quadratic front end's ratio and cost seconds.
	It("cost CPU time linear in the length of the line", func() {
		small, large := oneLine(1000), oneLine(8000)
		sel, err := engine.ParseSelector(engine.SchemaRuleID + ",RS-TIME-W3C")
		Expect(err).NotTo(HaveOccurred())
		v := &engine.Validator{Schema: sv, Config: engine.Config{Select: sel}}
		best := func(data []byte, runs int) time.Duration {
			var least time.Duration
			for i := 0; i < runs; i++ {
				start := cpuTime()
				res := v.ValidateBytes(context.Background(), "one-line.xml", data)
				spent := cpuTime() - start
				Expect(res.Status).To(Equal(engine.StatusInvalid))
				Expect(res.Diagnostics).To(HaveLen(2), "the bad lastmod and the unknown attribute: %+v", res.Diagnostics)
				if i == 0 || spent < least {
					least = spent
				}
			}
			return least
		}
		best(small, 1) // warm up
		ts, tl := best(small, 3), best(large, 2)
		ratio := float64(tl) / float64(ts)
		GinkgoWriter.Printf("1,000 entries %v, 8,000 entries %v: %.1fx\n", ts, tl, ratio)
		Expect(ratio).To(BeNumerically("<", 20), "1,000 entries %v, 8,000 entries %v", ts, tl)
	})
})

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	Expect(syscall.Getrusage(syscall.RUSAGE_SELF, &ru)).To(Succeed())
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Issue 13: ValidateReader reads the document as ValidateBytes does, without
// holding it: gzip, the size limit, a read error, the wording of a
// document that is not well-formed.
var _ = Describe("Streaming validation (ValidateReader)", func() {
	sv, err := frontend.New()
	Expect(err).NotTo(HaveOccurred())
	data := benchdata.ResourceList(500) // about 140 KB
	data = bytes.Replace(data, []byte("<lastmod>2025-"), []byte("<lastmod>2025-13-"), 1)
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}

	It("gives the same result for a gzipped document as for its bytes", func() {
		v := &engine.Validator{Schema: sv}
		want := v.ValidateBytes(context.Background(), "rl.xml", data)
		Expect(want.Status).To(Equal(engine.StatusInvalid))
		got, doc := v.ValidateStreamDoc(context.Background(), "rl.xml", bytes.NewReader(gz(data)))
		Expect(got).To(Equal(want))
		Expect(doc.Entries).To(HaveLen(500))
	})

	It("reports a document over the size limit, compressed or not, even when it is not well-formed early", func() {
		broken := append([]byte("<urlset><oops"), data...)
		v := &engine.Validator{Schema: sv, Config: engine.Config{Limits: engine.Limits{MaxBytes: 100_000}}}
		// With Source set, documents are read whole first, as before streaming.
		whole := &engine.Validator{Schema: sv, Config: v.Config, Source: func(string, []byte) {}}
		for _, in := range [][]byte{data, gz(data), broken, gz(broken)} {
			res := v.ValidateReader(context.Background(), "big.xml", bytes.NewReader(in))
			Expect(res).To(Equal(whole.ValidateReader(context.Background(), "big.xml", bytes.NewReader(in))))
			Expect(res.Diagnostics).To(ContainElement(HaveField("Rule", "RS-LIMIT-SIZE")))
		}
	})

	It("words a document that is not well-formed as ValidateBytes does", func() {
		broken := append(data[:len(data)-200:len(data)-200], "<url></urlset>"...)
		v := &engine.Validator{Schema: sv}
		want := v.ValidateBytes(context.Background(), "b.xml", broken)
		Expect(want.Status).To(Equal(engine.StatusError))
		got, doc := v.ValidateStreamDoc(context.Background(), "b.xml", bytes.NewReader(gz(broken)))
		Expect(got).To(Equal(want))
		Expect(doc).To(BeNil())
	})

	It("reports a read error with where it happened", func() {
		r := io.MultiReader(bytes.NewReader(data[:100_000]), iotest.ErrReader(errors.New("connection reset")))
		res := (&engine.Validator{Schema: sv}).ValidateReader(context.Background(), "r.xml", r)
		Expect(res.Status).To(Equal(engine.StatusError))
		Expect(res.Error).To(Equal(fmt.Sprintf("cannot read: after 100000 bytes (line %d): connection reset", bytes.Count(data[:100_000], []byte("\n"))+1)))
	})
})
