package resourcesync

import (
	"fmt"
	"strings"
	"testing"
)

// attrs is a start tag of n attributes, namespace declarations first.
func attrs(name string, n int) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&b, "\n  xmlns:p%d='urn:%d'", i, i)
		} else {
			fmt.Fprintf(&b, ` p%d:a="v>%d"`, i-1, i)
		}
	}
	return b.String() + "/>"
}

func TestAttrCounter(t *testing.T) {
	const head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset a=\"1\" b='2'>\n"
	for _, tc := range []struct {
		name string
		doc  string
		at   Pos // zero: not refused
	}{
		{"at the limit", head + "<url>" + attrs("rs:md", 256) + "</url></urlset>", Pos{}},
		{"over the limit", head + "<url>" + attrs("rs:md", 257) + "</url></urlset>", Pos{Line: 3, Column: 6}},
		{"far over the limit, on one line", head + " " + strings.ReplaceAll(attrs("x", 5000), "\n", " "), Pos{Line: 3, Column: 2}},
		{"quotes in a comment, a CDATA section, a PI, text and an end tag",
			head + "<!-- " + strings.Repeat(`"a" 'b' -> `, 300) + "-->" +
				"<loc><![CDATA[" + strings.Repeat(`x="1" ]] ]>`, 300) + "]]></loc>" +
				"<?pi " + strings.Repeat(`a="1" ? >`, 300) + "?>" +
				strings.Repeat(`"text' `, 300) + "</url " + strings.Repeat(`"'`, 300) + ">" +
				"<!DOCTYPE x SYSTEM " + strings.Repeat(`"a"`, 300) + ">" +
				"</urlset>", Pos{}},
		{"after a comment full of quotes", head + "<!--" + strings.Repeat(`"`, 1000) + "-->\n\n  " + attrs("rs:ln", 300), Pos{Line: 5, Column: 3}},
	} {
		// Whole, then in pieces of every size up to 7 bytes, and of 4 KiB.
		for _, size := range []int{len(tc.doc), 1, 2, 3, 5, 7, 4096} {
			c := AttrCounter{Limit: MaxAttributes}
			var err *AttrLimitError
			for i := 0; i < len(tc.doc) && err == nil; i += size {
				err = c.Scan([]byte(tc.doc[i:min(i+size, len(tc.doc))]))
			}
			switch {
			case tc.at == Pos{} && err != nil:
				t.Errorf("%s, pieces of %d: refused: %v", tc.name, size, err)
			case tc.at != Pos{} && err == nil:
				t.Errorf("%s, pieces of %d: not refused", tc.name, size)
			case tc.at != Pos{} && err.Pos != tc.at:
				t.Errorf("%s, pieces of %d: refused at %v, want %v", tc.name, size, err.Pos, tc.at)
			}
			if err != nil && c.Scan([]byte("<a/>")) == nil {
				t.Errorf("%s, pieces of %d: the refusal is forgotten", tc.name, size)
			}
		}
	}
}
