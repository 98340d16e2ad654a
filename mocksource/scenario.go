package mocksource

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/suggest"
)

// DefaultStart is the instant the virtual clock starts at unless a
// scenario says otherwise.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Defaults of a scenario.
const (
	DefaultResources   = 100
	DefaultPackageSize = 1000
)

// DefaultTypes are the media types of generated resources unless a
// scenario lists its own.
var DefaultTypes = []string{"text/plain", "text/html", "application/json"}

// Scenario is a value: what the Source holds at the start and the steps
// played on the virtual clock. ParseScenario reads one from YAML; tests
// may also build one in Go.
type Scenario struct {
	Name        string
	Description string
	// File is where the scenario was read from; errors name it. Builtin
	// is true for a scenario embedded in rsconform (File is then its name
	// with .yaml, no file of the user's).
	File    string
	Builtin bool
	Seed    int64
	// Start is the virtual instant before the first step.
	Start time.Time
	// Resources is the initial number of resources; Types their media
	// types, assigned in turn.
	Resources int
	Types     []string
	// MaxEntries is the number of entries per document before an index
	// is used; 0 means Options.MaxEntries or 50,000.
	MaxEntries int
	// PackageSize is the number of resources per Resource Dump package.
	PackageSize int
	// RetainChangeLists is how many Change Lists (the open one included)
	// the Change List Index keeps; older closed ones are reachable only
	// through the Change List Archive. 0 keeps all. RetainChangeDumps is
	// the same for Change Dumps.
	RetainChangeLists int
	RetainChangeDumps int
	// DeletedStatus is the status of a deleted resource: 404 or 410.
	DeletedStatus int
	// ResourceDumpAtStart publishes a Resource Dump of the initial state
	// before the first step, beside the initial Resource List
	// (resourcedump-at-start: true), so that a Destination can take its
	// baseline from a dump.
	ResourceDumpAtStart bool
	Steps               []Step

	// Wild holds the behaviours of Sources seen in the wild that a
	// scenario may ask for (wild.go).
	Wild
}

// Step is what happens at one instant of the virtual clock.
type Step struct {
	Line    int
	Name    string
	At      time.Time
	Actions []Action
	// Expect, when set, marks the step as a checkpoint: a Destination
	// synchronising after it should hold what Source.Expected returns.
	Expect *Expect
}

// Op is the kind of an action.
type Op string

const (
	OpCreate              Op = "create"
	OpUpdate              Op = "update"
	OpDelete              Op = "delete"
	OpPublishResourceList Op = "publish-resourcelist"
	OpPublishResourceDump Op = "publish-resourcedump"
	OpCloseChangeList     Op = "close-changelist"
	OpPublishChangeDump   Op = "publish-changedump"
	OpCloseChangeDump     Op = "close-changedump"
	OpFault               Op = "fault"
	OpClearFaults         Op = "clear-faults"
)

// Ops lists the actions a scenario may use.
var Ops = []Op{OpCreate, OpUpdate, OpDelete, OpPublishResourceList, OpPublishResourceDump,
	OpCloseChangeList, OpPublishChangeDump, OpCloseChangeDump, OpFault, OpClearFaults}

// Action is one action of a step. Create, update and delete take either
// a Path or a Count (bulk: resources chosen, or paths generated, from the
// seed); Type is the media type of created resources. ClearFaults takes a
// Match ("" clears every fault).
type Action struct {
	Line  int
	Op    Op
	Path  string
	Count int
	Type  string
	Match string
	Fault *Fault
	// Size is the body length of created resources (create: {size: 16MiB});
	// 0 leaves it to the seed (50-2,000 bytes).
	Size int
}

