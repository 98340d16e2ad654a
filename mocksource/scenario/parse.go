package scenario

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/internal/suggest"
)

// Parse reads a scenario from YAML. Errors are *Error
// and name the file and line, e.g. `scenario.yaml:12: unknown action "udpate"`.
func Parse(filename string, data []byte) (*Scenario, error) {
	p := &scParser{file: filename}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, p.yamlError(err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &Error{File: filename, Msg: "the scenario is empty"}
	}
	sc, err := p.scenario(root.Content[0])
	if err != nil {
		return nil, err
	}
	return sc, nil
}

type scParser struct {
	file    string
	aliases int
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

func (p *scParser) yamlError(err error) error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblem(m[2]) {
			// yaml.v3 reports the parser's errors at the 0-based line of
			// the enclosing construct (its scanner's are 1-based).
			n++
		}
		return &Error{File: p.file, Line: n, Msg: m[2]}
	}
	return &Error{File: p.file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// parserProblem tells yaml.v3's parser errors from its scanner errors.
func parserProblem(msg string) bool {
	switch msg {
	case "did not find expected node content", "did not find expected '-' indicator",
		"did not find expected key", "did not find expected ',' or ']'",
		"did not find expected ',' or '}'", "found undefined tag handle":
		return true
	}
	return strings.HasPrefix(msg, "did not find expected <")
}

func (p *scParser) errf(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// resolve follows aliases, refusing alias bombs.
func (p *scParser) resolve(n *yaml.Node) (*yaml.Node, error) {
	for n != nil && n.Kind == yaml.AliasNode {
		p.aliases++
		if p.aliases > 1000 {
			return nil, p.errf(n, "too many aliases")
		}
		n = n.Alias
	}
	return n, nil
}

// fields walks a mapping, calling set for each key; unknown keys and
// duplicates are errors at the key's line.
func (p *scParser) fields(n *yaml.Node, what string, set map[string]func(v *yaml.Node) error) error {
	n, err := p.resolve(n)
	if err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, "%s must be a mapping", what)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			return p.errf(k, "%s: %q is given twice (first at line %d)", what, k.Value, first)
		}
		seen[k.Value] = k.Line
		f, ok := set[k.Value]
		if !ok {
			return p.errf(k, "unknown field %q in %s (known: %s)", k.Value, what, keys(set))
		}
		v, err := p.resolve(v)
		if err != nil {
			return err
		}
		if err := f(v); err != nil {
			return err
		}
	}
	return nil
}

func keys(m map[string]func(*yaml.Node) error) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func (p *scParser) str(n *yaml.Node, what string, dst *string) error {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return p.errf(n, "%s must be a string", what)
	}
	*dst = n.Value
	return nil
}

func (p *scParser) integer(n *yaml.Node, what string, min int, dst *int) error {
	if n.Kind != yaml.ScalarNode {
		return p.errf(n, "%s must be an integer", what)
	}
	v, err := strconv.Atoi(strings.ReplaceAll(n.Value, "_", ""))
	if err != nil {
		return p.errf(n, "%s must be an integer, not %q", what, n.Value)
	}
	if v < min {
		return p.errf(n, "%s must be at least %d, not %d", what, min, v)
	}
	*dst = v
	return nil
}

func (p *scParser) boolean(n *yaml.Node, what string, dst *bool) error {
	if n.Kind != yaml.ScalarNode {
		return p.errf(n, "%s must be true or false", what)
	}
	switch n.Value {
	case "true", "yes", "on":
		*dst = true
	case "false", "no", "off":
		*dst = false
	default:
		return p.errf(n, "%s must be true or false, not %q", what, n.Value)
	}
	return nil
}

