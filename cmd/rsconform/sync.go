package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/rsconform/rsconform/destination"
)

func init() {
	register("sync", "synchronise a directory with a Source (baseline, incremental, audit)", runSync)
}

const syncUsage = `Usage: rsconform sync [flags] SOURCE DIR

Keeps DIR in step with a ResourceSync Source, as the reference Destination
(section 5.2). SOURCE is a Source Description, a Capability List (or any
capability document) or a site root, from which the Source Description is
discovered (/.well-known/resourcesync, Link header, HTML link, robots.txt).

By default a set of resources never synchronised gets a baseline (from the
Resource List, or the Resource Dump with --dumps), then the changes published
since the snapshot; later runs apply the Change Lists (or Change Dumps) from
where the previous run stopped, falling back to a new baseline when changes
are no longer published. Every download is checked against the hash and
length the Source gives. The state (what was synchronised, how far each Change
List was read, ETag and Last-Modified for conditional requests) is kept in
DIR/.rsconform-sync.json unless --state says otherwise; one run at a time
synchronises DIR (DIR/.rsconform-sync.lock); neither file is opened through a
symbolic link. Warnings (retries, documents fetched again, fixity mismatches)
go to standard error, each naming its URL.

Where resources go: URLs on the origin of SOURCE (scheme, host and port) keep
their path under DIR as written, escapes and all, never decoded:
http://host/a/b.html is DIR/a/b.html, http://host/res/%73hared.txt is
DIR/res/%73hared.txt (not DIR/res/shared.txt); a path ending with a slash gets
--index-name, a query is added to the file name after "?". URLs on any other
origin (another host, port or scheme, even an alias of the same server) are
not kept, unless --map URL=SUBDIR maps them; with --map, only the URLs the maps
cover are kept, each map to its SUBDIR of DIR (. for DIR itself), and the maps'
origins may be fetched. Two maps to one SUBDIR are refused before anything is
written. A SUBDIR inside another map's is its own: a URL of the outer map whose
file would fall in it is not kept (--map http://h/=. --map http://h:8081/=o2
keeps http://h:8081/a in DIR/o2/a, refuses http://h/o2/a), and neither is a URL
whose file is already the copy of another URL.

Modes (at most one):
  --baseline      make a new baseline, then apply the changes since it
  --incremental   apply the changes published since the last run only
  --audit         compare DIR with the Source (missing, extra, changed by
                  hash and length); changes nothing

Examples:
  rsconform sync https://example.com/.well-known/resourcesync ./mirror
  rsconform sync https://example.com/ ./mirror --incremental
  rsconform sync https://example.com/dataset1/capabilitylist.xml ./mirror --baseline --dumps
  rsconform sync https://example.com/ ./mirror --audit --format json
  rsconform sync --header-file token.txt --allow-host cdn.example.com https://example.com/ ./mirror

Origins: only the Source's origin (scheme, host and port; an http Source also
its https upgrade) and those of --map are fetched; resources elsewhere need
--allow-host HOST (ports 80 and 443) or HOST:PORT. --header values go to the
Source's origin and --allow-host's only (not to --map's), redirects included,
and are never printed.

Exit codes: 0 synchronised (audit: in sync); 1 problems (resources that could
not be fetched or failed fixity; audit: out of sync); 2 rsconform could not do
its job (usage, Source unreachable, unreadable state, directory locked).

Flags:
`

// syncConfig is what 'rsconform sync' was asked to do.
type syncConfig struct {
	options destination.Options // all but Logf, which runSync wires
	format  string              // text or json
}

