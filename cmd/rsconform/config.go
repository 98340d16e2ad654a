package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/sourcehttp"
)

// configFileName is the configuration file rsconform looks for in the
// working directory and its parents.
const configFileName = ".rsconform.yaml"

// configKeys are the keys a configuration file may hold; each is the name
// of a flag, and applies to the commands that have that flag:
//
//	spec: "1.1"                  --spec
//	rules: "RS-*,-RS-SD-LASTMOD" --rules (a string, or a list of globs)
//	strict: true                 --strict
//	fail-level: warning          --fail-level
//	exclude: [drafts, news/*.xml] --exclude (validate)
//	baseline: rsconform-baseline.json  --baseline
//	headers: {Authorization: "Bearer ..."}  --header (crawl, and any command with --header)
//	max-size: 52428800, max-entries: 50000, format: json, color: never
var configKeys = []string{"spec", "rules", "strict", "fail-level", "exclude", "baseline", "headers", "header",
	"max-size", "max-entries", "format", "color", "quiet"}

// findConfig is the configuration file that applies: --config's, or the
// nearest .rsconform.yaml from the working directory upwards ("" when
// there is none).
func findConfig(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("--config: %w", safefile.WithoutPath(err))
		}
		return explicit, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", nil
	}
	for dir := wd; ; {
		p := filepath.Join(dir, configFileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// maxConfigBytes bounds the configuration file read: a few keys, a list
// of excluded paths, some headers fit in kilobytes.
const maxConfigBytes = 4 << 20

// applyConfig sets, from the configuration file at path, every flag of
// fset the command line did not set. Keys for flags this command does not
// have are ignored (headers apply to crawl, exclude to validate); unknown
// keys are errors, with a suggestion, and so are values of the wrong type
// and a second YAML document in the file.
func applyConfig(fset *flag.FlagSet, path string) error {
	data, err := safefile.ReadFile(path, "configuration file", maxConfigBytes, false)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", path, err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return fmt.Errorf("%s:%d: a second YAML document: the configuration is one document (remove the '---' and what follows, or merge them)", path, second.Line)
	}
	if doc.Kind == 0 {
		return nil // an empty file
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of keys (flag names) to values", path, root.Line)
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	type entry struct {
		key   string
		value *yaml.Node
	}
	var entries []entry
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s:%d: a key must be a flag's name", path, k.Line)
		}
		if !slices.Contains(configKeys, k.Value) {
			return fmt.Errorf("%s:%d: unknown key %q%s; valid keys: %s", path, k.Line, k.Value,
				suggest.DidYouMeanQuoted(k.Value, configKeys), strings.Join(configKeys, ", "))
		}
		entries = append(entries, entry{k.Value, root.Content[i+1]})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	for _, e := range entries {
		name := e.key
		if name == "headers" {
			name = "header"
		}
		values, err := configValues(e.key, e.value)
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %w", path, e.value.Line, e.key, err)
		}
		f := fset.Lookup(name)
		if f == nil || set[name] {
			continue
		}
		for _, v := range values {
			if err := fset.Set(name, v); err != nil {
				return fmt.Errorf("%s:%d: %s: %w", path, e.value.Line, e.key, err)
			}
		}
	}
	return nil
}

// configValues turns a YAML value into flag values, as written (spec: 1.0
// is "1.0", not the number 1): a scalar is one; a list, where the flag
// takes one (exclude, rules, header), one per element (rules are joined
// with commas); headers is a map, one "Name: value" per entry.
func configValues(key string, v *yaml.Node) ([]string, error) {
	if v.Kind == yaml.AliasNode {
		return nil, errors.New("YAML aliases are not read here: write the value")
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	scalar := func(n *yaml.Node) (string, error) {
		if n.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("want a single value, got %s", yamlKind(n))
		}
		return n.Value, nil
	}
	switch key {
	case "headers":
		if v.Kind != yaml.MappingNode {
			// Not yamlKind: the value may be a token, never printed.
			return nil, errors.New("want a mapping of header names to values, e.g. headers: {Authorization: \"Bearer ...\"}")
		}
		var out []string
		for i := 0; i+1 < len(v.Content); i += 2 {
			n, err := scalar(v.Content[i])
			if err != nil {
				return nil, fmt.Errorf("a header name: %w", err)
			}
			val := v.Content[i+1]
			if val.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("header %s: want a single value", n)
			}
			out = append(out, n+": "+val.Value)
		}
		sort.Strings(out)
		return out, checkHeaders(out)
	case "rules", "exclude", "header":
		if v.Kind == yaml.ScalarNode {
			if key == "header" {
				return []string{v.Value}, checkHeaders([]string{v.Value})
			}
			return []string{v.Value}, nil
		}
		if v.Kind != yaml.SequenceNode {
			return nil, errors.New("want a value or a list of values, got a mapping")
		}
		var out []string
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("want a list of single values, got %s in it", yamlKind(e))
			}
			out = append(out, e.Value)
		}
		switch key {
		case "rules":
			return []string{strings.Join(out, ",")}, nil
		case "header":
			return out, checkHeaders(out)
		}
		return out, nil
	}
	s, err := scalar(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// checkHeaders refuses a malformed 'Name: value' of the configuration
// file by its place in the key, never by its value (a token).
func checkHeaders(lines []string) error {
	for i, line := range lines {
		var hs sourcehttp.Headers
		hs.Set(line)
		if err := hs.Err(); err != nil {
			return fmt.Errorf("header #%d: %s", i+1, strings.TrimPrefix(err.Error(), "--header #1: "))
		}
	}
	return nil
}

// yamlKind names a node's kind for messages (never for headers: their
// values are not printed).
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "something else"
}
