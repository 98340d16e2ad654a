package schema

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lestrrat-go/libxml2/xsd"
)

// The self-test fails when rs.xsd is not imported: sitemap.xsd alone takes
// rs:md and rs:ln through lax wildcards, so only the entry without loc
// fails.
func TestSelfTestFailsWithoutRsXSD(t *testing.T) {
	if _, err := New(); err != nil { // the entity loader, and the real schemas pass
		t.Fatal(err)
	}
	lax := regexp.MustCompile(`(?s)<xs:import .*?/>`).ReplaceAll(sitemapXSD, nil)
	if len(lax) == len(sitemapXSD) {
		t.Fatal("no xs:import in sitemap.xsd")
	}
	s, err := xsd.Parse(lax, xsd.WithURI(sitemapURI))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	err = (&Validator{schema: s}).selfTest()
	if err == nil || !strings.Contains(err.Error(), "a document with unknown attribute on rs:md passes") {
		t.Fatalf("self-test with sitemap.xsd alone: %v", err)
	}
}

// Each defect must be found on its line, and nothing else anywhere.
func TestSelfTestVerdict(t *testing.T) {
	found := []Error{{Line: 6, Message: "a"}, {Line: 7, Message: "b"}, {Line: 7, Message: "c"}, {Line: 8, Message: "d"}}
	if err := selfTestVerdict(found); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		errs []Error
		want string
	}{
		{found[1:], "a document with unknown attribute on rs:md passes"},
		{[]Error{found[0], found[3]}, "a document with rs:ln without href passes"},
		{found[:3], "a document with url without loc passes"},
		{append([]Error{{Line: 5, Message: "bad md"}}, found...), "a valid document fails: line 5: bad md"},
		{append(found, Error{Line: 2, Message: "parse", Parse: true}), "a valid document fails: line 2: parse"},
		{nil, "a document with unknown attribute on rs:md passes"},
	} {
		if err := selfTestVerdict(c.errs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.errs, err, c.want)
		}
	}
}
