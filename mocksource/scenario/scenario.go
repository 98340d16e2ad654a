package scenario

import (
	"fmt"
	"path"
	"strings"
	"time"
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
// played on the virtual clock. Parse reads one from YAML; tests
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

// Error is an error in a scenario, with where it is.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// UserFile is the file the scenario was read from, or "" for a built-in
// scenario or one built in Go.
func (sc *Scenario) UserFile() string {
	if sc.Builtin {
		return ""
	}
	return sc.File
}

// Origin2Prefix starts the paths of the resources on the Source's second
// origin: in a scenario, in the expected state and in the harness's DIR
// names, /origin2/res/a.txt is the resource http://ORIGIN2/res/a.txt.
// With a second origin set (the mock's SetOrigin2URL), the documents
// list these resources there, its Origin2Handler serves them, and the
// first origin has nothing under /origin2/; without one, the first origin
// serves them at their paths, /origin2/ included.
const Origin2Prefix = Origin2Path + "/"

// Origin2Path is Origin2Prefix without its last slash: what the second
// origin's paths lose on its own listener, and the top folder of its
// resources in a Destination's DIR (the harness).
const Origin2Path = "/origin2"

// UsesOrigin2 reports whether the scenario puts resources on the second
// origin (paths under Origin2Prefix).
func (sc *Scenario) UsesOrigin2() bool {
	for _, st := range sc.Steps {
		for _, a := range st.Actions {
			if strings.HasPrefix(a.Path, Origin2Prefix) {
				return true
			}
		}
	}
	return false
}