// duration accepts Go durations ("90s", "1h30m"), whole days ("2d") and
// integers (seconds).
func (p *scParser) duration(n *yaml.Node, what string, dst *time.Duration) error {
	if n.Kind != yaml.ScalarNode {
		return p.errf(n, "%s must be a duration such as 90s, 15m, 1h or 2d", what)
	}
	d, err := parseDuration(n.Value)
	if err != nil || d < 0 {
		return p.errf(n, "%s must be a duration such as 90s, 15m, 1h or 2d, not %q", what, n.Value)
	}
	*dst = d
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil {
			return 0, err
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

func (p *scParser) datetime(n *yaml.Node, what string, dst *time.Time) error {
	if n.Kind != yaml.ScalarNode {
		return p.errf(n, "%s must be a datetime such as 2026-01-01T00:00:00Z", what)
	}
	t, err := time.Parse(time.RFC3339Nano, n.Value)
	if err != nil {
		return p.errf(n, "%s must be a datetime such as 2026-01-01T00:00:00Z, not %q", what, n.Value)
	}
	*dst = t.UTC()
	return nil
}

func (p *scParser) strList(n *yaml.Node, what string, dst *[]string) error {
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "%s must be a list", what)
	}
	for _, c := range n.Content {
		c, err := p.resolve(c)
		if err != nil {
			return err
		}
		var s string
		if err := p.str(c, what+" item", &s); err != nil {
			return err
		}
		*dst = append(*dst, s)
	}
	return nil
}

func (p *scParser) scenario(n *yaml.Node) (*Scenario, error) {
	sc := &Scenario{File: p.file, Seed: 1, Start: DefaultStart, Resources: DefaultResources,
		PackageSize: DefaultPackageSize, DeletedStatus: 404}
	var stepsNode *yaml.Node
	err := p.fields(n, "scenario", mergeFields(map[string]func(*yaml.Node) error{
		"name":        func(v *yaml.Node) error { return p.str(v, "name", &sc.Name) },
		"description": func(v *yaml.Node) error { return p.str(v, "description", &sc.Description) },
		"seed": func(v *yaml.Node) error {
			if v.Kind != yaml.ScalarNode {
				return p.errf(v, "seed must be an integer")
			}
			s, err := strconv.ParseInt(v.Value, 0, 64)
			if err != nil {
				return p.errf(v, "seed must be an integer, not %q", v.Value)
			}
			sc.Seed = s
			return nil
		},
		"start": func(v *yaml.Node) error { return p.datetime(v, "start", &sc.Start) },
		"resources": func(v *yaml.Node) error {
			return p.fields(v, "resources", map[string]func(*yaml.Node) error{
				"count": func(v *yaml.Node) error { return p.integer(v, "resources.count", 0, &sc.Resources) },
				"types": func(v *yaml.Node) error {
					if err := p.strList(v, "resources.types", &sc.Types); err != nil {
						return err
					}
					for _, t := range sc.Types {
						if !validType(t) {
							return p.errf(v, "resources.types: %q is not a media type", t)
						}
					}
					return nil
				},
			})
		},
		"max-entries":        func(v *yaml.Node) error { return p.integer(v, "max-entries", 1, &sc.MaxEntries) },
		"package-size":       func(v *yaml.Node) error { return p.integer(v, "package-size", 1, &sc.PackageSize) },
		"retain-changelists": func(v *yaml.Node) error { return p.integer(v, "retain-changelists", 0, &sc.RetainChangeLists) },
		"retain-changedumps": func(v *yaml.Node) error { return p.integer(v, "retain-changedumps", 0, &sc.RetainChangeDumps) },
		"deleted-status": func(v *yaml.Node) error {
			if err := p.integer(v, "deleted-status", 0, &sc.DeletedStatus); err != nil {
				return err
			}
			if sc.DeletedStatus != 404 && sc.DeletedStatus != 410 {
				return p.errf(v, "deleted-status must be 404 or 410, not %d", sc.DeletedStatus)
			}
			return nil
		},
		"resourcedump-at-start": func(v *yaml.Node) error {
			return p.boolean(v, "resourcedump-at-start", &sc.ResourceDumpAtStart)
		},
		"steps": func(v *yaml.Node) error { stepsNode = v; return nil },
	}, p.wildFields(sc)))
	if err != nil {
		return nil, err
	}
	if sc.Name == "" {
		return nil, p.errf(n, "the scenario has no name")
	}
	if len(sc.Types) == 0 {
		sc.Types = append([]string(nil), DefaultTypes...)
	}
	if stepsNode != nil {
		if stepsNode.Kind != yaml.SequenceNode {
			return nil, p.errf(stepsNode, "steps must be a list")
		}
		prev := sc.Start
		for i, sn := range stepsNode.Content {
			sn, err := p.resolve(sn)
			if err != nil {
				return nil, err
			}
			st, err := p.step(sn, i+1, prev)
			if err != nil {
				return nil, err
			}
			prev = st.At
			sc.Steps = append(sc.Steps, st)
		}
	}
	return sc, nil
}

