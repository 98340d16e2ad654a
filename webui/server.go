// Package webui is rsconform's web validator: a page where a Source's
// developer pastes a URL (crawled with budgets fit for a public service),
// uploads a file or pastes a document, and gets the html report, with a
// page per rule quoting the specification and showing a failing and a
// passing example.
//
// It is meant to be exposed to people who should not reach the host's
// network: crawls never connect to loopback, private, link-local or other
// special-purpose addresses (checked when each connection is made) unless
// Options.AllowPrivate; jobs are limited in number, request size and time;
// uploads are held in memory only, never written to disk.
//
// The package prints nothing: Options.Logf, when set, is told of each job.
package webui

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/reporter"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/rules/graph"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Options configure the web validator. The zero value of a field means its
// default.
type Options struct {
	// Schema is the XML front end; nil means libxml2's (frontend.New).
	Schema engine.FrontEnd
	// Version is the tool's version, shown in reports.
	Version string
	// AllowPrivate lets crawls reach loopback, private and link-local
	// addresses (a validator on a developer's machine or in a private
	// network).
	AllowPrivate bool
	// MaxJobs is the number of checks running at once (default 4); a
	// request beyond it is answered 503 at once.
	MaxJobs int
	// MaxBody caps a request's body, an upload or a pasted document
	// included (default 10 MiB).
	MaxBody int64
	// JobTimeout bounds one check, a crawl included (default 60 s): its
	// validation and the rendering of its report stop then, as they stop
	// when the visitor hangs up.
	JobTimeout time.Duration
	// BodyTimeout bounds the reading of a request's body (default 30 s).
	// The body is read before a job slot is taken, so a slow body holds
	// none; at most 8 x MaxJobs bodies are read at once (more are
	// answered 503), which bounds their memory to that many MaxBody.
	BodyTimeout time.Duration
	// MaxFindings is the number of findings of one document the html
	// report shows (default 1,000); it says how many more there are. The
	// json and sarif formats, which the form offers too, give all those
	// kept (MaxFindingsPerRule).
	MaxFindings int
	// MaxFindingsPerRule is the engine's cap on the findings of one rule
	// a document's result keeps, the others only counted
	// (engine.Config.MaxFindingsPerRule, the CLI's --max-findings-per-rule;
	// default engine.DefaultMaxFindingsPerRule; negative keeps all). It
	// bounds the json and sarif reports, and the memory of a check.
	MaxFindingsPerRule int
	// MaxDocuments and MaxBytes are a crawl's budget (default 100
	// documents, 32 MiB downloaded).
	MaxDocuments int
	MaxBytes     int64
	// Rate is the requests per second a crawl sends to the Source
	// (default 5; negative: no limit, for tests on a local Source).
	Rate float64
	// Logf, when set, is told of each job (for the CLI's log).
	Logf func(format string, args ...any)

	// transport replaces the guarded transport; lookup, when set, resolves
	// the names of the early check and of the guarded transport's
	// connections instead of the system resolver (tests).
	transport http.RoundTripper
	lookup    lookupFunc
}

func (o Options) withDefaults() Options {
	if o.MaxJobs <= 0 {
		o.MaxJobs = 4
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 10 << 20
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = 60 * time.Second
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 30 * time.Second
	}
	if o.MaxFindings <= 0 {
		o.MaxFindings = 1000
	}
	if o.MaxFindingsPerRule == 0 {
		o.MaxFindingsPerRule = engine.DefaultMaxFindingsPerRule
	}
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = 100
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 32 << 20
	}
	if o.Rate == 0 {
		o.Rate = 5
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return o
}

// Server is the web validator, an http.Handler. Its links are relative, so
// it can be mounted under any path prefix by a reverse proxy that strips
// the prefix.
type Server struct {
	o         Options
	mux       *http.ServeMux
	jobs      chan struct{}
	reading   chan struct{} // bodies being read
	tmpl      *template.Template
	transport http.RoundTripper
}

// New returns the web validator.
func New(o Options) (*Server, error) {
	o = o.withDefaults()
	if o.Schema == nil {
		fe, err := frontend.New()
		if err != nil {
			return nil, fmt.Errorf("webui: %w", err)
		}
		o.Schema = fe
	}
	tmpl, err := reporter.HTMLTemplates().ParseFS(pages, "pages/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("webui: templates: %w", err)
	}
	s := &Server{o: o, mux: http.NewServeMux(), jobs: make(chan struct{}, o.MaxJobs),
		reading: make(chan struct{}, 8*o.MaxJobs), tmpl: tmpl,
		transport: o.transport}
	if s.transport == nil {
		s.transport = newTransport(o.AllowPrivate, o.JobTimeout, o.lookup)
	}
	s.mux.HandleFunc("GET /{$}", s.form)
	s.mux.HandleFunc("POST /check", s.check)
	// GET /check?url=URL crawls URL: a report to link to, as the W3C
	// validator's ?uri= (the form's URL field sends it this way).
	s.mux.HandleFunc("GET /check", s.check)
	s.mux.HandleFunc("GET /rules/{$}", s.ruleList)
	s.mux.HandleFunc("GET /rules/{id}", s.rule)
	return s, nil
}