// Fault is armed on every request whose path matches Match (a path, or a
// path.Match pattern; a trailing "/**" matches everything below). The
// effects combine: latency first, then one of drop, status, redirect;
// otherwise the body is served and may be truncated or malformed.
// WrongHash is not a transport fault: it makes every Resource List,
// Change List and manifest advertise a wrong hash for matching resources.
type Fault struct {
	Line  int
	Match string
	// Status is an error status (400-599) served instead of the content.
	Status int
	// RetryAfter goes with Status (typically 503) as a Retry-After header
	// in whole seconds.
	RetryAfter time.Duration
	Latency    time.Duration
	// Truncate announces the full Content-Length but sends only that
	// many bytes, then closes the connection.
	Truncate int
	// Malformed serves an XML document cut in half, not well-formed.
	Malformed bool
	WrongHash bool
	// WrongUp is not a transport fault either: the matching documents'
	// up link leads to another Capability List of the Source
	// (/dataset2/capabilitylist.xml, which the Source Description then
	// lists), one that does not list them.
	WrongUp bool
	// WrongIndex is not a transport fault either: the matching documents'
	// index link leads to their family's first numbered document
	// (/dataset1/resourcelist/1.xml for a Resource List), not to the
	// index that lists them.
	WrongIndex bool
	// Redirect is a redirect status (301, 302, 303, 307, 308) to Location
	// (default: the same path under /moved, which serves the content).
	Redirect int
	Location string
	// Drop closes the connection without any response.
	Drop bool
	// Times is how many requests the fault fires for; 0 means until
	// cleared.
	Times int
}

// IsTransport reports whether the fault changes responses (as opposed to
// documents, as WrongHash does).
func (f *Fault) IsTransport() bool {
	return f.Status != 0 || f.Latency != 0 || f.Truncate != 0 || f.Malformed || f.Redirect != 0 || f.Drop
}

// Matches reports whether the fault applies to the request path p.
func (f *Fault) Matches(p string) bool { return matchPattern(f.Match, p) }

