package reporter

import (
	"bytes"
	"io"
	"os"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/rules/engine"
)

// fakeEnv is a process environment with a terminal or not.
func fakeEnv(vars map[string]string, terminal bool) env {
	return env{
		getenv:     func(k string) string { return vars[k] },
		isTerminal: func(io.Writer) bool { return terminal },
	}
}

// Dot-importing ginkgo here would clash with Reporter.
var _ = g.Describe("useColor", func() {
	g.DescribeTable("decides colour from the mode, the writer and the environment",
		func(mode string, vars map[string]string, terminal, want bool) {
			got, err := useColor(mode, &bytes.Buffer{}, fakeEnv(vars, terminal))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		g.Entry("auto on a terminal", "auto", nil, true, true),
		g.Entry("empty means auto", "", nil, true, true),
		g.Entry("auto off a terminal", "auto", nil, false, false),
		g.Entry("auto honours NO_COLOR", "auto", map[string]string{"NO_COLOR": "1"}, true, false),
		g.Entry("auto ignores an empty NO_COLOR", "auto", map[string]string{"NO_COLOR": ""}, true, true),
		g.Entry("auto honours TERM=dumb", "auto", map[string]string{"TERM": "dumb"}, true, false),
		g.Entry("always wins over NO_COLOR", "always", map[string]string{"NO_COLOR": "1"}, false, true),
		g.Entry("never on a terminal", "never", nil, true, false),
	)

	g.It("refuses an unknown mode", func() {
		_, err := useColor("yes", &bytes.Buffer{}, fakeEnv(nil, true))
		Expect(err).To(HaveOccurred())
	})

	g.It("takes a bytes.Buffer and a regular file for what they are: not terminals", func() {
		Expect(isTerminal(&bytes.Buffer{})).To(BeFalse())
		f, err := os.CreateTemp(g.GinkgoT().TempDir(), "report")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		Expect(isTerminal(f)).To(BeFalse())
		var nilFile *os.File
		Expect(isTerminal(nilFile)).To(BeFalse())
	})

	g.It("colours the text report on a terminal unless NO_COLOR is set", func() {
		for _, c := range []struct {
			vars map[string]string
			want bool
		}{{nil, true}, {map[string]string{"NO_COLOR": "1"}, false}} {
			var buf bytes.Buffer
			t, err := newText(&buf, Options{Color: "auto"}, fakeEnv(c.vars, true))
			Expect(err).NotTo(HaveOccurred())
			Expect(t.Write(sampleInvalid)).To(Succeed())
			Expect(t.Flush()).To(Succeed())
			Expect(bytes.Contains(buf.Bytes(), []byte("\x1b["))).To(Equal(c.want), "NO_COLOR=%q", c.vars["NO_COLOR"])
		}
	})
})

var sampleInvalid = engine.Result{
	Location: "a.xml", Kind: "changelist", Status: engine.StatusInvalid,
	Diagnostics: []engine.Diagnostic{{Rule: "RS-XSD", Severity: engine.SeverityError, Section: "7", Message: "bad"}},
}
