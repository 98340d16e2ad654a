package destination

import (
	"errors"
	"fmt"
	"path/filepath"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Mode is what a run does.
type Mode int

const (
	// ModeAuto makes a baseline when DIR was never synchronised with a set
	// of resources, then applies the changes published since; on later
	// runs it applies the changes only (or makes a new baseline when the
	// Source publishes no changes).
	ModeAuto Mode = iota
	// ModeBaseline makes a baseline again, whatever the state says, then
	// applies the changes published since the snapshot.
	ModeBaseline
	// ModeIncremental applies the changes published since the last run.
	ModeIncremental
	// ModeAudit compares DIR with the Source and changes nothing.
	ModeAudit
)

func (m Mode) String() string {
	switch m {
	case ModeAuto:
		return "auto"
	case ModeBaseline:
		return "baseline"
	case ModeIncremental:
		return "incremental"
	case ModeAudit:
		return "audit"
	}
	return "invalid"
}

// StateFileName is the name of the state file in DIR unless
// Options.StateFile says otherwise.
const StateFileName = ".rsconform-sync.json"

// lockFileName is the lock of a directory, in it: one run at a time
// synchronises a directory, whatever state file each is given.
const lockFileName = ".rsconform-sync.lock"

// reservedPrefix starts every name the Destination keeps for itself at
// the top of DIR.
const reservedPrefix = ".rsconform"

// Defaults of Options (the HTTP ones are sourcehttp's).
const (
	DefaultMaxResourceBytes = 1 << 30
	DefaultIndexName        = "index.html"
)

// Options configure a run. Zero values take the defaults above.
type Options struct {
	// Source is a Source Description, a Capability List, any other
	// capability document, or a site root (discovered through
	// /.well-known/resourcesync, a Link header, an HTML link or
	// robots.txt, section 6.3).
	Source string
	// Dir is the local copy.
	Dir string
	// Maps say where the resources of each origin go (--map URL=SUBDIR,
	// SUBDIR relative to Dir; see Mapper); none means the origin of Source
	// to Dir itself.
	Maps []sourcehttp.Map
	// StateFile is where the state is kept (default Dir/.rsconform-sync.json).
	StateFile string
	Mode      Mode
	// PreferDumps uses a Resource Dump for baselines and Change Dumps for
	// changes when the Source offers them.
	PreferDumps bool

	// HTTP holds the HTTP settings (sourcehttp's defaults: time-out,
	// retries, back-off, Retry-After cap, rate, requests in flight,
	// redirects, user agent, headers, transport, clock). Its Origins is
	// the run's own: Source and AllowHosts set it. Concurrency is also the
	// number of downloads at once. A request that fails for good (a
	// Retry-After over MaxRetryWait included) fails what needed it.
	HTTP sourcehttp.Config
	// AllowHosts lists the origins besides the Source's that may be
	// fetched (sourcehttp.Origins: HOST for its default ports, HOST:PORT,
	// "*"); another port of the Source's host is another origin.
	AllowHosts []string

	// MaxDocumentBytes bounds a ResourceSync document (default 50 MB).
	MaxDocumentBytes int64
	// MaxResourceBytes bounds one resource or bitstream.
	MaxResourceBytes int64
	// PackageLimits bound a package before it is unpacked, as in
	// rsconform crawl --packages (zero values: resourcesync's defaults);
	// MaxUncompressed also bounds what one package unpacks to.
	PackageLimits rs.PackageLimits

	// IndexName is the file name of a URI whose path ends with a slash.
	IndexName string
	// KeepRejected keeps downloads that fail fixity under
	// DIR/.rsconform-rejected/ instead of discarding them.
	KeepRejected bool

	// Logf, when set, receives progress and warnings, one line each.
	Logf func(format string, args ...any)
}

func (o *Options) setDefaults() error {
	if o.Source == "" {
		return errors.New("no Source given")
	}
	if o.Dir == "" {
		return errors.New("no directory given")
	}
	if o.StateFile == "" {
		o.StateFile = filepath.Join(o.Dir, StateFileName)
	}
	if o.HTTP.Rate < 0 {
		return fmt.Errorf("rate must not be negative, not %v", o.HTTP.Rate)
	}
	o.HTTP = o.HTTP.WithDefaults()
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = rs.DefaultMaxBytes
	}
	if o.MaxResourceBytes <= 0 {
		o.MaxResourceBytes = DefaultMaxResourceBytes
	}
	o.PackageLimits = o.PackageLimits.WithDefaults()
	if o.IndexName == "" {
		o.IndexName = DefaultIndexName
	}
	if msg := checkSegment(o.IndexName); msg != "" || o.IndexName[0] == '.' {
		return fmt.Errorf("index name %q is not a plain file name", o.IndexName)
	}
	if o.Mode < ModeAuto || o.Mode > ModeAudit {
		return fmt.Errorf("unknown mode %d", o.Mode)
	}
	return nil
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}