func matchPattern(pattern, p string) bool {
	if pattern == p {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	ok, _ := path.Match(pattern, p)
	return ok
}

// Expect is the checkpoint of a step. The expected Destination state is
// computed from the resource state (Source.Expected); the counts and
// paths given here are checked against it when the Source is built, so a
// scenario that says what it means fails loudly when it does not.
type Expect struct {
	Line      int      `json:"-"`
	Resources *int     `json:"resources,omitempty"`
	Present   []string `json:"present,omitempty"`
	Absent    []string `json:"absent,omitempty"`
}

// ScenarioError is an error in a scenario, with where it is.
type ScenarioError struct {
	File string
	Line int
	Msg  string
}

func (e *ScenarioError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

//go:embed scenarios/*.yaml
var builtin embed.FS

// BuiltinScenarios returns the names of the embedded scenarios, sorted.
func BuiltinScenarios() []string {
	entries, err := fs.ReadDir(builtin, "scenarios")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// VolumeScenario is the built-in scenario that tests volume (100,000
// resources): at the 20 requests a second of a polite Destination its
// baseline alone takes over 80 minutes, past any one run's time limit. It is
// played when asked for by name, never as part of the default set.
const VolumeScenario = "large-source"

// TokenScenario is the built-in scenario whose Source wants a bearer
// token: only a command that passes {token} (or RSCONFORM_TOKEN) on can
// pass it, so it is played when asked for by name.
const TokenScenario = "bearer-token"

// Origin2Scenario is the built-in scenario with resources on a second
// origin of the Source: only a command that tells the Destination where
// they go ({origin2}) can pass it, so it is played when asked for by name.
const Origin2Scenario = "second-origin"

// DefaultScenarios returns the built-in scenarios a Destination is tested
// on when none is named (test-destination --scenario all, the destination
// suite): all but VolumeScenario, TokenScenario and Origin2Scenario, sorted.
func DefaultScenarios() []string {
	var out []string
	for _, n := range BuiltinScenarios() {
		if n != VolumeScenario && n != TokenScenario && n != Origin2Scenario {
			out = append(out, n)
		}
	}
	return out
}

// MaxScenarioBytes bounds a scenario file read into memory: the built-in
// ones are under 2 KiB; a larger file or one that is not a regular file
// (/dev/zero, a pipe) is refused unread.
const MaxScenarioBytes = 4 << 20

// LoadScenario loads a built-in scenario by name, or else a YAML file.
func LoadScenario(name string) (*Scenario, error) {
	if data, err := builtin.ReadFile("scenarios/" + name + ".yaml"); err == nil && !strings.Contains(name, "/") {
		sc, err := ParseScenario(name+".yaml", data)
		if sc != nil {
			sc.Builtin = true
		}
		return sc, err
	}
	data, err := safefile.ReadFile(name, "scenario file", MaxScenarioBytes, false)
	if safefile.Refused(err) {
		return nil, err // they name the file
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("scenario %q is neither a built-in scenario%s nor a file (built in: %s)", name, suggest.DidYouMean(name, BuiltinScenarios()), strings.Join(BuiltinScenarios(), ", "))
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return ParseScenario(name, data)
}

// ParseScenario reads a scenario from YAML. Errors are *ScenarioError
// and name the file and line, e.g. `scenario.yaml:12: unknown action "udpate"`.
func ParseScenario(filename string, data []byte) (*Scenario, error) {
	p := &scParser{file: filename}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, p.yamlError(err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &ScenarioError{File: filename, Msg: "the scenario is empty"}
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

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *scParser) yamlError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblem(m[2]) {
			// yaml.v3 reports the parser's errors at the 0-based line of
			// the enclosing construct (its scanner's are 1-based).
			n++
		}
		return &ScenarioError{File: p.file, Line: n, Msg: m[2]}
	}
	return &ScenarioError{File: p.file, Msg: strings.TrimPrefix(msg, "yaml: ")}
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
	return &ScenarioError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
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

func validType(t string) bool {
	b := mediaBase(t)
	i := strings.IndexByte(b, '/')
	return i > 0 && i < len(b)-1 && !strings.ContainsAny(b, " \t\"<>&")
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
	msg := fmt.Sprintf("unknown action %q", name)
	best, bestD := "", 3
	for _, o := range Ops {
		if d := editDistance(name, string(o)); d < bestD {
			best, bestD = string(o), d
		}
	}
	if best != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", best)
	}
	var names []string
	for _, o := range Ops {
		names = append(names, string(o))
	}
	return msg + " (known: " + strings.Join(names, ", ") + ")"
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
		return a, &ScenarioError{File: p.file, Line: a.Line, Msg: unknownAction(name)}
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
			if a.Op == OpCreate && a.Type == "" && typeForPath(a.Path) == "" {
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

// reservedPrefixes are paths the Source serves itself.
var reservedPrefixes = []string{"/_rsconform/", "/.well-known/", "/dataset1/", "/info/", "/moved/"}

// checkResourcePath says what is wrong with a resource path, or "".
func checkResourcePath(p string) string {
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return fmt.Sprintf("path %q must start with / and name a resource", p)
	}
	for _, r := range reservedPrefixes {
		if strings.HasPrefix(p, r) {
			return fmt.Sprintf("path %q is under %s, which the Source reserves", p, r)
		}
	}
	if p == "/robots.txt" || p == "/_rsconform" || strings.HasSuffix(p, "/") || strings.Contains(p, "//") || strings.Contains(p, "/./") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") || strings.HasSuffix(p, "/.") {
		return fmt.Sprintf("path %q is not a plain resource path", p)
	}
	name, query, hasQuery := strings.Cut(p, "?")
	if msg := checkNameChars(name); msg != "" {
		return msg
	}
	if hasQuery {
		if msg := checkQuery(query); msg != "" {
			return fmt.Sprintf("path %q: %s", p, msg)
		}
	}
	return ""
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

// UserFile is the file the scenario was read from, or "" for a built-in
// scenario or one built in Go.
func (sc *Scenario) UserFile() string {
	if sc.Builtin {
		return ""
	}
	return sc.File
}
