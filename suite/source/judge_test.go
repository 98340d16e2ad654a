package source

import (
	"strings"
	"testing"

	"github.com/rsconform/rsconform/rules/engine"
)

// An informative rule's finding is shown and fails its spec only when
// --fail-level says info; a SHOULD finding fails by default, and not at
// --fail-level error.
func TestJudgeFailLevel(t *testing.T) {
	info := &engine.Rule{ID: "RS-REP-LASTMOD", Section: "7", Level: engine.Info, Title: "t"}
	should := &engine.Rule{ID: "RS-TIME-UTC", Section: "7", Level: engine.Should, Title: "t"}
	findings := map[string][]engine.Diagnostic{
		info.ID:   {{Rule: info.ID, Severity: engine.SeverityInfo, Message: "<lastmod> differs"}},
		should.ID: {{Rule: should.ID, Severity: engine.SeverityWarning, Message: "not UTC"}},
	}
	for _, c := range []struct {
		level        engine.Severity
		info, should Verdict
	}{
		{"", VerdictPass, VerdictFail},
		{engine.SeverityWarning, VerdictPass, VerdictFail},
		{engine.SeverityError, VerdictPass, VerdictPass},
		{engine.SeverityInfo, VerdictFail, VerdictFail},
	} {
		o := &Outcome{findings: findings, applied: map[string]bool{info.ID: true, should.ID: true}, failLevel: c.level}
		for _, rc := range []struct {
			r    *engine.Rule
			want Verdict
		}{{info, c.info}, {should, c.should}} {
			v, msg := o.Judge(rc.r)
			if v != rc.want {
				t.Errorf("--fail-level %q, %s: verdict %v, want %v", c.level, rc.r.ID, v, rc.want)
			}
			if !strings.Contains(msg, findings[rc.r.ID][0].Message) {
				t.Errorf("--fail-level %q, %s: the message does not show the finding: %q", c.level, rc.r.ID, msg)
			}
		}
	}
}
