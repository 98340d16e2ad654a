package scenario

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/rsconform/rsconform/internal/safefile"
	"github.com/rsconform/rsconform/internal/suggest"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// BuiltinNames returns the names of the embedded scenarios, sorted.
func BuiltinNames() []string {
	entries, err := fs.ReadDir(builtinFS, "builtin")
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

// VolumeName is the built-in scenario that tests volume (100,000
// resources): at the 20 requests a second of a polite Destination its
// baseline alone takes over 80 minutes, past any one run's time limit. It is
// played when asked for by name, never as part of the default set.
const VolumeName = "large-source"

// TokenName is the built-in scenario whose Source wants a bearer
// token: only a command that passes {token} (or RSCONFORM_TOKEN) on can
// pass it, so it is played when asked for by name.
const TokenName = "bearer-token"

// Origin2Name is the built-in scenario with resources on a second
// origin of the Source: only a command that tells the Destination where
// they go ({origin2}) can pass it, so it is played when asked for by name.
const Origin2Name = "second-origin"

// DefaultNames returns the built-in scenarios a Destination is tested
// on when none is named (test-destination --scenario all, the destination
// suite): all but VolumeName, TokenName and Origin2Name, sorted.
func DefaultNames() []string {
	var out []string
	for _, n := range BuiltinNames() {
		if n != VolumeName && n != TokenName && n != Origin2Name {
			out = append(out, n)
		}
	}
	return out
}

// MaxFileBytes bounds a scenario file read into memory: the built-in
// ones are under 2 KiB; a larger file or one that is not a regular file
// (/dev/zero, a pipe) is refused unread.
const MaxFileBytes = 4 << 20

// Load loads a built-in scenario by name, or else a YAML file.
func Load(name string) (*Scenario, error) {
	if data, err := builtinFS.ReadFile("builtin/" + name + ".yaml"); err == nil && !strings.Contains(name, "/") {
		sc, err := Parse(name+".yaml", data)
		if sc != nil {
			sc.Builtin = true
		}
		return sc, err
	}
	data, err := safefile.ReadFile(name, "scenario file", MaxFileBytes, false)
	if safefile.Refused(err) {
		return nil, err // they name the file
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("scenario %q is neither a built-in scenario%s nor a file (built in: %s)", name, suggest.DidYouMean(name, BuiltinNames()), strings.Join(BuiltinNames(), ", "))
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(name, data)
}
