package monitor

import (
	"strings"
	"testing"
)

func TestSourceNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"demo-1.x_y", true},
		{strings.Repeat("a", 100), true},
		{strings.Repeat("a", 101), false},
		{"-a", false},
		{".a", false},
		{"a/b", false},
		{"a b", false},
		{"", false},
	} {
		data := "sources:\n  - name: \"" + tc.name + "\"\n    url: http://127.0.0.1:1/\n"
		_, err := ParseSourcesFile("sources.yaml", []byte(data))
		if (err == nil) != tc.ok {
			t.Errorf("name %q: err %v, want accepted %v", tc.name, err, tc.ok)
		}
	}
}
