package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Input is everything known about one document before its rules run. Rules
// with Rule.Input set check these facts and run even when Doc is nil.
type Input struct {
	// Doc is the parsed document; nil when it could not be parsed.
	Doc *rs.Document
	// TooLarge is set when the document exceeded Limits.MaxBytes and was
	// not read to its end.
	TooLarge *rs.LimitError
	// TooManyAttributes is set when an element had more attributes than
	// rs.MaxAttributes: the front end refused it and read no further.
	TooManyAttributes *rs.AttrLimitError
	// Syntax is the parser's error when the document is not well-formed.
	Syntax *rs.SyntaxError
	// Schema holds libxml2's XSD findings (none when RS-XSD is not selected).
	Schema []SchemaError
}

// SchemaRuleID is the rule under which XML Schema findings are reported
// (document.SchemaValid): the front end validates against the XSDs only
// when it is selected.
const SchemaRuleID = "RS-XSD"

// Config says which rules run and how.
type Config struct {
	Spec   Spec // default Spec11
	Select Selector
	Limits Limits
	// MaxFindingsPerRule, when positive, is the number of findings of one
	// rule a document's Result keeps (the first reported, in document
	// order); the others are only counted, in Result.Omitted. Zero keeps
	// every finding.
	MaxFindingsPerRule int
	// Keep, when set, is asked of every finding of a document at location
	// of kind k, in the order they are reported: a finding it keeps does
	// not count towards MaxFindingsPerRule (a baseline's known findings,
	// removed afterwards, must not push new ones out). It may be called
	// from several goroutines.
	Keep func(location string, k rs.Kind, d Diagnostic) bool
}

// WithDefaults fills what is unset with the defaults: spec 1.1 and the
// Sitemap protocol's limits.
func (c Config) WithDefaults() Config {
	if c.Spec == "" {
		c.Spec = Spec11
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}

// Run applies the selected rules of the catalogue to one input and returns
// the result for the document at location.
func Run(location string, in Input, cfg Config) Result {
	return run(context.Background(), location, in, cfg)
}

// run is Run stopping between rules once ctx is done (its caller then
// gives ctx's error, not the partial result).
func run(ctx context.Context, location string, in Input, cfg Config) Result {
	cfg = cfg.WithDefaults()
	res := Result{Location: location, Kind: rs.KindUnknown}
	if in.Doc != nil {
		res.Kind = in.Doc.Kind()
	}
	rules := selectRules(res.Kind, cfg, in.Doc != nil)
	for _, r := range rules {
		res.Applied = append(res.Applied, r.ID)
	}
	found := newFindings(location, res.Kind, cfg)
	errs := runChecks(ctx, location, &in, cfg, rules, found)
	return finishResult(res, in, found, errs)
}

// selectRules are the document rules that run on a document of kind k:
// selected, applying to k under the spec, and, when there is no document
// (it could not be parsed), only the rules about the input.
func selectRules(k rs.Kind, cfg Config, haveDoc bool) []*Rule {
	var run []*Rule
	for _, r := range catalogue.rules { // All without its copy
		if !cfg.Select.Selects(r.ID) || !r.AppliesTo(k, cfg.Spec) {
			continue
		}
		if r.IsGraph() || (!haveDoc && !r.Input) {
			continue
		}
		run = append(run, r)
	}
	return run
}

// runChecks runs rules on the input, on all cores for a large document:
// each rule runs in one group and reports into found in its own order
// (the result's Finish then sorts the findings by position and rule, so
// the result does not depend on which group ran first); the errors of
// each group are merged in group order. Once ctx is done no further rule
// starts, and a rule's Pass.Entries stops early (see eachEntry): the
// caller gives ctx's error instead of the result.
func runChecks(ctx context.Context, location string, in *Input, cfg Config, run []*Rule, found *findings) (errs []string) {
	groups := 1
	if in.Doc != nil && len(in.Doc.Entries) >= parallelEntries {
		groups = max(min(runtime.GOMAXPROCS(0), len(run)), 1)
	}
	type outcome struct {
		errs []string
	}
	outs := make([]outcome, groups)
	var wg sync.WaitGroup
	for g := 0; g < groups; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			out := &outs[g]
			for k := g; k < len(run) && ctx.Err() == nil; k += groups {
				r := run[k]
				p := newPass(r, in, cfg, location, found.add)
				p.ctx = ctx
				if err := safeCheck(r, p); err != nil {
					out.errs = append(out.errs, couldNotRun(r, err))
				}
			}
		}(g)
	}
	wg.Wait()
	for _, o := range outs {
		errs = append(errs, o.errs...)
	}
	return errs
}

// newPass is the Pass of rule r on the input.
func newPass(r *Rule, in *Input, cfg Config, location string, report func(Diagnostic)) *Pass {
	k := rs.KindUnknown
	if in.Doc != nil {
		k = in.Doc.Kind()
	}
	return &Pass{Rule: r, Doc: in.Doc, Kind: k, Spec: cfg.Spec, Limits: cfg.Limits, required: requiredSet(r),
		Location: location, Input: in, report: report}
}