// ServeHTTP serves the pages with headers that keep them to themselves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", reporter.HTMLPolicy("'self'")+"; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf(format, args...)
	}
}

// formPage is what the "form" page shows.
type formPage struct {
	reporter.HTMLPage
	AllowPrivate      bool
	MaxDocuments      int
	MaxBytes, MaxBody string
	JobTimeout        time.Duration
	Message           string
	URL               string
}

func (s *Server) page(title, home string) reporter.HTMLPage {
	return reporter.NewHTMLPage(title, home, "rsconform", "'self'")
}

func (s *Server) formData(msg, url string) formPage {
	return formPage{HTMLPage: s.page("rsconform: ResourceSync validator", ""),
		AllowPrivate: s.o.AllowPrivate, MaxDocuments: s.o.MaxDocuments,
		MaxBytes: mib(s.o.MaxBytes), MaxBody: mib(s.o.MaxBody), JobTimeout: s.o.JobTimeout,
		Message: msg, URL: url}
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (s *Server) form(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "form", s.formData("", ""))
}

// render executes a page into memory first, so that a failing template
// gives a clean 500, not half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		s.logf("rendering %s: %v", name, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fail answers with the form and a message saying what went wrong.
func (s *Server) fail(w http.ResponseWriter, status int, msg, url string) {
	s.render(w, status, "form", s.formData(msg, url))
}

// input is what a visitor asked to check.
type input struct {
	url     string
	name    string // the uploaded file's name, or "pasted document"
	data    []byte
	hasData bool
	spec    string
	strict  bool
	format  string // html (default), json or sarif
}

// check runs one job: a crawl of a URL, or the validation of an uploaded
// or pasted document. The request's body is read first, with its own
// deadline (BodyTimeout), and only then is a job slot taken: a body sent
// slowly holds no slot. The job then runs within JobTimeout, and stops
// (validation and rendering) when that passes or the visitor hangs up.
func (s *Server) check(w http.ResponseWriter, r *http.Request) {
	in, ok := s.readBody(w, r)
	if !ok {
		return
	}
	select {
	case s.jobs <- struct{}{}:
		defer func() { <-s.jobs }()
	default:
		w.Header().Set("Retry-After", "30")
		s.fail(w, http.StatusServiceUnavailable, fmt.Sprintf("The validator is busy: %d checks are running, the most it runs at once. Try again in a moment.", s.o.MaxJobs), in.url)
		return
	}
	spec, err := engine.ParseSpec(in.spec)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error(), in.url)
		return
	}
	format := reporter.FormatHTML
	switch in.format {
	case "", "html":
	case "json":
		format = reporter.FormatJSON
	case "sarif":
		format = reporter.FormatSARIF
	default:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("unknown report format %q: html, json or sarif", in.format), in.url)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.JobTimeout)
	defer cancel()
	var sources *reporter.Sources
	var keep func(string, []byte)
	if format == reporter.FormatHTML {
		sources = reporter.NewSources(max(s.o.MaxBytes, s.o.MaxBody))
		keep = sources.Keep
	}
	v := &engine.Validator{Config: engine.Config{Spec: spec, MaxFindingsPerRule: max(s.o.MaxFindingsPerRule, 0)},
		Schema: s.o.Schema, Source: keep}
	opts := reporter.Options{Tool: "rsconform", Version: s.o.Version, Spec: string(spec), Strict: in.strict,
		Sources: sources, Home: "./", RuleURL: func(id string) string { return "rules/" + url.PathEscape(id) }}
	var results []engine.Result
	var sampling *graph.Sampling
	start := time.Now()
	if in.url != "" {
		u, err := s.checkURL(ctx, in.url)
		if err != nil {
			status := http.StatusBadRequest
			var refused *RefusedError
			if errors.As(err, &refused) {
				status = http.StatusForbidden
			}
			s.fail(w, status, err.Error(), in.url)
			return
		}
		report, err := crawler.Crawl(ctx, u, crawler.Options{
			Validator: v, MaxDocuments: s.o.MaxDocuments, MaxBytes: s.o.MaxBytes,
			HTTP: sourcehttp.Config{Concurrency: 2, Rate: max(s.o.Rate, 0), Timeout: min(s.o.JobTimeout, 20*time.Second),
				Retries: sourcehttp.NoRetries, UserAgent: "rsconform-web/" + s.o.Version, Transport: s.transport},
			Sample: 3, SampleSet: true,
		})
		if err != nil {
			s.fail(w, http.StatusBadRequest, err.Error(), in.url)
			return
		}
		results, sampling = report.Results, report.Sampling
		if report.EntryError != nil {
			opts.Notes = append(opts.Notes, "The entry point is unusable: "+report.EntryError.Error())
		}
		if ctx.Err() != nil || time.Since(start) >= s.o.JobTimeout {
			opts.Notes = append(opts.Notes, fmt.Sprintf("The crawl was stopped after %s, the time the validator gives one check: the report is partial.", s.o.JobTimeout))
		}
		if report.Stats.Skipped > 0 {
			opts.Notes = append(opts.Notes, fmt.Sprintf("%d URLs were not fetched (another host, or beyond the budget of %d documents and %s).", report.Stats.Skipped, s.o.MaxDocuments, mib(s.o.MaxBytes)))
		}
		opts.Title = "Report: " + u
		s.logf("crawl %s: %d documents in %s", u, len(results), time.Since(start).Round(time.Millisecond))
	} else {
		res := v.ValidateReader(ctx, in.name, bytes.NewReader(in.data))
		s.logf("validate %s (%d bytes) in %s", in.name, len(in.data), time.Since(start).Round(time.Millisecond))
		if r.Context().Err() != nil {
			s.logf("validate %s: stopped, the visitor has gone", in.name)
			return
		}
		if ctx.Err() != nil {
			s.fail(w, http.StatusServiceUnavailable, fmt.Sprintf("The check was stopped after %s, the time the validator gives one check: no verdict. Check a smaller document, or run rsconform validate on your own machine.", s.o.JobTimeout), "")
			return
		}
		results = []engine.Result{res}
		opts.Title = "Report: " + in.name
	}
	if r.Context().Err() != nil {
		return
	}
	// The report is written within what is left of the job's time, but
	// 10 s at least: a crawl stopped at its time limit (or ended just
	// before it) still writes its partial report. It stops if the
	// visitor goes.
	deadline, _ := ctx.Deadline()
	rctx, rcancel := context.WithTimeout(r.Context(), max(time.Until(deadline), 10*time.Second))
	defer rcancel()
	s.report(rctx, w, format, opts, results, sampling)
}

