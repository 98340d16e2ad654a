package engine_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
)

// validatorFor builds the validator a fixture asks for.
func validatorFor(f fixtures.Fixture) *engine.Validator {
	sv, err := frontend.New()
	Expect(err).NotTo(HaveOccurred())
	cfg := engine.Config{Limits: engine.Limits{MaxEntries: f.Options.MaxEntries, MaxBytes: f.Options.MaxSize}}
	if f.Options.Spec != "" {
		spec, err := engine.ParseSpec(f.Options.Spec)
		Expect(err).NotTo(HaveOccurred())
		cfg.Spec = spec
	}
	return &engine.Validator{Config: cfg, Schema: sv}
}

func got(res engine.Result) []fixtures.Want {
	var out []fixtures.Want
	for _, d := range res.Diagnostics {
		out = append(out, fixtures.Want{Rule: d.Rule, Line: d.Location.Line})
	}
	return out
}

func describe(res engine.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s, kind %s", res.Status, res.Kind)
	if res.Error != "" {
		fmt.Fprintf(&b, ", error: %s", res.Error)
	}
	for _, d := range res.Diagnostics {
		fmt.Fprintf(&b, "\n  %d:%d %s %s", d.Location.Line, d.Location.Column, d.Rule, d.Message)
	}
	return b.String()
}

var _ = Describe("Fixtures", func() {
	all, err := fixtures.All()
	It("load", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(all).NotTo(BeEmpty())
	})
	for _, f := range all {
		It("report exactly what "+f.Path+" wants", func() {
			res := validatorFor(f).ValidateBytes(context.Background(), f.Path, f.Data)
			missing, unexpected := fixtures.Compare(f.Want, got(res))
			Expect(missing).To(BeEmpty(), "missing findings in %s; got %s", f.Path, describe(res))
			Expect(unexpected).To(BeEmpty(), "unexpected findings in %s; got %s", f.Path, describe(res))
			if res.Status == engine.StatusError {
				Expect(f.Want).To(ContainElement(HaveField("Rule", "RS-XML-WELLFORMED")), "status error without a wanted well-formedness finding: %s", describe(res))
			}
		})
	}
})
