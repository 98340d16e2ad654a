// Package scenario holds what the mock Source (package mocksource) plays:
// a scenario is a value, the resources a Source holds at the start and the
// steps played on a virtual clock, each changing resources, publishing
// documents or arming a fault. Parse reads one from YAML, Load a built-in
// one (builtin/*.yaml) by name or a file; tests may build one in Go. The
// package holds no state and serves nothing: the harness and the commands
// read a scenario (its steps, faults and checkpoints) through it.
//
// # The format
//
// A scenario is YAML (errors name the file and line, e.g.
// `scenario.yaml:12: unknown action "udpate"`):
//
//	name: example                    # required
//	description: what it checks
//	seed: 7                          # content and bulk choices derive from it (default 1)
//	start: 2026-01-01T00:00:00Z      # the virtual clock's start (this is the default)
//	resources:
//	  count: 100                     # initial resources (default 100)
//	  types: [text/plain, text/html] # assigned in turn (default text/plain, text/html, application/json)
//	max-entries: 50000               # entries per document before an index
//	package-size: 1000               # resources per Resource Dump package
//	retain-changelists: 0            # Change Lists the index keeps (0: all); older ones only in the archive
//	retain-changedumps: 0            # the same for Change Dumps
//	deleted-status: 404              # or 410
//	resourcedump-at-start: false     # true: a Resource Dump of the initial state, before the first step
//	# Sources seen in the wild (docs/wild.md):
//	time-offsets: [+01:00, -05:00]   # every datetime written at these offsets from UTC, in turn
//	bearer-token: TOKEN              # 401 without Authorization: Bearer TOKEN ({token} in the harness)
//	document-names:                  # documents under other names; a .gz name is served gzip-compressed
//	  /dataset1/resourcelist.xml: /dataset1/lists/all.xml.gz
//	gzip-encoding: true              # documents sent with Content-Encoding: gzip when accepted
//	no-content-type: true            # no Content-Type header
//	chunked: true                    # no Content-Length, the body chunked
//	steps:
//	  - name: a step                 # optional
//	    after: 1h                    # since the previous step (or at: an absolute datetime); 90s, 15m, 2d
//	    actions:
//	      - create: /res/new.html              # type from the extension, or {path: ..., type: ...}
//	      - create: {count: 5, type: text/csv} # bulk, at generated paths
//	      - create: {path: /res/big.bin, size: 16MiB} # a body of this length (default 50-2,000 bytes; at most 64MiB)
//	      - update: /res/0000001.html          # or {count: 10}: distinct live resources chosen by the seed
//	      - delete: {count: 2}
//	      - publish-resourcelist               # a new snapshot; the previous one is archived
//	      - publish-resourcedump
//	      - close-changelist                   # the open list gets until; the next one opens
//	      - publish-changedump                 # a package of the changes since the last one
//	      - close-changedump
//	      - fault: {match: "/res/*", status: 503, retry-after: 30s, times: 2}
//	      - fault: {match: /dataset1/changelist.xml, latency: 2s}
//	      - fault: {match: /res/0000003.txt, wrong-hash: true}
//	      - clear-faults                       # or clear-faults: "/res/*"
//	    expect: {resources: 104, present: [/res/new.html], absent: [/res/0000002.json]}
//
// Faults match a path or a path.Match pattern ("/**" at the end matches
// below); their effects are status (400-599, with retry-after), latency,
// truncate (bytes sent of a full Content-Length, then the connection
// closes), malformed (XML cut in half), redirect (301-308, to location or
// /moved/PATH), drop (the connection closes without a response) and
// wrong-hash (lists and manifests advertise a wrong hash for the resource);
// wrong-up (the matching documents' up link leads to a second Capability
// List, /dataset2/capabilitylist.xml, which the Source Description then
// lists, with an empty Resource List of its own); wrong-index (the
// matching documents' index link leads to their family's first numbered
// document, /dataset1/resourcelist/1.xml for a Resource List, not to
// their index);
// times limits how many requests a transport fault fires for.
//
// Resource paths are letters (of any script: /res/café.txt is written raw,
// an IRI), digits, / . _ - ~ and escapes (%2F, %20, %25: upper case, and
// never of a character that needs none), with an optional query
// (/res/q.txt?page=2: name=value pairs of the same characters but /,
// joined by &). The Source finds a resource, and its log and expected state name
// it, by the path's URI key: the IRI's characters beyond ASCII escaped
// (RFC 3987 3.1) and escapes normalised (RFC 3986 6.2.2), so
// /res/caf%C3%A9.txt, /res/names/a%2Fb.txt (not /res/names/a/b.txt) and
// /res/q.txt?page=2; see scenarios resource-names and large-bodies.
package scenario