// readBody reads the request's form within MaxBody and BodyTimeout,
// holding one of the reading slots (not a job slot) meanwhile. It answers
// the request itself when it fails (ok false).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (in input, ok bool) {
	select {
	case s.reading <- struct{}{}:
		defer func() { <-s.reading }()
	default:
		w.Header().Set("Retry-After", "30")
		s.fail(w, http.StatusServiceUnavailable, "The validator is busy receiving other requests. Try again in a moment.", "")
		return in, false
	}
	rc := http.NewResponseController(w)
	// Not every ResponseWriter has deadlines (an error then): the
	// server's ReadTimeout still bounds the body.
	if rc.SetReadDeadline(time.Now().Add(s.o.BodyTimeout)) == nil {
		// The deadline is the body's only: cleared, or the connection's
		// background read would end the job's context when it passes.
		defer rc.SetReadDeadline(time.Time{})
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBody)
	in, err := s.readInput(r)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			s.fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("The request is too large: the validator takes documents of at most %s.", mib(s.o.MaxBody)), "")
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			s.fail(w, http.StatusRequestTimeout, fmt.Sprintf("The request did not arrive within %s.", s.o.BodyTimeout), "")
		default:
			s.fail(w, http.StatusBadRequest, err.Error(), in.url)
		}
		return in, false
	}
	return in, true
}

