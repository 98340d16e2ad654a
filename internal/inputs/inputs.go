// Package inputs holds the documents a validate run checks (rsconform
// validate PATH|URL|- ...): files named, directories walked for
// ResourceSync documents less what --exclude matches, URLs and standard
// input; and checks them, on all cores, in the order given.
package inputs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Input is one document to check. walked marks documents found in a
// directory (rather than named): those that are not ResourceSync at all
// are skipped, with the reason, instead of judged.
type Input struct {
	Name   string
	Walked bool
	Skip   string // why a walked file is not read, when it is not
	// Size is the file's size when Expand found a regular file (0: not
	// one, or not known), for the choice of documents read inline
	// (inlineFrom).
	Size int64
}

// Expand turns arguments into a list of documents: directories are
// walked, in lexical order, for *.xml, *.xml.gz and .well-known/resourcesync
// (the Source Description's well-known name, which has no extension), less
// what the exclude globs match. Explicitly named files are always checked.
func Expand(args []string, exclude []string) ([]Input, error) {
	var out []Input
	var dirs []string
	matched := make([]bool, len(exclude))
	// names and paths seen in the directories, for a did-you-mean on an
	// --exclude that matches nothing (bounded: it is only a hint).
	seen := map[string]bool{}
	for _, a := range args {
		if a == "-" || engine.IsURL(a) {
			out = append(out, Input{Name: a})
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			// A missing file is reported per document, so the others
			// still get checked.
			out = append(out, Input{Name: a, Size: regularSize(st, err)})
			continue
		}
		dirs = append(dirs, a)
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == a {
				return nil
			}
			if rel, err := filepath.Rel(a, p); err == nil && len(seen) < 10000 {
				seen[filepath.ToSlash(rel)], seen[d.Name()] = true, true
			}
			if excluded(exclude, matched, a, p) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && walkedDocument(p) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.xml, *.xml.gz or .well-known/resourcesync file in this directory (after --exclude)", a)
		}
		sort.Strings(found)
		for _, p := range found {
			st, err := os.Stat(p)
			out = append(out, Input{Name: p, Walked: true, Skip: notRegular(st, err), Size: regularSize(st, err)})
		}
	}
	if len(dirs) > 0 {
		// A typo (drafs for drafts) would otherwise check what the user
		// meant to leave out, silently.
		for i, g := range exclude {
			if matched[i] {
				continue
			}
			names := make([]string, 0, len(seen))
			for n := range seen {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("--exclude %q matches nothing in %s%s", g, strings.Join(dirs, ", "), suggest.DidYouMean(g, names))
		}
	}
	return out, nil
}

// notRegular says why a file found in a directory is not read, or "": one
// that is not a regular file once symbolic links are followed (a FIFO, a
// device, a socket) could block the run or never end; named on the command
// line, it is read (validate <(generate) reads a pipe).
func notRegular(st fs.FileInfo, err error) string {
	if err != nil || st.Mode().IsRegular() {
		return "" // an error is reported when the file is opened
	}
	what := "not a regular file"
	switch t := st.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case t&fs.ModeDevice != 0:
		what = "a device"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	}
	return "is " + what + ", not read when found in a directory (name it to read it)"
}

// regularSize is the size of a regular file (symbolic links followed), 0
// for anything else.
func regularSize(st fs.FileInfo, err error) int64 {
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// walkedDocument reports whether a file found in a directory is one to
// check.
func walkedDocument(p string) bool {
	if strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".xml.gz") {
		return true
	}
	return filepath.Base(p) == "resourcesync" && filepath.Base(filepath.Dir(p)) == ".well-known"
}

