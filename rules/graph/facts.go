package graph

import (
	rs "github.com/rsconform/rsconform/resourcesync"
)

// Facts the crawler records in the Graph for the cross-document rules
// (this package). The crawler measures and records; the graph computes what
// follows from that (record.go) and its rules judge.

// Role is what a URL is to a crawl.
type Role string

const (
	RoleDocument  Role = "document"  // a ResourceSync document (or what should be one)
	RoleResource  Role = "resource"  // a resource listed by a list, sampled
	RolePackage   Role = "package"   // a package of a Resource or Change Dump
	RoleDiscovery Role = "discovery" // a site root, HTML page or robots.txt
	RoleLinked    Role = "linked"    // the target of a describedby link, asked whether it answers
)

// Discovery is one way the crawl tried to find a Source's documents
// (section 6.3).
type Discovery struct {
	// Method is one of discovery.MethodWellKnown, MethodRobots,
	// MethodHTMLLink or MethodHTTPLink.
	Method string
	// From is the URL that was read (the well-known URI, robots.txt, the
	// page); Target the URL it gave ("" when it gave none).
	From, Target string
	// Line is where in From the target stands (robots.txt, HTML), or 0.
	Line int
	// Note says why the method gave nothing, when it did not.
	Note string
}

// BodyFacts is what was measured of a body streamed to its end.
type BodyFacts struct {
	// Length is the number of bytes of the body as received (after any
	// transfer decoding, before any content decoding).
	Length int64
	// Digests holds the lower-case hex digest of the body for each
	// algorithm the entry's hash named that rsconform knows ("md5",
	// "sha-1", "sha-256", "sha-512").
	Digests map[string]string
	// Truncated is set when the body was not read to its end (byte
	// budget, size limit, time-out): Length and Digests then say nothing.
	Truncated bool
	// Document is what the body's start shows it to be when it is a
	// ResourceSync document: its root and capability ("urlset
	// resourcelist", see SniffDocument); "" otherwise.
	Document string `json:",omitempty"`
}

// PackageFacts is what the crawler found in a dump package.
type PackageFacts struct {
	// Manifest is the location of the package's manifest document
	// (package URL + "#manifest.xml") when the package has one at its top
	// level; "" otherwise.
	Manifest string
	// NestedManifest names a manifest.xml found below the top level.
	NestedManifest string
	// Entries is the number of entries of the ZIP file.
	Entries int
	// Problem says why the package could not be opened or checked (not a
	// ZIP file, over a safety limit); the other facts are then partial.
	Problem string
	// UnsafeMembers lists the ZIP members that resourcesync.CheckMember
	// refuses (a name outside the package's folder, a symbolic link), as
	// its errors say them: "NAME": reason.
	UnsafeMembers []string
	// Unlisted lists ZIP entries that no manifest path names (capped;
	// UnlistedCount counts them all).
	Unlisted      []string
	UnlistedCount int
	// Bitstreams lists problems found with manifest entries: a path
	// absent from the package, a bitstream whose length or digest is not
	// the one the manifest gives. (A path outside the package is
	// RS-PATH-INSIDE's, on the manifest itself.)
	Bitstreams []BitstreamFact
}

// BitstreamFact is one problem with a manifest entry, at its position in
// the manifest.
type BitstreamFact struct {
	Pos  rs.Pos
	Loc  string
	Path string
	// Problem is "missing", "length" or "hash".
	Problem string
	// Want and Got are the values compared for "length" and "hash".
	Want, Got string
}

// Bitstream problems.
const (
	BitstreamMissing = "missing"
	BitstreamLength  = "length"
	BitstreamHash    = "hash"
)