func (p *scParser) step(n *yaml.Node, num int, prev time.Time) (Step, error) {
	st := Step{Line: n.Line}
	var at *yaml.Node
	var after time.Duration
	var afterNode *yaml.Node
	var actions *yaml.Node
	what := fmt.Sprintf("step %d", num)
	err := p.fields(n, what, map[string]func(*yaml.Node) error{
		"name": func(v *yaml.Node) error { return p.str(v, "name", &st.Name) },
		"at": func(v *yaml.Node) error {
			at = v
			return p.datetime(v, "at", &st.At)
		},
		"after": func(v *yaml.Node) error {
			afterNode = v
			return p.duration(v, "after", &after)
		},
		"actions": func(v *yaml.Node) error { actions = v; return nil },
		"expect": func(v *yaml.Node) error {
			e, err := p.expect(v)
			st.Expect = e
			return err
		},
	})
	if err != nil {
		return st, err
	}
	switch {
	case at != nil && afterNode != nil:
		return st, p.errf(afterNode, "%s has both at and after: give one", what)
	case at == nil && afterNode == nil:
		return st, p.errf(n, "%s needs a time: at (a datetime) or after (a duration since the previous step)", what)
	case afterNode != nil:
		st.At = prev.Add(after)
	default:
		if st.At.Before(prev) {
			return st, p.errf(at, "%s at %s goes back in time: the previous step is at %s", what,
				st.At.Format(time.RFC3339), prev.Format(time.RFC3339))
		}
	}
	if actions == nil {
		if st.Expect == nil {
			return st, p.errf(n, "%s has no actions", what)
		}
		return st, nil
	}
	if actions.Kind != yaml.SequenceNode {
		return st, p.errf(actions, "actions must be a list")
	}
	for _, an := range actions.Content {
		an, err := p.resolve(an)
		if err != nil {
			return st, err
		}
		a, err := p.action(an)
		if err != nil {
			return st, err
		}
		st.Actions = append(st.Actions, a)
	}
	return st, nil
}

func knownOp(s string) bool {
	for _, o := range Ops {
		if string(o) == s {
			return true
		}
	}
	return false
}

func unknownAction(name string) string {
	names := make([]string, len(Ops))
	for i, o := range Ops {
		names[i] = string(o)
	}
	msg := fmt.Sprintf("unknown action %q", name)
	if hint := suggest.DidYouMeanQuoted(name, names); hint != "" {
		return msg + hint
	}
	return msg + " (known: " + strings.Join(names, ", ") + ")"
}

