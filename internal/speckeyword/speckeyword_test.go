package speckeyword

import (
	"regexp"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
)

func TestStrongest(t *testing.T) {
	for quote, want := range map[string]Class{
		"A Capability List must only contain one entry per capability.":            Must,
		"This attribute is mandatory in Source Descriptions and Capability Lists.": Must,
		"If the Change List is closed the use of <until> is required.":             Must,
		"The Destination SHALL NOT fetch it.":                                      Must,
		"it should be published at the well-known URI":                             Should,
		"The ResourceSync framework recommends the use of the ZIP file format":     Should,
		"a Destination ought to wait":                                              Should,
		"This attribute may be used in Change Lists":                               May,
		"pri – An optional attribute used to express a priority":                   May,
		"If required, the inter-relationship between the resources is expressed":   None,
		"Valid values range from 0.0 to 1.0.":                                      None,
		"「Change Dump Archive」のポインタは、時系列でなければなりません。":                               Must,
		"「Resource List Archive Index」が存在する場合には、<rs:ln>が強く推奨され":                    Should,
		"対応するアーカイブへのリンクを提供することができます":                                               May,
		"The mustard is yellow; the shoulder hurts; a canal.":                      None,
		"A Source must publish ..., and it should be published at":                 Must,
	} {
		if got := Strongest(quote); got != want {
			t.Errorf("Strongest(%q) = %v, want %v", quote, got, want)
		}
	}
}

func TestCarries(t *testing.T) {
	for _, c := range []struct {
		quote string
		class Class
		want  bool
	}{
		{"A Source must publish ..., and it should be published at", Should, true},
		{"A Source must publish ..., and it should be published at", Must, true},
		{"A Source must publish a Source Description", Should, false},
		{"Valid values range from 0.0 to 1.0.", Must, false},
		{"Valid values range from 0.0 to 1.0.", None, true},
		{"This attribute may be used", None, false},
		{"This attribute may be used", May, true},
	} {
		if got := Carries(c.quote, c.class); got != c.want {
			t.Errorf("Carries(%q, %v) = %v, want %v", c.quote, c.class, got, c.want)
		}
	}
	for c, want := range map[Class]string{None: "none", May: "may", Should: "should", Must: "must"} {
		if c.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(c), c, want)
		}
	}
}

// The words are read as the regular expressions they replace read them.
func TestAsTheRegularExpressions(t *testing.T) {
	re := map[Class]*regexp.Regexp{
		Must:   regexp.MustCompile(`(?i)\b(must|shall|mandatory|is required)\b|なければなりません|なければならない|必須`),
		Should: regexp.MustCompile(`(?i)\b(should|recommended|recommends|ought to)\b|すべき|べきで|推奨`),
		May:    regexp.MustCompile(`(?i)\b(may|optional|can)\b|できます|してもよい|任意`),
	}
	for _, s := range []string{
		"", "must", "MUST", "Must.", "(must)", "must_", "_must", "1must", "must1", "mustard", "a must", "amust",
		"is required", "IS Required", "is  required", "is\trequired", "this required", "is requiredness",
		"ought to", "ought  to", "oughtto", "Recommended", "recommends", "recommend", "should've",
		"can", "can't", "cannot", "scan", "May", "mayor", "optional", "optionally", "SHALL NOT",
		"éshall", "shallé", "必須です", "推奨", "することができます", "してもよい", "任意の", "なければならない",
		"mandatory\n", "\nmay", "x\x00must", "mu-st", "must\u00a0", "\u00a0must",
	} {
		for c, r := range re {
			if got, want := Carries(s, c), r.MatchString(s); got != want {
				t.Errorf("Carries(%q, %v) = %v, the regular expression says %v", s, c, got, want)
			}
		}
	}
}