func couldNotRun(r *Rule, err error) string {
	return fmt.Sprintf("rule %s could not run: %v", r.ID, err)
}

// finishResult adds the findings and the errors of the rules to res.
func finishResult(res Result, in Input, found *findings, errs []string) Result {
	res.Diagnostics = append(res.Diagnostics, found.kept...)
	res.Omitted = append(res.Omitted, found.omittedList()...)
	for _, e := range errs {
		res.Status = StatusError
		res.Error = joinErr(res.Error, e)
	}
	if in.Syntax != nil {
		res.Status = StatusError
		res.Error = joinErr(res.Error, "not a well-formed XML document: "+in.Syntax.Error())
	}
	res.Finish()
	return res
}

// parallelEntries is the size from which a document's rules run on all cores.
const parallelEntries = 2000

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// safeCheck runs a rule, turning a panic into an error: one faulty rule
// must not take the whole run down.
func safeCheck(r *Rule, p *Pass) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	return r.Check(p)
}

// Validator turns documents into Results: size limit, well-formedness, XSD
// validation and the rules. It is safe for concurrent use.
type Validator struct {
	Config Config
	// Schema is the XML front end (rules/frontend.New gives libxml2's);
	// required. Rule selection never changes what it decides: a
	// deselected RS-XSD only skips the XSD findings.
	Schema FrontEnd
	// Source, when set, is given the text of every document validated
	// (uncompressed, within the size limit) before its rules run, for
	// reports that show the lines of the findings (reporter.Sources.Keep).
	// It must not change data. With it, ValidateReader, ValidateFound and
	// ValidateStreamDoc read documents whole into memory; without it, they
	// stream them.
	Source func(location string, data []byte)
	// Inline has the front end read each document on the goroutine that
	// validates it (ReadOptions.Inline), for a caller that validates as
	// many documents at a time as there are CPUs: the front end's own
	// goroutines would then only wait on one another. A Read that blocks
	// holds a cancel back until it returns: set it only to read files or
	// memory.
	Inline bool
}

// ValidateReader validates the document r holds (gzip decompressed
// transparently) as ValidateBytes does, streaming it through the front end
// (FrontEnd.ReadFrom): the document is never whole in memory (unless Source
// is set), and one that is not well-formed is worded by the front end as
// ValidateBytes words it. A document over the size limit gets the limit's
// finding; another read error, a Result with StatusError saying where it
// happened.
func (v *Validator) ValidateReader(ctx context.Context, location string, r io.Reader) Result {
	res, _ := v.stream(ctx, location, r, false)
	return res
}

// ValidateFound is ValidateReader for a document found by walking a
// directory, which may not be a ResourceSync document at all: such a
// document (NotResourceSync) gets SkippedResult, saying why, instead of
// its findings. The document still streams: whether it is ResourceSync is
// told by its header, or, when it has no top-level <rs:md> (its rules then
// wait for its end, its entries kept), by its entries.
func (v *Validator) ValidateFound(ctx context.Context, location string, r io.Reader) Result {
	res, doc := v.stream(ctx, location, r, false)
	if why := NotResourceSync(doc); why != "" {
		return SkippedResult(location, why)
	}
	return res
}

// ValidateStreamDoc is ValidateReader that keeps and returns the parsed
// document (nil when it could not be parsed), as ValidateDoc does.
func (v *Validator) ValidateStreamDoc(ctx context.Context, location string, r io.Reader) (Result, *rs.Document) {
	return v.stream(ctx, location, r, true)
}

func (v *Validator) stream(ctx context.Context, location string, r io.Reader, keep bool) (Result, *rs.Document) {
	if err := ctx.Err(); err != nil {
		return ErrorResult(location, err.Error()), nil
	}
	limits := v.Config.Limits.WithDefaults()
	if v.Source != nil {
		data, err := rs.ReadAll(r, limits.MaxBytes)
		if err != nil {
			return v.readFailure(location, err), nil
		}
		return v.validateBytes(ctx, location, data, keep)
	}
	return v.validate(ctx, location, keep, func(fe FrontEnd, opts ReadOptions) (*rs.Document, []SchemaError, error) {
		return fe.ReadFrom(ctx, rs.DocumentReader(r, limits.MaxBytes), opts)
	})
}

// readFailure is the Result of a document that could not be read: the
// size limit's finding, or an error.
func (v *Validator) readFailure(location string, err error) Result {
	var le *rs.LimitError
	if errors.As(err, &le) {
		return Run(location, Input{TooLarge: le}, v.Config)
	}
	return ErrorResult(location, fmt.Sprintf("cannot read: %v", err))
}

