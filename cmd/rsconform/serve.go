package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/webui"
)

func init() {
	register("serve", "run the web validator: check a URL, an uploaded file or a pasted document", runServe)
}

const serveUsage = `Usage: rsconform serve [flags]

Serves the web validator: a form to crawl a Source from a URL, upload a
document or paste one, the html report of each check, and a page per rule
(the specification's sentence, a failing and a passing example).

It is made to be exposed to people who should not reach this host's
network: crawls never connect to loopback, private, link-local or other
special-purpose addresses (checked on each connection, after name
resolution, so redirects and DNS rebinding cannot get round it) unless
--allow-private; a crawl stays on the URL's host within --max-documents,
--max-bytes and --job-timeout (validation and the report stop then, or when
the visitor hangs up); at most --max-jobs checks run at once (more are
answered 503); request bodies are capped at --max-body and must arrive within
--body-timeout, before a check's slot is taken; a document keeps the first
--max-findings-per-rule findings of each rule, as validate does, and the
report page shows the first --max-findings of them (the JSON and SARIF
downloads give all it keeps); uploads are kept in memory, never written to disk.

Behind a reverse proxy, serve on a loopback address and forward a path to
it with the prefix stripped: every link of the pages is relative.

Examples:
  rsconform serve
  rsconform serve --addr 127.0.0.1:8080 --max-jobs 8 --job-timeout 2m
  rsconform serve --allow-private            (a validator for your own network)

Flags:
`

// serveConfig is what 'rsconform serve' was asked to do.
type serveConfig struct {
	addr string
	web  webui.Options // all but the Schema and Logf, which runServe wires
}

// serveConfigFromFlags reads serve's flags.
func serveConfigFromFlags(args []string, stderr io.Writer) (*serveConfig, error) {
	c := &serveConfig{web: webui.Options{Version: toolVersion()}}
	o := &c.web
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`")
	fset.BoolVar(&o.AllowPrivate, "allow-private", false, "let crawls reach loopback, private and link-local addresses")
	fset.IntVar(&o.MaxJobs, "max-jobs", 4, "checks running at once; more are refused with 503")
	fset.Int64Var(&o.MaxBody, "max-body", 10<<20, "size of a request, an upload or pasted document included, in `BYTES`")
	fset.DurationVar(&o.JobTimeout, "job-timeout", 60*time.Second, "time one check may take, a crawl and its report included")
	fset.DurationVar(&o.BodyTimeout, "body-timeout", 30*time.Second, "time a request's body may take to arrive (read before a check's slot is taken)")
	fset.IntVar(&o.MaxFindings, "max-findings", 1000, "findings of one document the report page shows (the JSON and SARIF downloads give all kept)")
	maxFindingsPerRuleFlag(fset, &o.MaxFindingsPerRule)
	fset.IntVar(&o.MaxDocuments, "max-documents", 100, "documents one crawl fetches at most")
	fset.Int64Var(&o.MaxBytes, "max-bytes", 32<<20, "bytes one crawl downloads at most")
	args, err := parseCommandLine(fset, args, serveUsage, seeHelp("rsconform serve: see --help"))
	switch {
	case err != nil:
		return nil, err
	case len(args) != 0:
		return nil, errors.New("rsconform serve: takes no arguments (see --help)")
	case o.MaxJobs <= 0 || o.MaxBody <= 0 || o.JobTimeout <= 0 || o.BodyTimeout <= 0 || o.MaxFindings <= 0 || o.MaxDocuments <= 0 || o.MaxBytes <= 0:
		return nil, errors.New("rsconform serve: --max-jobs, --max-body, --job-timeout, --body-timeout, --max-findings, --max-documents and --max-bytes must be positive")
	}
	switch {
	case o.MaxFindingsPerRule < 0:
		return nil, errors.New("rsconform serve: --max-findings-per-rule must not be negative (0 lists all)")
	case o.MaxFindingsPerRule == 0:
		o.MaxFindingsPerRule = -1 // webui.Options: negative keeps all
	}
	return c, nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := serveConfigFromFlags(args, stderr)
	if err != nil {
		return flagsExit(err, stdout, stderr)
	}
	sv, err := frontend.New()
	if err != nil {
		fmt.Fprintln(stderr, "rsconform serve: the XML Schemas failed to load:", err)
		return 2
	}
	o := c.web
	o.Schema = sv
	o.Logf = timestampedLog(stderr, "serve")
	h, err := webui.New(o)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform serve:", err)
		return 2
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintln(stderr, "rsconform serve:", err)
		return 2
	}
	// The handler sets the body's own deadline, within the read time-out.
	done, shutdown := startHTTPServer(ln, h, o.BodyTimeout+10*time.Second, o.JobTimeout+time.Minute, 10*time.Second)
	fmt.Fprintf(stderr, "rsconform serve: the web validator is at http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	if o.AllowPrivate {
		fmt.Fprintln(stderr, "rsconform serve: --allow-private: crawls may reach this host's network; do not expose this server")
	}
	select {
	case err := <-done:
		fmt.Fprintln(stderr, "rsconform serve:", err)
		return 2
	case <-ctx.Done():
	}
	shutdown()
	return 0
}
