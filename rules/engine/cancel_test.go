package engine_test

import (
	"context"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// cancelAfterRead is a front end that reads the whole document, then
// cancels: the caller is gone once the document is read, before its rules
// are done.
type cancelAfterRead struct {
	engine.FrontEnd
	cancel context.CancelFunc
}

func (f cancelAfterRead) ReadFrom(ctx context.Context, r io.Reader, opts engine.ReadOptions) (*rs.Document, []engine.SchemaError, error) {
	doc, errs, err := f.FrontEnd.ReadFrom(ctx, r, opts)
	f.cancel()
	return doc, errs, err
}

var _ = Describe("A cancelled context", func() {
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="changelist" from="2013-01-01T00:00:00Z"/>
`)
	for i := range 600 {
		doc.WriteString(`<url><loc>http://example.com/r` + strings.Repeat("x", i%7) + `</loc><rs:md change="updated" datetime="2013-01-02T10:00:00Z"/></url>` + "\n")
	}
	doc.WriteString("</urlset>\n")

	DescribeTable("stops the rules that run once the document is read: the result is ctx's error, never a verdict",
		func(validate func(v *engine.Validator, ctx context.Context) engine.Result) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			v := &engine.Validator{Schema: cancelAfterRead{frontend.Must(), cancel}}
			res := validate(v, ctx)
			Expect(res.Status).To(Equal(engine.StatusError))
			Expect(res.Error).To(ContainSubstring(context.Canceled.Error()))
			Expect(res.Diagnostics).To(BeEmpty())

			// Not cancelled, the same document gets a verdict.
			res = validate(&engine.Validator{Schema: frontend.Must()}, context.Background())
			Expect(res.Status).NotTo(Equal(engine.StatusError), res.Error)
		},
		Entry("streamed (ValidateBytes)", func(v *engine.Validator, ctx context.Context) engine.Result {
			return v.ValidateBytes(ctx, "cl.xml", []byte(doc.String()))
		}),
		Entry("streamed from a reader (ValidateReader)", func(v *engine.Validator, ctx context.Context) engine.Result {
			return v.ValidateReader(ctx, "cl.xml", strings.NewReader(doc.String()))
		}),
		Entry("the whole model kept (ValidateDoc)", func(v *engine.Validator, ctx context.Context) engine.Result {
			res, _ := v.ValidateDoc(ctx, "cl.xml", []byte(doc.String()))
			return res
		}),
	)
})
