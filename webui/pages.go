package webui

import "embed"

// pages are the web validator's own pages (form, rules); reports use the
// html format's templates, with which these are parsed.
//
//go:embed pages/*.tmpl
var pages embed.FS
