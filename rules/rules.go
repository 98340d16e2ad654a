// Package rules is rsconform's rule catalogue: importing it registers
// every rule in the engine (engine.All, engine.Lookup). It also holds the
// map of the specification's sections the rules cite (Sections) and writes
// docs/rules.md (WriteMarkdown); its tests hold the catalogue to its
// standards (well-formed and unique IDs, a failing and a passing fixture
// for every rule, docs up to date).
//
// The rules live in packages of their own, inside this folder:
//
//	rules/engine    the engine: Rule, Pass, Scope, the streaming pipeline,
//	                the values of an entry rules share (Rule.Requires),
//	                selection, the Registry, Diagnostic and Result, the
//	                Validator and its FrontEnd interface. No cgo, no rule.
//	rules/document  the document rules, one file per section of the
//	                specification (7_time.go, 12_1_change_list_order.go).
//	rules/archives  the document rules of the ResourceSync Archives draft
//	                (archives, archive indexes, archives links).
//	rules/graph     the crawl graph (Node, Edge, the facts it computes from
//	                the documents and HTTP observations the crawler
//	                records, the Source's history, sampling) and the
//	                cross-document rules.
//	rules/crawldiscovery  the crawl rules of discovery (section 6.3): the
//	                well-known URI, and what a rel="resourcesync" link leads
//	                to and must pertain to; they read the graph's exported
//	                facts like the rules of rules/graph.
//	rules/frontend  the libxml2 front end (package schema, cgo) wired into
//	                the engine: the one package of rules that needs cgo.
//
// Imports run one way: engine imports neither of the others; document
// imports engine; archives imports engine and document; graph imports
// engine and document (it compares Change List times as RS-CL-ORDER does);
// crawldiscovery imports engine and graph; rules imports document,
// archives, graph and crawldiscovery; frontend imports rules, engine and
// schema. Nothing below imports anything above it.
package rules

import (
	_ "github.com/rsconform/rsconform/rules/archives"       // the document rules of the Archives draft
	_ "github.com/rsconform/rsconform/rules/crawldiscovery" // the crawl rules of discovery (6.3)
	_ "github.com/rsconform/rsconform/rules/document"       // the document rules
	_ "github.com/rsconform/rsconform/rules/graph"          // the crawl rules
)