// report writes the report of results in format, as it is rendered (the
// page is never whole in memory), and stops when ctx ends. The html page
// shows at most MaxFindings findings per document, saying how many more
// there are and that the json and sarif formats give them all.
func (s *Server) report(ctx context.Context, w http.ResponseWriter, format string, opts reporter.Options, results []engine.Result, sampling *graph.Sampling) {
	h := w.Header()
	switch format {
	case reporter.FormatJSON:
		h.Set("Content-Type", "application/json")
		h.Set("Content-Disposition", `attachment; filename="rsconform-report.json"`)
	case reporter.FormatSARIF:
		h.Set("Content-Type", "application/sarif+json")
		h.Set("Content-Disposition", `attachment; filename="rsconform-report.sarif"`)
	default:
		h.Set("Content-Type", "text/html; charset=utf-8")
		opts.MaxFindings = s.o.MaxFindings
		opts.OmittedHint = "Check it again with the report format JSON or SARIF for all of them."
	}
	bw := bufio.NewWriterSize(ctxWriter{ctx, w}, 32<<10)
	rep, err := reporter.New(format, bw, opts)
	if sr, ok := rep.(reporter.SamplingReporter); ok && sampling != nil {
		sr.SetSampling(sampling)
	}
	if err == nil {
		for _, res := range results {
			if err = rep.Write(res); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = rep.Flush()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		// Part of the page may be sent: the connection is cut short
		// rather than end in a page that looks whole.
		s.logf("writing a report: %v", err)
		panic(http.ErrAbortHandler)
	}
}

// ctxWriter writes to w until ctx ends, then fails.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// readInput reads the form: urlencoded, or multipart for an upload. A
// multipart body is read part by part into memory (ParseMultipartForm
// would spill large files to disk).
func (s *Server) readInput(r *http.Request) (input, error) {
	in := input{spec: string(engine.Spec11)}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	fields := map[string]string{}
	if r.Method == http.MethodGet {
		// A link holds a URL to crawl and its options, never a document.
		q := r.URL.Query()
		for _, k := range []string{"url", "spec", "strict"} {
			if v := q.Get(k); v != "" {
				fields[k] = v
			}
		}
	}
	switch {
	case r.Method == http.MethodGet:
	case ct == "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			return in, fmt.Errorf("unreadable form: %w", err)
		}
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return in, fmt.Errorf("unreadable form: %w", err)
			}
			data, err := io.ReadAll(p)
			if err != nil {
				return in, fmt.Errorf("unreadable form: %w", err)
			}
			if p.FormName() == "file" {
				if p.FileName() != "" || len(data) > 0 {
					in.name, in.data, in.hasData = uploadName(p), data, true
				}
				continue
			}
			fields[p.FormName()] = string(data)
		}
	case ct == "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return in, fmt.Errorf("unreadable form: %w", err)
		}
		for k := range r.PostForm {
			fields[k] = r.PostForm.Get(k)
		}
	default:
		return in, fmt.Errorf("unsupported form encoding %q", ct)
	}
	in.url = strings.TrimSpace(fields["url"])
	if v := fields["spec"]; v != "" {
		in.spec = v
	}
	in.strict = fields["strict"] != ""
	in.format = fields["format"]
	if xml := fields["xml"]; strings.TrimSpace(xml) != "" {
		if in.hasData {
			return in, errors.New("give one thing to check: a URL, a file or a pasted document")
		}
		in.name, in.data, in.hasData = "pasted document", []byte(xml), true
	}
	switch {
	case in.url != "" && in.hasData:
		return in, errors.New("give one thing to check: a URL, a file or a pasted document")
	case in.url == "" && !in.hasData:
		return in, errors.New("nothing to check: give a URL, a file or a pasted document")
	case in.hasData && len(in.data) == 0:
		return in, errors.New("the uploaded file is empty")
	}
	return in, nil
}

// uploadName is the name an uploaded file is reported under.
func uploadName(p *multipart.Part) string {
	if n := p.FileName(); n != "" {
		return n
	}
	return "uploaded document"
}

// checkURL validates a URL to crawl and refuses it early when its host
// is one the guard would refuse.
func (s *Server) checkURL(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not an http or https URL", raw)
	}
	if u.User != nil {
		return "", errors.New("URLs with a user name or password are not crawled")
	}
	if !s.o.AllowPrivate {
		if err := checkHost(ctx, s.o.lookup, u.Hostname()); err != nil {
			return "", err
		}
	}
	u.Fragment = ""
	return u.String(), nil
}

// rulePage is what the "rule" page shows.
type rulePage struct {
	reporter.HTMLPage
	Rule          *engine.Rule
	SectionTitle  string
	Severity      string
	Applies       []string
	Specs         []string
	Fail, Pass    *fixtures.Fixture
	CatalogueLink string
}

func (s *Server) rule(w http.ResponseWriter, r *http.Request) {
	id := strings.ToUpper(r.PathValue("id"))
	rule := engine.Lookup(id)
	if rule == nil {
		s.render(w, http.StatusNotFound, "notfound", s.page("No such rule", "../"))
		return
	}
	p := rulePage{HTMLPage: s.page(rule.ID+": "+rule.Title, "../"), Rule: rule,
		Severity: string(rule.Level.Severity()), CatalogueLink: reporter.DefaultRuleURL(rule.ID)}
	if sec := rules.Section(rule.Section); sec != nil {
		p.SectionTitle = sec.Title
	}
	for _, k := range rule.Applies {
		p.Applies = append(p.Applies, string(k))
	}
	for _, sp := range rule.Specs {
		p.Specs = append(p.Specs, string(sp))
	}
	if fail, pass, err := fixtures.Examples(rule.ID); err == nil {
		p.Fail, p.Pass = fail, pass
	}
	s.render(w, http.StatusOK, "rule", p)
}

// ruleListPage is what the "rules" page shows.
type ruleListPage struct {
	reporter.HTMLPage
	Rules []*engine.Rule
}

func (s *Server) ruleList(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "rules", ruleListPage{HTMLPage: s.page("rsconform: the rules", "../"), Rules: engine.All()})
}
