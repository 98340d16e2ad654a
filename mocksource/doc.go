// Package mocksource is a complete ResourceSync Source (ANSI/NISO
// Z39.99-2017, with the Archives 0.9.1 draft) served over HTTP and driven
// by scenarios played on a virtual clock, so that runs are deterministic:
// two Sources of the same scenario (and base URL) serve the same bytes at
// every step. It is the Source rsconform tests Destinations against.
//
// # Using it
//
//	sc, err := scenario.Load("incremental-changelist") // or a YAML file
//	src, err := mocksource.New(mocksource.Options{Scenario: sc})
//	srv := httptest.NewServer(src.Handler())   // or src.Serve(ctx, listener)
//	info, err := src.Step()                    // play the next step
//	want := src.Expected()                     // what a synchronised Destination holds
//	log := src.Log()                           // what was asked for
//
// Every document is written through the resourcesync model. Every hash is
// the true md5 and sha-256 of what is served (unless a wrong-hash fault is
// armed), every length the Content-Length, every datetime in UTC with Z.
//
// # What is served
//
// Paths are relative to the base URL (Options.BaseURL, or the request's
// Host):
//
//	/.well-known/resourcesync                 Source Description
//	/dataset1/capabilitylist.xml              Capability List (capabilities appear once they exist)
//	/dataset1/resourcelist.xml                current Resource List, or its index beyond MaxEntries
//	/dataset1/resourcelist/N-P.xml            list P of Resource List N's index
//	/dataset1/resourcelist/N.xml              archived Resource List N
//	/dataset1/resourcedump.xml                current Resource Dump (same layout)
//	/dataset1/resourcedump-pkg/N-K.zip        package K of Resource Dump N, manifest.xml inside
//	/dataset1/resourcedump-pkg/N-K-manifest.xml  the copy of its manifest (rel="contents")
//	/dataset1/changelist.xml                  the open Change List, or the Change List Index
//	/dataset1/changelist/N.xml                Change List N (closed ones carry until)
//	/dataset1/changedump.xml                  the open Change Dump, or the Change Dump Index
//	/dataset1/changedump/N.xml                Change Dump N
//	/dataset1/changedump-pkg/J.zip            Change Dump package J, and J-manifest.xml
//	/dataset1/{resourcelist,resourcedump,changelist,changedump}-archive.xml   the Archives
//	/res/NNNNNNN.ext                          resources; created ones at the scenario's paths
//	ORIGIN2/PATH                              the resources of scenario path /origin2/PATH (below)
//	/moved/...                                where redirect faults point: the same content
//	/robots.txt, /info/*.html                 Sitemap directive (6.3.4) and describedby targets
//
// Documents are application/xml, packages application/zip. Resources carry
// Content-Length, Content-Type, Last-Modified, a strong ETag and a Link to
// the Capability List (6.3.3), answer If-None-Match and If-Modified-Since
// with 304, and answer 404 (or 410) once deleted. Capability documents
// link to their archive with rel="archives" once it has an entry.
//
// Bodies are never stored: a body is a function of the seed, the path, the
// version and the media type, 50 to 2,000 bytes, generated on each request.
// Initial resources cost nothing until touched; their hashes are computed
// a thousand at a time on first use. A million resources (a Resource List
// Index of twenty lists) need no more than their listing.
//
// # Scenarios
//
// A scenario is a value of package scenario (mocksource/scenario), read
// from YAML; its documentation gives the format. The Source plays its
// steps on the virtual clock.
//
// # A second origin
//
// A scenario path under /origin2/ (create: /origin2/res/a.txt) is a
// resource on the Source's second origin, another port of the same host
// (scenario second-origin): with SetOrigin2URL (rsconform mock --addr2;
// the harness's {origin2}) the documents list it as ORIGIN2/res/a.txt,
// Origin2Handler serves it there, and the first origin has nothing under
// /origin2/. The second origin serves only those resources (no document,
// no control API); its requests are in the one log with "origin": 2 and
// the path as asked there (/res/a.txt). The expected state, faults
// (match: /origin2/res/*) and expect name it by its scenario path. Without
// a second origin, the first serves it at /origin2/res/a.txt.
//
// expect marks a checkpoint: the expected Destination state is computed
// from the resource state (Expected, GET /_rsconform/expected); the counts
// and paths given are checked when the Source is built (New plays the
// whole scenario once on a throwaway state, so an impossible step is an
// error with its line before anything is served).
//
// # Control API
//
//	POST /_rsconform/step      play the next step: {"step":1,"steps":3,"time":"…","changes":3,"done":false,…}
//	GET  /_rsconform/expected  {"/res/0000001.html": {"sha256":"…","length":812,"type":"text/html"}, …}
//	                           (listed_sha256 too where a wrong-hash fault makes the lists give another)
//	GET  /_rsconform/log       the request log (?since=SEQ): method, path, status, virtual time, faults, headers
//	GET  /_rsconform/status    scenario, step, virtual time, base URL (and origin2_url)
//
// AutoAdvance plays steps on a real-time cadence.
//
// # Real-time mode
//
// With Options.Realtime (rsconform mock --realtime 100ms) the scenario's
// steps are all played when the Source is built, and the Source then lives
// on Options.Clock (real time unless a test injects one): one resource
// changes every Realtime, an update or, now and then, a creation or a
// deletion, each recorded in the open Change List at its instant and
// served from then on. Resources a fault is armed for never change, so a
// wrong hash stays wrong (scenario realtime-wrong-hash). See realtime.go.
//
// # Lastmod-only
//
// With Options.LastmodOnly (rsconform mock --lastmod-only), in any mode,
// Change List and Change Dump Manifest entries carry <lastmod> but no
// datetime and resources are served without Last-Modified, as most Sources
// are: a deletion then carries no time at all.
package mocksource
