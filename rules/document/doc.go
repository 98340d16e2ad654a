// Package document is the catalogue of document rules: the rules that
// judge one ResourceSync document on its own, whatever command reads it
// (validate, crawl, sync's checks, the web validator, the Source suite).
// Each rule is a value (engine.Rule) registered from an init function.
//
// Files are named by the section of the specification their rules cite,
// as h2spec names its tests: 7_time.go holds the rules on datetimes of
// section 7, 12_1_change_list_order.go the order of a Change List
// (section 12.1), 11_2_13_2_manifests.go the manifests of sections 11.2
// and 13.2; profile_1_0.go
// the rules of the 1.0 profile only; walk.go holds the kind sets of
// Applies and the names of elements in messages. What every rule of
// engine.ScopeEntries uses is the engine's: Pass.ElementsWith, WalkWith and Lns
// walk the <rs:md> and <rs:ln> elements in one pass; Fingerprints, Blocks
// and Pass.Hold keep state across the entries of a large document;
// EntryTimes and EntryHashes, which a rule lists in Rule.Requires, are an
// entry's datetimes and hash values, read once for every rule.
//
// To add a rule: write its value in the file of its section (quote the
// spec's sentence above it; its Level comes from the keyword), register
// it in that file's init, add fixtures/RULE-ID/pass-*.xml and
// fail-*.xml with <!-- want RULE-ID --> markers, and run
// 'go generate ./rules' for docs/rules.md.
package document