func (p *scParser) action(n *yaml.Node) (Action, error) {
	a := Action{Line: n.Line}
	var name string
	var arg *yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		name = n.Value
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return a, p.errf(n, "an action is a name, or a mapping with one key (the action) and its argument")
		}
		name = n.Content[0].Value
		a.Line = n.Content[0].Line
		var err error
		if arg, err = p.resolve(n.Content[1]); err != nil {
			return a, err
		}
		if arg.Kind == yaml.ScalarNode && arg.Tag == "!!null" {
			arg = nil
		}
	default:
		return a, p.errf(n, "an action is a name, or a mapping with one key (the action) and its argument")
	}
	if !knownOp(name) {
		return a, &Error{File: p.file, Line: a.Line, Msg: unknownAction(name)}
	}
	a.Op = Op(name)
	switch a.Op {
	case OpCreate, OpUpdate, OpDelete:
		if arg == nil {
			return a, p.errf(n, "%s needs a path or a count, e.g. %s: /res/x.txt or %s: {count: 10}", name, name, name)
		}
		if arg.Kind == yaml.ScalarNode {
			a.Path = arg.Value
		} else {
			set := map[string]func(*yaml.Node) error{
				"path":  func(v *yaml.Node) error { return p.str(v, "path", &a.Path) },
				"count": func(v *yaml.Node) error { return p.integer(v, "count", 1, &a.Count) },
			}
			if a.Op == OpCreate {
				set["size"] = func(v *yaml.Node) error { return p.size(v, &a.Size) }
				set["type"] = func(v *yaml.Node) error {
					if err := p.str(v, "type", &a.Type); err != nil {
						return err
					}
					if !validType(a.Type) {
						return p.errf(v, "type %q is not a media type", a.Type)
					}
					return nil
				}
			}
			if err := p.fields(arg, name, set); err != nil {
				return a, err
			}
		}
		if (a.Path == "") == (a.Count == 0) {
			return a, p.errf(n, "%s takes a path or a count (one of them)", name)
		}
		if a.Path != "" {
			if msg := checkResourcePath(a.Path); msg != "" {
				return a, p.errf(n, "%s: %s", name, msg)
			}
			if a.Op == OpCreate && a.Type == "" && TypeForPath(a.Path) == "" {
				return a, p.errf(n, "create: cannot tell the media type of %s from its extension: give type", a.Path)
			}
		}
	case OpFault:
		if arg == nil {
			return a, p.errf(n, "fault needs a mapping with match and at least one effect")
		}
		f, err := p.fault(arg)
		if err != nil {
			return a, err
		}
		f.Line = a.Line
		a.Fault = f
	case OpClearFaults:
		if arg != nil {
			if err := p.str(arg, "clear-faults", &a.Match); err != nil {
				return a, err
			}
		}
	default:
		if arg != nil {
			return a, p.errf(arg, "%s takes no argument", name)
		}
	}
	return a, nil
}