// syncConfigFromFlags reads sync's flags and arguments.
func syncConfigFromFlags(args []string, stderr io.Writer) (*syncConfig, error) {
	c := &syncConfig{}
	o := &c.options
	fset := flag.NewFlagSet("sync", flag.ContinueOnError)
	fset.SetOutput(io.Discard) // the usage error says it once
	baseline := fset.Bool("baseline", false, "make a new baseline (then apply the changes since it)")
	incremental := fset.Bool("incremental", false, "apply the changes since the last run only")
	audit := fset.Bool("audit", false, "compare DIR with the Source; change nothing")
	fset.StringVar(&o.StateFile, "state", "", "keep the state in `FILE` (default DIR/"+destination.StateFileName+")")
	fset.BoolVar(&o.PreferDumps, "dumps", false, "use Resource Dumps and Change Dumps when the Source offers them")
	var hf httpFlags
	hf.register(fset)
	fset.Int64Var(&o.MaxResourceBytes, "max-resource-size", destination.DefaultMaxResourceBytes, "size limit of one resource in `BYTES`")
	registerPackageLimits(fset, &o.PackageLimits)
	fset.BoolVar(&o.KeepRejected, "keep-rejected", false, "keep downloads that fail fixity under DIR/.rsconform-rejected/")
	fset.StringVar(&o.IndexName, "index-name", destination.DefaultIndexName, "file name of a URI whose path ends with a slash")
	fset.StringVar(&c.format, "format", "text", "report format: text or json")
	var maps mapValue
	fset.Var(&maps, "map", "keep the resources under `URL=SUBDIR` in DIR/SUBDIR (repeatable; the longest URL prefix of the URL's origin wins; default: SOURCE's origin in DIR)")
	args, err := parseCommandLine(fset, args, syncUsage, func(err error) error {
		return fmt.Errorf("rsconform sync: %v (see --help)", err)
	})
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*syncConfig, error) {
		return nil, fmt.Errorf("rsconform sync: "+format, a...)
	}
	if len(args) != 2 {
		return fail("SOURCE and DIR expected, %d arguments given (see --help)", len(args))
	}
	o.Source, o.Dir, o.Maps = args[0], args[1], maps
	modes := 0
	for _, m := range []struct {
		on   bool
		mode destination.Mode
	}{{*baseline, destination.ModeBaseline}, {*incremental, destination.ModeIncremental}, {*audit, destination.ModeAudit}} {
		if m.on {
			modes++
			o.Mode = m.mode
		}
	}
	if modes > 1 {
		return fail("--baseline, --incremental and --audit exclude each other")
	}
	if c.format != "text" && c.format != "json" {
		return fail("unknown format %q: text or json", c.format)
	}
	if o.HTTP, err = hf.config(); err != nil {
		return fail("%v", err)
	}
	o.AllowHosts = hf.hosts
	return c, nil
}

func runSync(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := syncConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	o := c.options
	// Warnings (a request retried, a document that did not parse and is
	// fetched again, a download failing fixity) always go to standard
	// error, each naming its URL: that is how a Destination reports what
	// the Source served broken even when it recovers.
	var mu sync.Mutex
	o.Logf = func(f string, a ...any) {
		mu.Lock()
		fmt.Fprintf(stderr, "rsconform sync: warning: "+f+"\n", a...)
		mu.Unlock()
	}
	rep, err := destination.Run(ctx, o)
	switch {
	case rep == nil:
	case c.format == "json":
		writeSyncJSON(stdout, rep, err)
	default:
		writeSyncText(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "rsconform sync:", err)
		return 2
	}
	if !rep.OK() {
		return 1
	}
	return 0
}

// writeSyncJSON writes the report of a run, with the error that ended it.
func writeSyncJSON(w io.Writer, rep *destination.Report, err error) {
	out := struct {
		Tool    string `json:"tool"`
		Version string `json:"version"`
		*destination.Report
		Error string `json:"error,omitempty"`
	}{"rsconform", toolVersion(), rep, ""}
	if err != nil {
		out.Error = err.Error()
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Fprintf(w, "%s\n", b)
}

func writeSyncText(w io.Writer, r *destination.Report) {
	fmt.Fprintf(w, "rsconform sync (%s): %s -> %s\n", r.Mode, r.Source, r.Dir)
	for _, s := range r.Sets {
		fmt.Fprintf(w, "  set %s\n", s.CapabilityList)
		if s.Baseline != "" {
			fmt.Fprintf(w, "    snapshot %s\n", s.Baseline)
		}
		for _, c := range s.Changes {
			fmt.Fprintf(w, "    changes  %s\n", c)
		}
	}
	if r.Audit != nil {
		a := r.Audit
		for _, m := range a.Missing {
			if m.Path == "" {
				fmt.Fprintf(w, "  missing  %s: %s\n", m.URL, m.Reason)
				continue
			}
			fmt.Fprintf(w, "  missing  %s  (%s)\n", m.Path, m.URL)
		}
		for _, c := range a.Changed {
			fmt.Fprintf(w, "  changed  %s  %s\n", c.Path, c.Reason)
		}
		for _, e := range a.Extra {
			fmt.Fprintf(w, "  extra    %s\n", e.Path)
		}
		state := "in sync"
		if !a.InSync {
			state = "out of sync"
		}
		fmt.Fprintf(w, "%s: %d resources checked (%d without hash or length), %d missing, %d changed, %d extra\n",
			state, a.Checked, a.Unverified, len(a.Missing), len(a.Changed), len(a.Extra))
	} else {
		fmt.Fprintf(w, "%d fetched, %d unchanged, %d deleted, %d failed, %d rejected (fixity); %d packages unpacked, %d skipped; %d requests, %d bytes\n",
			r.Fetched, r.Unchanged, r.Deleted, r.Failed, r.Rejected, r.Packages, r.PackagesSkipped, r.Requests, r.BytesReceived)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, p := range r.Problems {
		where := p.URL
		if where == "" {
			where = p.Path
		}
		fmt.Fprintf(w, "  %-8s %s: %s\n", p.Kind, where, strings.TrimPrefix(p.Message, where+": "))
	}
}
