// Package destination is rsconform's reference ResourceSync Destination
// (ANSI/NISO Z39.99-2017, section 5.2): it keeps a local directory in step
// with a Source by baseline synchronisation (a Resource List or a Resource
// Dump), incremental synchronisation (Change Lists or Change Dumps) and
// audit.
//
// The local directory mirrors the path of every resource's URI:
// http://host/a/b.html is DIR/a/b.html, a path ending in a slash gets an
// index file name, and no URI, manifest path or package member can name a
// file outside DIR. Every download is checked against the hash and length
// the Source gives. What was synchronised, how far each Change List was
// processed and the validators of conditional requests are kept in a JSON
// state file, so that a later run downloads only what changed.
//
// Run does one synchronisation and returns a Report; the package never
// prints and never exits. Names under DIR starting with ".rsconform" are
// the Destination's own (state, temporary files, rejected downloads) and
// are never taken for resources.
//
// All documents are read with the resourcesync package.
package destination