// ValidateBytes validates an uncompressed document held in memory. Its
// rules run while the front end reads it, and its entries are dropped as
// soon as they are checked (see Scope), so memory does not grow with the
// number of entries.
func (v *Validator) ValidateBytes(ctx context.Context, location string, data []byte) Result {
	res, _ := v.validateBytes(ctx, location, data, false)
	return res
}

// ValidateDoc is ValidateBytes that also returns the parsed document (nil
// when the document could not be parsed), for callers that walk it (the
// crawler): the document is parsed once, by the front end, which also
// validates it against the XSDs in the same pass when RS-XSD is selected;
// the rules then run on the model.
func (v *Validator) ValidateDoc(ctx context.Context, location string, data []byte) (Result, *rs.Document) {
	return v.validateBytes(ctx, location, data, true)
}

func (v *Validator) validateBytes(ctx context.Context, location string, data []byte, keep bool) (Result, *rs.Document) {
	if err := ctx.Err(); err != nil {
		return ErrorResult(location, err.Error()), nil
	}
	limits := v.Config.Limits.WithDefaults()
	if int64(len(data)) > limits.MaxBytes {
		return Run(location, Input{TooLarge: &rs.LimitError{What: "document", Limit: limits.MaxBytes}}, v.Config), nil
	}
	if v.Source != nil {
		v.Source(location, data)
	}
	return v.validate(ctx, location, keep, func(fe FrontEnd, opts ReadOptions) (*rs.Document, []SchemaError, error) {
		// Through ReadFrom, which stops when ctx is done (ReadWith would
		// read on whatever the caller's deadline).
		return fe.ReadFrom(ctx, bytes.NewReader(data), opts)
	})
}

// validate reads a document through the front end with read and checks
// it: with keep unset the rules run while the document is read (see
// Scope) and the model returned has lost the entries they saw (it keeps
// them only when the rules never started: without a top-level <rs:md>);
// with keep set the whole model is kept and returned.
func (v *Validator) validate(ctx context.Context, location string, keep bool, read func(FrontEnd, ReadOptions) (*rs.Document, []SchemaError, error)) (Result, *rs.Document) {
	fe, err := v.frontEnd()
	if err != nil {
		return ErrorResult(location, err.Error()), nil
	}
	opts := ReadOptions{Validate: v.Config.Select.Selects(SchemaRuleID), Inline: v.Inline}
	var st *stream
	if !keep {
		st = newStream(location, v.Config)
		opts.OnEntries, opts.Window, opts.Pool = st.entries, streamWindow, st.pool
	}
	doc, errs, err := read(fe, opts)
	in := Input{Doc: doc, Schema: errs}
	if err != nil {
		in = Input{}
		var se *rs.SyntaxError
		var re *ReadError
		var ae *rs.AttrLimitError
		var failed *Result
		switch {
		case errors.As(err, &se):
			in.Syntax = se
		case errors.As(err, &ae):
			in.TooManyAttributes, err = ae, nil // its rule says so
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			failed = &Result{Location: location, Kind: rs.KindUnknown, Status: StatusError, Error: err.Error()}
		case errors.As(err, &re):
			res := v.readFailure(location, err)
			failed = &res
		}
		if failed != nil {
			if st != nil {
				st.finish(ctx, in) // the rules end where they are
			}
			return *failed, nil
		}
	}
	var res Result
	if st != nil {
		res = st.finish(ctx, in)
	} else {
		res = run(ctx, location, in, v.Config)
	}
	if ctx.Err() != nil {
		// The rules stopped where they were: no verdict on part of them.
		return Result{Location: location, Kind: res.Kind, Status: StatusError,
			Error: "the rules were stopped: " + context.Cause(ctx).Error()}, nil
	}
	if err != nil && in.Syntax == nil {
		res.Status, res.Error = StatusError, joinErr(res.Error, "the document could not be read: "+err.Error())
	}
	return res, doc
}

// Parse reads a document through the validator's front end without
// checking it (no XSD, no rules), for a caller that only needs the model of
// a document already validated (the crawler reading a Change List again):
// it accepts exactly what ValidateDoc calls well-formed. A document that is
// not well-formed gives a *rs.SyntaxError.
func (v *Validator) Parse(data []byte) (*rs.Document, error) {
	fe, err := v.frontEnd()
	if err != nil {
		return nil, err
	}
	doc, _, err := fe.ReadWith(data, ReadOptions{})
	return doc, err
}

func (v *Validator) frontEnd() (FrontEnd, error) {
	if v.Schema == nil {
		return nil, errNoFrontEnd
	}
	return v.Schema, nil
}

// errNoFrontEnd is the error of a Validator built without its front end.
var errNoFrontEnd = errors.New("rules: the Validator has no XML front end (see rules/frontend)")

// ErrorResult is the Result for a document that could not be processed.
func ErrorResult(location, msg string) Result {
	return Result{Location: location, Kind: rs.KindUnknown, Status: StatusError, Error: msg}
}