// excluded reports whether path p, found under directory root, matches one
// of the --exclude globs, and marks in matched every glob that does: a
// glob without a slash matches any file or folder name (feed.xml,
// *.rss.xml, drafts); one with a slash matches the path relative to root
// (news/*.xml), with path.Match syntax.
func excluded(globs []string, matched []bool, root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	base := path.Base(rel)
	hit := false
	for i, g := range globs {
		target := base
		if strings.Contains(g, "/") {
			target = rel
		}
		if ok, _ := path.Match(strings.TrimPrefix(g, "./"), target); ok {
			matched[i], hit = true, true
		}
	}
	return hit
}

// CheckGlobs rejects a malformed --exclude glob before any work.
func CheckGlobs(globs []string) error {
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--exclude %q: %w", g, err)
		}
	}
	return nil
}

// ValidateAll checks the inputs with v, workers documents at a time (at
// least one; the command chooses, cmd/rsconform's readerProcs), client
// fetching the URLs (nil when there is none), and returns the results in
// input order. A file whose reading the files after it can keep the other
// workers busy through is read on its worker's goroutine
// (engine.Validator.Inline, see inlineFrom); the others (with more than
// one worker, the last ones, a single document, a large one among small
// ones) are read by the front end's goroutines working at once, on the
// CPUs the other workers leave.
func ValidateAll(ctx context.Context, v *engine.Validator, client *sourcehttp.Client, inputs []Input, workers int) []engine.Result {
	results := make([]engine.Result, len(inputs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers = max(workers, 1)
	inline := *v
	inline.Inline = true
	inlines := inlineFrom(inputs, workers)
	for w := 0; w < min(workers, len(inputs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				file := v
				if inlines[i] {
					file = &inline
				}
				results[i] = validateOne(ctx, v, file, client, inputs[i])
			}
		}()
	}
	for i := range inputs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return results
}

// inlineFrom says, for each input read by workers at a time in order,
// whether it is read inline: when the files after it hold at least
// workers-1 times its bytes (Input.Size), the other workers have work for
// as long as it is read. Otherwise its reading would leave CPUs idle (a
// 14 MB list before a small file, read inline, took 0.32 s instead of
// 0.28, medians of 6). An input of no known size (standard input, a URL,
// not a regular file) is never inline. A gzipped file counts its
// compressed bytes.
func inlineFrom(inputs []Input, workers int) []bool {
	out := make([]bool, len(inputs))
	var after int64
	for i := len(inputs) - 1; i >= 0; i-- {
		size := inputs[i].Size
		if inputs[i].Skip != "" {
			size = 0
		}
		out[i] = size > 0 && after >= int64(workers-1)*size
		after += size
	}
	return out
}

// validateOne checks one input: standard input, a URL, a file named or
// found in a directory (with file, which may read it inline).
func validateOne(ctx context.Context, v, file *engine.Validator, client *sourcehttp.Client, in Input) engine.Result {
	switch {
	case in.Name == "-":
		return v.ValidateReader(ctx, "<stdin>", os.Stdin)
	case engine.IsURL(in.Name):
		r := client.Get(ctx, in.Name, sourcehttp.Request{Accept: "application/xml, text/xml;q=0.9, */*;q=0.1", Decode: true})
		defer r.Close()
		if fail := r.Failure(); fail != "" {
			return engine.ErrorResult(in.Name, fail)
		}
		return v.ValidateReader(ctx, in.Name, r.Body)
	case in.Skip != "":
		return engine.SkippedResult(in.Name, in.Skip)
	default:
		f, err := os.Open(in.Name)
		if err != nil {
			return engine.ErrorResult(in.Name, fmt.Sprintf("cannot read: %v", safefile.WithoutPath(err)))
		}
		defer f.Close()
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			return engine.ErrorResult(in.Name, "is a directory")
		}
		if err != nil || !st.Mode().IsRegular() {
			file = v // no longer a regular file since Expand (a pipe may block): read as standard input is
		}
		// Streamed from the file.
		if !in.Walked {
			return file.ValidateReader(ctx, in.Name, f)
		}
		// A walked document may not be ResourceSync at all.
		return file.ValidateFound(ctx, in.Name, f)
	}
}
