package inputs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.xml", "a.xml.gz", "notes.txt", ".well-known/resourcesync", "drafts/c.xml", "news/d.xml"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("<urlset/>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	walked := func(rels ...string) []Input {
		var out []Input
		for _, r := range rels {
			out = append(out, Input{Name: at(r), Walked: true})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		args    []string
		exclude []string
		want    []Input
		err     string
	}{
		{name: "a directory, walked in lexical order", args: []string{dir},
			want: walked(".well-known/resourcesync", "a.xml.gz", "b.xml", "drafts/c.xml", "news/d.xml")},
		{name: "a name and a path excluded", args: []string{dir}, exclude: []string{"drafts", "news/*.xml"},
			want: walked(".well-known/resourcesync", "a.xml.gz", "b.xml")},
		{name: "named files, URLs and stdin as given", args: []string{at("notes.txt"), "https://example.org/cl.xml", "-"},
			want: []Input{{Name: at("notes.txt")}, {Name: "https://example.org/cl.xml"}, {Name: "-"}}},
		{name: "an exclude that matches nothing", args: []string{dir}, exclude: []string{"draft"},
			err: `--exclude "draft" matches nothing in ` + dir + ` (did you mean drafts?)`},
		{name: "a directory left empty", args: []string{dir}, exclude: []string{"*.xml", "*.gz", "resourcesync"},
			err: "no *.xml, *.xml.gz or .well-known/resourcesync file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.args, tc.exclude)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestCheckGlobs(t *testing.T) {
	if err := CheckGlobs([]string{"*.xml", "news/[a-z]*.xml"}); err != nil {
		t.Errorf("good globs refused: %v", err)
	}
	if err := CheckGlobs([]string{"news/[a-z.xml"}); err == nil {
		t.Error("a malformed glob accepted")
	}
}
