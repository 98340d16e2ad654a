package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/suggest"
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
			return "", fmt.Errorf("--config: %w", unwrapPathError(err))
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
// keys are errors, with a suggestion.
func applyConfig(fset *flag.FlagSet, path string) error {
	data, err := safefile.ReadFile(path, "configuration file", maxConfigBytes, false)
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(configKeys, k) {
			msg := fmt.Sprintf("%s: unknown key %q", path, k)
			if s := suggest.Closest(k, configKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return errors.New(msg + "; valid keys: " + strings.Join(configKeys, ", "))
		}
		name := k
		if k == "headers" {
			name = "header"
		}
		f := fset.Lookup(name)
		if f == nil || set[name] {
			continue
		}
		values, err := configValues(k, cfg[k])
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, k, err)
		}
		for _, v := range values {
			if err := fset.Set(name, v); err != nil {
				return fmt.Errorf("%s: %s: %w", path, k, err)
			}
		}
	}
	return nil
}

// configValues turns a YAML value into flag values: a scalar is one, a
// list one per element (rules are joined with commas), a map (headers)
// one "Name: value" per entry.
func configValues(key string, v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case bool:
		return []string{strconv.FormatBool(t)}, nil
	case int:
		return []string{strconv.Itoa(t)}, nil
	case float64:
		return []string{strconv.FormatFloat(t, 'f', -1, 64)}, nil
	case []any:
		var out []string
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want a list of strings, got %v", e)
			}
			out = append(out, s)
		}
		if key == "rules" {
			return []string{strings.Join(out, ",")}, nil
		}
		return out, nil
	case map[string]any:
		names := make([]string, 0, len(t))
		for n := range t {
			names = append(names, n)
		}
		sort.Strings(names)
		var out []string
		for _, n := range names {
			out = append(out, fmt.Sprintf("%s: %v", n, t[n]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected value %v", v)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
