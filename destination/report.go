package destination

import (
	"sort"
	"sync"
)

// Problem kinds.
const (
	ProblemFetch    = "fetch"    // a resource or package could not be obtained
	ProblemFixity   = "fixity"   // a download does not match its hash or length
	ProblemPath     = "path"     // a URI or package path maps outside DIR, or a file is in the way
	ProblemPackage  = "package"  // a package is unsafe or broken (zip slip, bomb, symlink, no manifest)
	ProblemDocument = "document" // a ResourceSync document could not be used
	ProblemLocal    = "local"    // a local file could not be written or removed
)

// Problem is something that went wrong with one URI.
type Problem struct {
	Kind    string `json:"kind"`
	URL     string `json:"url,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// Report says what a run did.
type Report struct {
	Mode   string `json:"mode"`
	Source string `json:"source"`
	Dir    string `json:"dir"`
	// Sets lists the Capability Lists synchronised, with what was used.
	Sets []SetReport `json:"sets"`

	// Fetched counts resources written to DIR (downloaded or unpacked);
	// Unchanged those found up to date (by hash, lastmod or a 304);
	// Deleted files removed; Failed resources that could not be
	// synchronised; Rejected downloads that failed fixity.
	Fetched   int `json:"fetched"`
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted"`
	Failed    int `json:"failed"`
	Rejected  int `json:"rejected"`
	// Packages counts the packages downloaded and unpacked; Skipped those
	// whose manifest showed nothing new.
	Packages        int   `json:"packages"`
	PackagesSkipped int   `json:"packages_skipped"`
	Requests        int   `json:"requests"`
	BytesReceived   int64 `json:"bytes_received"`

	Problems []Problem `json:"problems,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Audit    *Audit    `json:"audit,omitempty"`

	mu sync.Mutex
}

// SetReport is what was used for one set of resources.
type SetReport struct {
	CapabilityList string `json:"capability_list"`
	// Baseline is the Resource List or Resource Dump used, if any;
	// Changes the Change Lists or Change Dumps read.
	Baseline string   `json:"baseline,omitempty"`
	Changes  []string `json:"changes,omitempty"`
	Applied  int      `json:"changes_applied"`
}

// Audit is the result of comparing DIR with the Source.
type Audit struct {
	// Checked counts the resources compared; Unverified those the Source
	// gives neither hash nor length for (only their presence is checked).
	Checked    int         `json:"checked"`
	Unverified int         `json:"unverified"`
	Missing    []AuditItem `json:"missing,omitempty"`
	Extra      []AuditItem `json:"extra,omitempty"`
	Changed    []AuditItem `json:"changed,omitempty"`
	InSync     bool        `json:"in_sync"`
}

// AuditItem is one difference.
type AuditItem struct {
	URL    string `json:"url,omitempty"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

// OK reports whether the run ended without problems (and, for an audit,
// in sync).
func (r *Report) OK() bool {
	if r.Audit != nil && !r.Audit.InSync {
		return false
	}
	return len(r.Problems) == 0
}

func (r *Report) problem(kind, url, path, msg string) {
	r.mu.Lock()
	r.Problems = append(r.Problems, Problem{Kind: kind, URL: url, Path: path, Message: msg})
	r.mu.Unlock()
}

func (r *Report) note(msg string) {
	r.mu.Lock()
	r.Notes = append(r.Notes, msg)
	r.mu.Unlock()
}

func (r *Report) count(field *int) {
	r.mu.Lock()
	*field++
	r.mu.Unlock()
}

func (r *Report) sortProblems() {
	sort.SliceStable(r.Problems, func(i, j int) bool {
		a, b := r.Problems[i], r.Problems[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.URL < b.URL
	})
}
