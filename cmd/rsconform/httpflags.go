package main

import (
	"flag"
	"net/http"

	"github.com/rsconform/rsconform/sourcehttp"
)

// allowHostUsage is the --allow-host help of every command that fetches.
const allowHostUsage = "also fetch from `HOST` (its default ports 80 and 443) or HOST:PORT (that port only); repeatable, * for any origin. " +
	"By default only the entry point's origin (scheme, host, port; and its https upgrade): another port of the same host is refused"

// headerFlags are --header and --header-file, for Sources behind a token.
// The values go to the Source's origins only and are never printed.
type headerFlags struct {
	headers sourcehttp.Headers
	file    string
}

func (h *headerFlags) register(fs *flag.FlagSet) {
	fs.Var(&h.headers, "header", "send `'Name: value'` with every request to the Source's origins (repeatable; never printed)")
	fs.StringVar(&h.file, "header-file", "", "read headers from `FILE`, one 'Name: value' a line, # comments")
}

// header returns the headers given, or an error that names none of the
// values.
func (h *headerFlags) header() (http.Header, error) {
	if h.file != "" {
		if err := h.headers.ReadFile(h.file); err != nil {
			return nil, err
		}
	}
	if err := h.headers.Err(); err != nil {
		return nil, err
	}
	return h.headers.Header(), nil
}
