package resourcesync

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
)

// Write serialises d as UTF-8 XML with the Sitemap namespace as default
// namespace and rs as the ResourceSync prefix. Attributes ResourceSync
// defines are written in a fixed order, then Extra attributes; foreign
// namespaces get prefixes ns1, ns2, ... declared on the root. Positions
// and unknown elements are not written.
func Write(w io.Writer, d *Document) error {
	bw := bufio.NewWriterSize(w, 64*1024)
	ew := &errWriter{w: bw}
	prefixes := foreignPrefixes(d)

	root := "urlset"
	child := "url"
	if d.Root == RootSitemapIndex {
		root, child = "sitemapindex", "sitemap"
	}
	ew.str(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<" + root +
		` xmlns="` + SitemapNS + `" xmlns:rs="` + RSNS + `"`)
	spaces := make([]string, 0, len(prefixes))
	for s := range prefixes {
		spaces = append(spaces, s)
	}
	sort.Slice(spaces, func(i, j int) bool { return prefixes[spaces[i]] < prefixes[spaces[j]] })
	for _, s := range spaces {
		ew.str(" xmlns:" + prefixes[s] + `="`)
		ew.escape(s)
		ew.str(`"`)
	}
	writeExtra(ew, d.Extra, prefixes)
	ew.str(">\n")
	for _, l := range d.Links {
		writeLn(ew, "  ", l, prefixes)
	}
	if d.Md != nil {
		writeMd(ew, "  ", d.Md, prefixes)
	}
	for _, m := range d.ExtraMd {
		writeMd(ew, "  ", m, prefixes)
	}
	for _, e := range d.Entries {
		ew.str("  <" + child + ">\n")
		if e.HasLoc() {
			ew.element("    ", "loc", e.Loc)
		}
		if e.Lastmod != "" || e.LastmodPos.IsValid() {
			ew.element("    ", "lastmod", e.Lastmod)
		}
		if e.Changefreq != "" || e.ChangefreqPos.IsValid() {
			ew.element("    ", "changefreq", e.Changefreq)
		}
		if e.Priority != "" || e.PriorityPos.IsValid() {
			ew.element("    ", "priority", e.Priority)
		}
		if e.Md != nil {
			writeMd(ew, "    ", e.Md, prefixes)
		}
		for _, m := range e.ExtraMd {
			writeMd(ew, "    ", m, prefixes)
		}
		for _, l := range e.Links {
			writeLn(ew, "    ", l, prefixes)
		}
		ew.str("  </" + child + ">\n")
	}
	ew.str("</" + root + ">\n")
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}

type errWriter struct {
	w   *bufio.Writer
	err error
}

func (e *errWriter) str(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

func (e *errWriter) escape(s string) {
	if e.err == nil {
		e.err = xml.EscapeText(e.w, []byte(s))
	}
}

func (e *errWriter) element(indent, name, value string) {
	e.str(indent + "<" + name + ">")
	e.escape(value)
	e.str("</" + name + ">\n")
}

func (e *errWriter) attr(name, value string) {
	e.str(" " + name + `="`)
	e.escape(value)
	e.str(`"`)
}

func writeMd(ew *errWriter, indent string, m *Md, prefixes map[string]string) {
	ew.str(indent + "<rs:md")
	for _, name := range mdAttrs {
		if v, ok := m.Get(name); ok {
			ew.attr(name, v)
		}
	}
	writeExtra(ew, m.Extra, prefixes)
	ew.str("/>\n")
}

func writeLn(ew *errWriter, indent string, l *Ln, prefixes map[string]string) {
	ew.str(indent + "<rs:ln")
	for _, name := range lnAttrs {
		if v, ok := l.Get(name); ok {
			ew.attr(name, v)
		}
	}
	writeExtra(ew, l.Extra, prefixes)
	ew.str("/>\n")
}

func writeExtra(ew *errWriter, attrs []Attr, prefixes map[string]string) {
	for _, a := range attrs {
		name := a.Local
		switch a.Space {
		case "":
		case RSNS:
			name = "rs:" + a.Local
		case SitemapNS:
			name = prefixes[SitemapNS] + ":" + a.Local
		case "http://www.w3.org/XML/1998/namespace":
			name = "xml:" + a.Local
		default:
			name = prefixes[a.Space] + ":" + a.Local
		}
		ew.attr(name, a.Value)
	}
}

// foreignPrefixes assigns a prefix to every namespace used by an Extra
// attribute other than rs and xml (the Sitemap namespace is the default
// namespace, which attributes cannot use, so it needs a prefix too).
func foreignPrefixes(d *Document) map[string]string {
	out := map[string]string{}
	add := func(attrs []Attr) {
		for _, a := range attrs {
			switch a.Space {
			case "", RSNS, "http://www.w3.org/XML/1998/namespace":
				continue
			}
			if _, ok := out[a.Space]; !ok {
				out[a.Space] = fmt.Sprintf("ns%d", len(out)+1)
			}
		}
	}
	add(d.Extra)
	mds := func(m *Md) {
		if m != nil {
			add(m.Extra)
		}
	}
	mds(d.Md)
	for _, m := range d.ExtraMd {
		mds(m)
	}
	for _, l := range d.Links {
		add(l.Extra)
	}
	for _, e := range d.Entries {
		mds(e.Md)
		for _, m := range e.ExtraMd {
			mds(m)
		}
		for _, l := range e.Links {
			add(l.Extra)
		}
	}
	return out
}