func (p *scParser) fault(n *yaml.Node) (*Fault, error) {
	f := &Fault{}
	var redirectNode, statusNode *yaml.Node
	err := p.fields(n, "fault", map[string]func(*yaml.Node) error{
		"match": func(v *yaml.Node) error {
			if err := p.str(v, "match", &f.Match); err != nil {
				return err
			}
			pat := strings.TrimSuffix(f.Match, "/**")
			if _, err := path.Match(pat, ""); err != nil || !strings.HasPrefix(f.Match, "/") {
				return p.errf(v, "match %q must be a path or a pattern starting with /", f.Match)
			}
			return nil
		},
		"status": func(v *yaml.Node) error {
			statusNode = v
			if err := p.integer(v, "status", 0, &f.Status); err != nil {
				return err
			}
			if f.Status < 400 || f.Status > 599 {
				return p.errf(v, "status must be an error status (400-599), not %d; use redirect for 3xx", f.Status)
			}
			return nil
		},
		"retry-after": func(v *yaml.Node) error { return p.duration(v, "retry-after", &f.RetryAfter) },
		"latency":     func(v *yaml.Node) error { return p.duration(v, "latency", &f.Latency) },
		"truncate":    func(v *yaml.Node) error { return p.integer(v, "truncate", 0, &f.Truncate) },
		"malformed":   func(v *yaml.Node) error { return p.boolean(v, "malformed", &f.Malformed) },
		"wrong-hash":  func(v *yaml.Node) error { return p.boolean(v, "wrong-hash", &f.WrongHash) },
		"wrong-up":    func(v *yaml.Node) error { return p.boolean(v, "wrong-up", &f.WrongUp) },
		"wrong-index": func(v *yaml.Node) error { return p.boolean(v, "wrong-index", &f.WrongIndex) },
		"redirect": func(v *yaml.Node) error {
			redirectNode = v
			if v.Kind == yaml.ScalarNode && (v.Value == "true" || v.Value == "yes") {
				f.Redirect = 302
				return nil
			}
			if err := p.integer(v, "redirect", 0, &f.Redirect); err != nil {
				return err
			}
			switch f.Redirect {
			case 301, 302, 303, 307, 308:
				return nil
			}
			return p.errf(v, "redirect must be 301, 302, 303, 307 or 308, not %d", f.Redirect)
		},
		"location": func(v *yaml.Node) error { return p.str(v, "location", &f.Location) },
		"drop":     func(v *yaml.Node) error { return p.boolean(v, "drop", &f.Drop) },
		"times":    func(v *yaml.Node) error { return p.integer(v, "times", 0, &f.Times) },
	})
	if err != nil {
		return nil, err
	}
	switch {
	case f.Match == "":
		return nil, p.errf(n, "fault needs match: the path or pattern it applies to")
	case !f.IsTransport() && !f.WrongHash && !f.WrongUp && !f.WrongIndex:
		return nil, p.errf(n, "fault has no effect: give status, latency, truncate, malformed, wrong-hash, wrong-up, wrong-index, redirect or drop")
	case f.Status != 0 && f.Redirect != 0:
		return nil, p.errf(redirectNode, "fault has both status and redirect: give one")
	case f.Drop && (f.Status != 0 || f.Redirect != 0 || f.Truncate != 0 || f.Malformed):
		return nil, p.errf(n, "drop closes the connection: it cannot go with status, redirect, truncate or malformed")
	case f.RetryAfter != 0 && f.Status == 0:
		return nil, p.errf(n, "retry-after goes with status (e.g. 503)")
	case f.Location != "" && f.Redirect == 0:
		return nil, p.errf(n, "location goes with redirect")
	case (f.Status != 0 || f.Redirect != 0) && (f.Truncate != 0 || f.Malformed):
		at := statusNode
		if at == nil {
			at = redirectNode
		}
		return nil, p.errf(at, "truncate and malformed change a body: they cannot go with status or redirect")
	}
	return f, nil
}

func (p *scParser) expect(n *yaml.Node) (*Expect, error) {
	e := &Expect{Line: n.Line}
	if n.Kind == yaml.ScalarNode {
		var b bool
		if err := p.boolean(n, "expect", &b); err != nil {
			return nil, err
		}
		if !b {
			return nil, nil
		}
		return e, nil
	}
	err := p.fields(n, "expect", map[string]func(*yaml.Node) error{
		"resources": func(v *yaml.Node) error {
			var c int
			if err := p.integer(v, "expect.resources", 0, &c); err != nil {
				return err
			}
			e.Resources = &c
			return nil
		},
		"present": func(v *yaml.Node) error { return p.strList(v, "expect.present", &e.Present) },
		"absent":  func(v *yaml.Node) error { return p.strList(v, "expect.absent", &e.Absent) },
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// MaxBodySize bounds a scenario's size: 64 MiB.
const MaxBodySize = 64 << 20

// size reads a byte count: an integer, or one with a unit (KiB, MiB;
// KB and MB are powers of ten).
func (p *scParser) size(n *yaml.Node, dst *int) error {
	bad := func() error {
		return p.errf(n, "size must be a byte count such as 1500, 64KiB or 16MiB (at most 64MiB), not %q", n.Value)
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	s := strings.ReplaceAll(strings.TrimSpace(n.Value), "_", "")
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1000000}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > MaxBodySize/mult {
		return bad()
	}
	*dst = v * mult
	return nil
}
