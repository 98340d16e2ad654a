package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// Rules of two test profiles, which no document of the other tests is
// checked under: two rules that require the same value, and one that
// reads it without requiring it.
const (
	specShared     engine.Spec = "test-shared-values"
	specUnrequired engine.Spec = "test-unrequired-value"
)

var computed atomic.Int64

var testLoc = engine.NewEntryValue("the entry's <loc>, counted", func(e *rs.Entry, _ string) string {
	computed.Add(1)
	return e.Loc
})

func readsLoc(p *engine.Pass) error {
	for e := range p.Entries() {
		if got := testLoc.Of(p, e); got != e.Loc {
			p.Reportf(e.Pos, "value %q for the entry of %q", got, e.Loc)
		}
	}
	return nil
}

var _ = func() bool {
	for i, id := range []string{"RS-TEST-VALUE-A", "RS-TEST-VALUE-B"} {
		engine.Register(&engine.Rule{ID: id, Section: "7", Level: engine.Info, Title: "reads a shared value " + fmt.Sprint(i),
			Scope: engine.ScopeEntries, Specs: []engine.Spec{specShared}, Requires: []engine.Value{testLoc}, Check: readsLoc})
	}
	engine.Register(&engine.Rule{ID: "RS-TEST-VALUE-UNREQUIRED", Section: "7", Level: engine.Info, Title: "reads a value it does not require",
		Scope: engine.ScopeEntries, Specs: []engine.Spec{specUnrequired}, Check: readsLoc})
	return true
}()

var _ = Describe("Values the rules share (Rule.Requires)", func() {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:ln rel="up" href="http://example.com/capabilitylist.xml"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`)
	const n = 1000
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>http://example.com/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>")
	doc := []byte(b.String())

	It("are computed once per entry for every rule that requires them while a document is read", func() {
		v := &engine.Validator{Config: engine.Config{Spec: specShared}, Schema: frontend.Must()}
		computed.Store(0)
		res := v.ValidateBytes(context.Background(), "t.xml", doc)
		Expect(res.Status).To(Equal(engine.StatusValid), describe(res))
		Expect(res.Applied).To(ContainElements("RS-TEST-VALUE-A", "RS-TEST-VALUE-B"))
		Expect(computed.Load()).To(BeEquivalentTo(n))
	})

	It("are computed by each rule, once per entry, when the document is checked whole", func() {
		v := &engine.Validator{Config: engine.Config{Spec: specShared}, Schema: frontend.Must()}
		computed.Store(0)
		res, _ := v.ValidateDoc(context.Background(), "t.xml", doc)
		Expect(res.Status).To(Equal(engine.StatusValid), describe(res))
		Expect(computed.Load()).To(BeEquivalentTo(2 * n))
	})

	It("are refused to a rule that does not require them, streamed or whole", func() {
		v := &engine.Validator{Config: engine.Config{Spec: specUnrequired}, Schema: frontend.Must()}
		streamed := v.ValidateBytes(context.Background(), "t.xml", doc)
		whole, _ := v.ValidateDoc(context.Background(), "t.xml", doc)
		for _, res := range []engine.Result{streamed, whole} {
			Expect(res.Status).To(Equal(engine.StatusError))
			Expect(res.Error).To(ContainSubstring("rule RS-TEST-VALUE-UNREQUIRED could not run"))
			Expect(res.Error).To(ContainSubstring("which it does not require"))
		}
	})
})
