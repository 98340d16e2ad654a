package inputs

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
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
			out = append(out, Input{Name: at(r), Walked: true, Size: 9}) // "<urlset/>"
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
			want: []Input{{Name: at("notes.txt"), Size: 9}, {Name: "https://example.org/cl.xml"}, {Name: "-"}}},
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

// ValidateAll is a library function: it reads documents with the workers
// it is given and leaves the process's GOMAXPROCS alone (the command
// sets it, cmd/rsconform/validate.go).
func TestValidateAllLeavesGOMAXPROCS(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // as in a run where the user did not set it
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	dir := t.TempDir()
	var ins []Input
	for _, name := range []string{"a.xml", "b.xml", "c.xml"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://example.com/`+name+`</loc></url></urlset>`), 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Name: p})
	}
	ins = append(ins, Input{Name: filepath.Join(dir, "skipped.txt"), Skip: "not XML"})
	v := &engine.Validator{Schema: frontend.Must()}
	results := ValidateAll(context.Background(), v, nil, ins, 2)
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after ValidateAll, was %d", got, before)
	}
	if len(results) != len(ins) {
		t.Fatalf("%d results for %d inputs", len(results), len(ins))
	}
	for i, r := range results {
		if r.Location != ins[i].Name {
			t.Errorf("result %d is of %q, want %q (input order)", i, r.Location, ins[i].Name)
		}
	}
	if results[3].Status != engine.StatusSkipped {
		t.Errorf("the skipped input: %v", results[3].Status)
	}
}

func TestInlineFrom(t *testing.T) {
	for _, tc := range []struct {
		size    []int64 // 0: not a file (standard input, a URL, skipped)
		workers int
		want    string // one letter an input: i(nline) or a(t once)
	}{
		{[]int64{10}, 2, "a"}, // a single document: the front end's goroutines use the CPUs
		{[]int64{10}, 1, "i"}, // one CPU: always inline
		{[]int64{10, 10}, 2, "ia"},
		{[]int64{10, 10, 10, 10, 10, 10, 10, 10}, 2, "iiiiiiia"}, // the last one gets the CPU the others leave
		{[]int64{10, 10, 10}, 1, "iii"},
		{[]int64{10, 10, 10, 10}, 4, "iaaa"}, // the three after the first hold three times it
		{[]int64{10, 10, 10, 10, 10, 10}, 4, "iiiaaa"},
		{[]int64{1000, 10}, 2, "aa"}, // a large list before a small file
		{[]int64{10, 1000}, 2, "ia"},
		{[]int64{1000, 400, 400, 400}, 2, "iiia"},
		{[]int64{10, 0, 0, 0}, 2, "aaaa"}, // standard input and URLs are never inline, nor counted
		{[]int64{10, 0, 10}, 2, "iaa"},
	} {
		ins := make([]Input, len(tc.size))
		for i, n := range tc.size {
			ins[i] = Input{Name: "x.xml", Size: n}
		}
		got := ""
		for _, in := range inlineFrom(ins, tc.workers) {
			if in {
				got += "i"
			} else {
				got += "a"
			}
		}
		if got != tc.want {
			t.Errorf("%v, %d workers: %s, want %s", tc.size, tc.workers, got, tc.want)
		}
	}
}

// Expand gives regular files their size, and 0 to what is not one; a
// skipped input is not counted by inlineFrom.
func TestExpandSizes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.xml")
	if err := os.WriteFile(p, []byte("<urlset/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "b.xml"), []byte("<urlset></urlset>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := Expand([]string{p, "-", "https://example.com/a.xml", sub, filepath.Join(dir, "gone.xml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, in := range ins {
		got = append(got, in.Size)
	}
	if want := []int64{9, 0, 0, 17, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("sizes %v, want %v", got, want)
	}
	if inl := inlineFrom([]Input{{Name: p, Size: 10}, {Name: "s.xml", Size: 10, Skip: "not XML"}}, 2); inl[0] || inl[1] {
		t.Errorf("inline %v: a skipped input counted", inl)
	}
}
