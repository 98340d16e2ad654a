package monitor

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/internal/suggest"
	"github.com/rsconform/rsconform/sourcehttp"
)

// The Sources file (rsconform monitor --sources FILE) lists the Sources a
// monitor watches. sourcesFileKeys are the keys of one Source:
//
//	sources:
//	  - name: demo                 # required: letters, digits, . _ -
//	    url: https://example.org/.well-known/resourcesync   # required
//	    every: 6h                  # service mode: time between runs (default 6h)
//	    sample: all                # as crawl --sample (default 10)
//	    rate: 2                    # as crawl --rate, kept per host across Sources (default 10)
//	    header_file: token.txt     # as crawl --header-file, relative to the Sources file
//	    allow_host: [cdn.example.org]   # as crawl --allow-host
//	    spec: "1.1"                # as --spec
//	    packages: true             # as crawl --packages
//	    revisit: 1m                # as crawl --revisit
//	    max_findings_per_rule: 100 # as --max-findings-per-rule (default: the flag's)
var sourcesFileKeys = []string{"name", "url", "every", "sample", "rate", "header_file", "allow_host", "spec", "packages", "revisit",
	"max_findings_per_rule"}

// Listed is one Source of a Sources file, its values checked.
type Listed struct {
	Name      string
	URL       string
	Every     time.Duration
	Sample    int
	Rate      float64
	Header    *sourcehttp.Headers
	AllowHost []string
	Spec      string
	Packages  bool
	Revisit   time.Duration
	// MaxFindingsPerRule is the Source's own cap (nil: --max-findings-per-rule's).
	MaxFindingsPerRule *int
}

// sourceNames are the names a Source may have, at most maxSourceName
// bytes: they are parts of the dashboard's URLs and badge file names. The
// length is checked apart: `{0,99}` took 185 µs and 97 KB to compile at
// the start of every command, `*` takes 7 µs and 3 KB.
var sourceNames = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

const maxSourceName = 100

// MaxSourcesFileBytes bounds the Sources file read into memory; a larger
// file, or one that is not a regular file, is refused unread.
const MaxSourcesFileBytes = 16 << 20

// ParseSourcesFile reads the Sources file data read from path. Errors name
// the file, the line and the key, as the configuration file's do; a
// relative header_file is read from path's directory.
func ParseSourcesFile(path string, data []byte) ([]Listed, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty: want a list under sources:", path)
	}
	top := doc.Content[0]
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, n.Line, fmt.Sprintf(format, args...))
	}
	if top.Kind != yaml.MappingNode {
		return nil, at(top, "want a mapping with the key sources")
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "sources" {
			return nil, at(k, "unknown key %q%s; valid keys: sources", k.Value, suggest.DidYouMeanQuoted(k.Value, []string{"sources"}))
		}
		list = v
	}
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, at(top, "sources: want a list of Sources")
	}
	var out []Listed
	names := map[string]int{}
	for i, n := range list.Content {
		s, err := readSource(path, filepath.Dir(path), n)
		if err != nil {
			return nil, err
		}
		if line, dup := names[s.Name]; dup {
			return nil, at(n, "sources[%d]: name: %q is already the name of the Source at line %d", i, s.Name, line)
		}
		names[s.Name] = n.Line
		out = append(out, s)
	}
	return out, nil
}

func readSource(path, dir string, n *yaml.Node) (Listed, error) {
	s := Listed{Every: 6 * time.Hour, Sample: 10, Rate: 10, Spec: "1.1", Header: &sourcehttp.Headers{}}
	at := func(n *yaml.Node, key, format string, args ...any) error {
		where := ""
		if s.Name != "" {
			where = fmt.Sprintf("Source %q: ", s.Name)
		}
		return fmt.Errorf("%s:%d: %s%s: %s", path, n.Line, where, key, fmt.Sprintf(format, args...))
	}
	if n.Kind != yaml.MappingNode {
		return s, fmt.Errorf("%s:%d: a Source: want a mapping (name, url, …)", path, n.Line)
	}
	// The name first, so that every later error can say whose it is.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			s.Name = n.Content[i+1].Value
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if !slices.Contains(sourcesFileKeys, key) {
			return s, at(k, key, "unknown key %q%s; valid keys: %s", key, suggest.DidYouMeanQuoted(key, sourcesFileKeys),
				strings.Join(sourcesFileKeys, ", "))
		}
		if seen[key] {
			return s, at(k, key, "given twice")
		}
		seen[key] = true
		if key != "allow_host" && v.Kind != yaml.ScalarNode {
			return s, at(v, key, "want a single value")
		}
		if err := s.set(key, v, dir); err != nil {
			return s, at(v, key, "%v", err)
		}
	}
	if s.Name == "" {
		return s, at(n, "name", "missing: every Source needs a name")
	}
	if s.URL == "" {
		return s, at(n, "url", "missing: every Source needs its entry point")
	}
	return s, nil
}

// set sets key of s to the value v; a relative header_file is read from
// dir.
func (s *Listed) set(key string, v *yaml.Node, dir string) error {
	val := v.Value
	var err error
	switch key {
	case "name":
		if len(val) > maxSourceName || !sourceNames().MatchString(val) {
			return fmt.Errorf("%q: want letters, digits, '.', '_' and '-' (at most 100), starting with a letter or digit", val)
		}
	case "url":
		if _, err := ParseHTTPURL(val); err != nil {
			return err
		}
		s.URL = val
	case "every":
		s.Every, err = time.ParseDuration(val)
		if err == nil && s.Every < time.Minute {
			err = errors.New("want at least 1m")
		}
	case "sample":
		s.Sample, err = crawler.ParseSample(val)
	case "rate":
		s.Rate, err = strconv.ParseFloat(val, 64)
		if err == nil && (s.Rate < 0 || s.Rate != s.Rate) {
			err = errors.New("want a number of requests per second, 0 or more (0: no limit)")
		}
	case "header_file":
		file := val
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if err = s.Header.ReadFile(file); err == nil {
			err = s.Header.Err()
		}
	case "allow_host":
		s.AllowHost, err = stringList(v)
	case "spec":
		if val != "1.1" && val != "1.0" {
			err = fmt.Errorf("%q: want 1.1 or 1.0", val)
		}
		s.Spec = val
	case "packages":
		s.Packages, err = strconv.ParseBool(val)
	case "max_findings_per_rule":
		n, perr := strconv.Atoi(val)
		if perr != nil || n < 0 {
			return fmt.Errorf("%q: want a number of findings, 0 or more (0: keep all)", val)
		}
		s.MaxFindingsPerRule = &n
	case "revisit":
		s.Revisit, err = time.ParseDuration(val)
		if err == nil && s.Revisit < 0 {
			err = errors.New("want 0 or more")
		}
	}
	return err
}

// stringList is a YAML string or list of strings.
func stringList(v *yaml.Node) ([]string, error) {
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, errors.New("want a host or a list of hosts")
	}
	var out []string
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode {
			return nil, errors.New("want a host or a list of hosts")
		}
		out = append(out, e.Value)
	}
	return out, nil
}

// ParseHTTPURL is s if it is an http(s) URL with a host (a Source's url,
// the --webhook alerts are posted to), in its normal form.
func ParseHTTPURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", s)
	}
	return u.String(), nil
}
