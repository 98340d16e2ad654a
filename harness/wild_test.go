package harness

import (
	"strings"
	"testing"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

func TestTokenSentOnHandBuiltSteps(t *testing.T) {
	withToken := &scenario.Scenario{Wild: scenario.Wild{BearerToken: "t0k"}}
	tests := []struct {
		name   string
		edit   func(*Step)
		status Status
		actual string
	}{
		{"no token wanted", func(st *Step) { st.Requests = []mocksource.Request{get("/a.txt", 200, 0)} }, Skip, "wants no token"},
		{"no request", func(st *Step) { st.Scenario = withToken }, NotObserved, "no request"},
		{"every request with it", func(st *Step) {
			st.Scenario = withToken
			st.Requests = []mocksource.Request{get("/.well-known/resourcesync", 200, 0), get("/a.txt", 200, 1)}
		}, Pass, "all of them"},
		{"one without it", func(st *Step) {
			st.Scenario = withToken
			st.Requests = []mocksource.Request{get("/.well-known/resourcesync", 401, 0), get("/.well-known/resourcesync", 200, 1)}
		}, Fail, "1 request of 2 without it (answered 401): GET /.well-known/resourcesync 401"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := baseStep()
			tc.edit(st)
			o := TokenSent.Check(st)
			if o.Status != tc.status || !strings.Contains(o.Actual, tc.actual) {
				t.Errorf("got %s %q, want %s with %q", o.Status, o.Actual, tc.status, tc.actual)
			}
			if o.Status == Pass && len(o.Evidence) == 0 {
				t.Errorf("a pass without evidence")
			}
		})
	}
}
