package destination

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rsconform/rsconform/internal/safefile"
)

// StateVersion is the version of the state file format.
const StateVersion = 1

// State is what a Destination remembers between runs, kept as JSON:
//
//	{"version": 1, "tool": "rsconform", "source": "…", "updated": "…",
//	 "sets": {"<Capability List URI>": {
//	     "baseline": {"kind": "resourcelist", "url": "…", "at": "…", "synced": "…"},
//	     "since": "…",
//	     "changelists": [{"url": "…", "from": "…", "until": "…", "position": 12,
//	                      "last_datetime": "…", "last_loc": "…", "done": false}],
//	     "changedump_through": "…"}},
//	 "resources": {"<URI>": {"path": "a/b.html", "length": 123,
//	     "hashes": {"sha-256": "…", "md5": "…"}, "type": "text/html",
//	     "lastmod": "…", "datetime": "…", "etag": "\"…\"",
//	     "last_modified": "…", "set": "<Capability List URI>", "synced": "…"}}}
//
// Datetimes from documents are kept as written (W3C Datetime).
type State struct {
	Version   int                  `json:"version"`
	Tool      string               `json:"tool"`
	Source    string               `json:"source"`
	Updated   time.Time            `json:"updated"`
	Sets      map[string]*SetState `json:"sets"`
	Resources map[string]*Resource `json:"resources"`
}

// SetState is the progress with one set of resources (one Capability
// List).
type SetState struct {
	Baseline *Baseline `json:"baseline,omitempty"`
	// Since: every change before this datetime has been applied (the
	// snapshot time of the baseline, then the until of each closed Change
	// List processed to its end).
	Since string `json:"since,omitempty"`
	// ChangeLists records how far each Change List was processed: the
	// position (entries processed) together with the datetime and URI of
	// the last entry processed, as section 12.1 suggests for finding the
	// first unprocessed change.
	ChangeLists []*ListCursor `json:"changelists,omitempty"`
	// ChangeDumpThrough is the until of the last Change Dump package applied.
	ChangeDumpThrough string `json:"changedump_through,omitempty"`
}

// Baseline records the snapshot a baseline was made from.
type Baseline struct {
	Kind      string    `json:"kind"` // resourcelist or resourcedump
	URL       string    `json:"url"`
	At        string    `json:"at,omitempty"`
	Completed string    `json:"completed,omitempty"`
	Synced    time.Time `json:"synced"`
}

// ListCursor is how far one Change List was processed. A list is known by
// its URI and from; when its URI changes (an open list moving under an
// index) it is recognised by its from.
type ListCursor struct {
	URL          string    `json:"url"`
	From         string    `json:"from,omitempty"`
	Until        string    `json:"until,omitempty"`
	Position     int       `json:"position"`
	LastDatetime string    `json:"last_datetime,omitempty"`
	LastLoc      string    `json:"last_loc,omitempty"`
	Done         bool      `json:"done,omitempty"`
	Updated      time.Time `json:"updated"`
}

// Resource is a synchronised resource.
type Resource struct {
	Path   string            `json:"path"`
	Length int64             `json:"length"`
	Hashes map[string]string `json:"hashes"`
	Type   string            `json:"type,omitempty"`
	// Lastmod is the <lastmod> the Source gave; Datetime the datetime of
	// the change (or snapshot) the copy is known to reflect.
	Lastmod  string `json:"lastmod,omitempty"`
	Datetime string `json:"datetime,omitempty"`
	// ETag and LastModified are the validators of conditional requests.
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	Set          string    `json:"set,omitempty"`
	Synced       time.Time `json:"synced"`
}

func newState(source string) *State {
	return &State{Version: StateVersion, Tool: "rsconform", Source: source,
		Sets: map[string]*SetState{}, Resources: map[string]*Resource{}}
}

// MaxStateBytes bounds the state file read into memory: a few hundred
// bytes a resource, so 256 MiB holds more than half a million resources. A
// larger file, or one that is not a regular file, is refused unread.
const MaxStateBytes = 256 << 20

// LoadState reads a state file, of at most MaxStateBytes; a file that
// does not exist gives an empty state. A symbolic link in its place is an error, not followed (Save
// replaces the link itself).
func LoadState(file, source string) (*State, error) {
	data, err := safefile.ReadFile(file, "state file", MaxStateBytes, true)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(source), nil
	}
	if safefile.Refused(err) {
		return nil, err // they name the file
	}
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	st := newState(source)
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("%s: not a state file: %w", file, err)
	}
	if st.Version != StateVersion {
		return nil, fmt.Errorf("%s: state version %d, this rsconform reads version %d", file, st.Version, StateVersion)
	}
	if st.Sets == nil {
		st.Sets = map[string]*SetState{}
	}
	if st.Resources == nil {
		st.Resources = map[string]*Resource{}
	}
	for u, r := range st.Resources {
		if r == nil {
			delete(st.Resources, u)
		}
	}
	return st, nil
}

// Save writes the state atomically (a temporary file renamed over it).
func (s *State) Save(file string) error {
	s.Updated = time.Now().UTC()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".rsconform-state-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if serr := tmp.Sync(); err == nil {
		err = serr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func (s *State) set(capList string) *SetState {
	st := s.Sets[capList]
	if st == nil {
		st = &SetState{}
		s.Sets[capList] = st
	}
	return st
}

// cursor finds the cursor of a Change List: same URI and from, or else
// same from (the list moved).
func (ss *SetState) cursor(url, from string) *ListCursor {
	for _, c := range ss.ChangeLists {
		if c.URL == url && c.From == from {
			return c
		}
	}
	if from == "" {
		return nil
	}
	for _, c := range ss.ChangeLists {
		if c.From == from {
			return c
		}
	}
	return nil
}

// prune drops cursors of closed lists that ended before since (nothing
// in them is processed again) and keeps the list ordered by from.
func (ss *SetState) prune() {
	since, okSince := parseDT(ss.Since)
	var kept []*ListCursor
	for _, c := range ss.ChangeLists {
		if u, ok := parseDT(c.Until); ok && okSince && c.Done && u.Before(since) {
			continue
		}
		kept = append(kept, c)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, _ := parseDT(kept[i].From)
		b, _ := parseDT(kept[j].From)
		return a.Before(b)
	})
	ss.ChangeLists = kept
}
