package rules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/schema"
)

// Input is everything known about one document before its rules run. Rules
// with Rule.Input set check these facts and run even when Doc is nil.
type Input struct {
	// Doc is the parsed document; nil when it could not be parsed.
	Doc *rs.Document
	// TooLarge is set when the document exceeded Limits.MaxBytes and was
	// not read to its end.
	TooLarge *rs.LimitError
	// Syntax is the parser's error when the document is not well-formed.
	Syntax *rs.SyntaxError
	// Schema holds libxml2's findings; SchemaRan tells whether schema
	// validation ran at all.
	Schema    []schema.Error
	SchemaRan bool
}

// Config says which rules run and how.
type Config struct {
	Spec   Spec // default Spec11
	Select Selector
	Limits Limits
}

func (c Config) withDefaults() Config {
	if c.Spec == "" {
		c.Spec = Spec11
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}

// Run applies the selected rules of the catalogue to one input and returns
// the result for the document at location.
func Run(location string, in Input, cfg Config) Result {
	return runRules(All(), location, in, cfg, nil)
}

// runRules applies the selected rules (those keep accepts, all when keep
// is nil) to one input.
func runRules(rules []*Rule, location string, in Input, cfg Config, keep func(*Rule) bool) Result {
	cfg = cfg.withDefaults()
	res := Result{Location: location, Kind: rs.KindUnknown}
	if in.Doc != nil {
		res.Kind = in.Doc.Kind()
	}
	var run []*Rule
	for _, r := range rules {
		if !cfg.Select.Selects(r.ID) || !r.AppliesTo(res.Kind, cfg.Spec) {
			continue
		}
		if r.IsGraph() || (in.Doc == nil && !r.Input) || (keep != nil && !keep(r)) {
			continue
		}
		run = append(run, r)
		res.Applied = append(res.Applied, r.ID)
	}
	index := &docIndex{}
	if in.Doc != nil {
		// Computed before the rules run, so that concurrent rules only read it.
		index.mds, index.mdsDone = allMd(in.Doc), true
		index.lns, index.lnsDone = allLn(in.Doc), true
	}
	// A large document's rules are shared among the cores: each group
	// reports into its own slices, merged in group order; Finish then sorts
	// the findings by position and rule, so the result does not depend on
	// which group ran first.
	groups := 1
	if in.Doc != nil && len(in.Doc.Entries) >= parallelEntries {
		groups = min(runtime.GOMAXPROCS(0), len(run))
	}
	type outcome struct {
		diags []Diagnostic
		errs  []string
	}
	outs := make([]outcome, max(groups, 1))
	var wg sync.WaitGroup
	for g := 0; g < groups; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			out := &outs[g]
			for k := g; k < len(run); k += groups {
				r := run[k]
				p := &Pass{Rule: r, Doc: in.Doc, Kind: res.Kind, Spec: cfg.Spec, Limits: cfg.Limits,
					Location: location, Input: &in, index: index,
					report: func(d Diagnostic) { out.diags = append(out.diags, d) }}
				if err := safeCheck(r, p); err != nil {
					out.errs = append(out.errs, fmt.Sprintf("rule %s could not run: %v", r.ID, err))
				}
			}
		}(g)
	}
	wg.Wait()
	for _, o := range outs {
		res.Diagnostics = append(res.Diagnostics, o.diags...)
		for _, e := range o.errs {
			res.Status = StatusError
			res.Error = joinErr(res.Error, e)
		}
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

// SchemaValidator validates a document's bytes against the ResourceSync
// XSDs; *schema.Validator implements it.
type SchemaValidator interface {
	Validate(data []byte) ([]schema.Error, error)
}

// Validator turns bytes into a Result: size limit, well-formedness, XSD
// validation and the rules. It is safe for concurrent use.
type Validator struct {
	Config Config
	// Schema validates against the XSDs; nil skips schema validation.
	Schema SchemaValidator
	// Source, when set, is given the text of every document validated
	// (uncompressed, within the size limit) before its rules run, for
	// reports that show the lines of the findings (reporter.Sources.Keep).
	// It must not change data.
	Source func(location string, data []byte)
}

// ValidateReader reads a document (gzip decompressed transparently) within
// the size limit and validates it. A read error other than the limit is
// returned as a Result with StatusError.
func (v *Validator) ValidateReader(ctx context.Context, location string, r io.Reader) Result {
	limits := v.Config.Limits.WithDefaults()
	data, err := rs.ReadAll(r, limits.MaxBytes)
	if err != nil {
		var le *rs.LimitError
		if errors.As(err, &le) {
			return Run(location, Input{TooLarge: le}, v.Config)
		}
		return ErrorResult(location, fmt.Sprintf("cannot read: %v", err))
	}
	return v.ValidateBytes(ctx, location, data)
}

// ValidateBytes validates an uncompressed document held in memory.
//
// With a schema Checker (the libxml2 validator), the document is parsed
// once: libxml2 parses it, the model is built from that parse and the XSD
// validation runs alongside. Without one, the pure-Go parser builds the
// model. Either way a document that is not well-formed gets the pure-Go
// parser's located message, so that a document reads the same whatever
// validated it.
func (v *Validator) ValidateBytes(ctx context.Context, location string, data []byte) Result {
	res, _ := v.ValidateDoc(ctx, location, data)
	return res
}

// ValidateDoc is ValidateBytes that also returns the parsed document (nil
// when the document could not be parsed), for callers that walk it (the
// crawler): the document is parsed once.
func (v *Validator) ValidateDoc(ctx context.Context, location string, data []byte) (Result, *rs.Document) {
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
	var in Input
	if se := rs.CheckEncoding(data); se != nil {
		in.Syntax = se
		return Run(location, in, v.Config), in.Doc
	}
	starter, _ := v.Schema.(SchemaStarter)
	// A DOCTYPE never reaches libxml2: the Go parser refuses it.
	useSchema := v.Schema != nil && v.schemaSelected() && !rs.HasDoctype(data)
	if useSchema && starter != nil {
		doc, perrs, wait, err := starter.Start(data)
		if err != nil {
			res := Run(location, in, v.Config)
			res.Status, res.Error = StatusError, "schema validation failed to run: "+err.Error()
			return res, in.Doc
		}
		if doc != nil {
			// The document rules run while libxml2 validates; the input
			// rules (RS-XSD) once it is done.
			in.Doc = doc
			res := runRules(All(), location, in, v.Config, func(r *Rule) bool { return !r.Input })
			errs, err := wait()
			if err != nil {
				res.Status, res.Error = StatusError, "schema validation failed to run: "+err.Error()
				res.Finish()
				return res, in.Doc
			}
			in.Schema, in.SchemaRan = errs, true
			more := runRules(All(), location, in, v.Config, func(r *Rule) bool { return r.Input })
			res.Diagnostics = append(res.Diagnostics, more.Diagnostics...)
			res.Applied = append(res.Applied, more.Applied...)
			if more.Status == StatusError {
				res.Status, res.Error = StatusError, joinErr(res.Error, more.Error)
			}
			res.Finish()
			return res, in.Doc
		}
		// Not well-formed: prefer the Go parser's message; fall back to
		// libxml2's when only libxml2 objects.
		if _, gerr := rs.ParseBytes(data); gerr != nil {
			return v.syntaxResult(location, gerr), nil
		}
		se := &rs.SyntaxError{Pos: rs.Pos{Line: 1, Column: 1}, Msg: "not well-formed XML"}
		if len(perrs) > 0 {
			se = &rs.SyntaxError{Pos: rs.Pos{Line: perrs[0].Line, Column: perrs[0].Column}, Msg: perrs[0].Message}
		}
		in.Syntax = se
		return Run(location, in, v.Config), in.Doc
	}
	var schemaErr error
	var wg sync.WaitGroup
	if useSchema {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.Schema, schemaErr = v.Schema.Validate(data)
			in.SchemaRan = schemaErr == nil
		}()
	}
	doc, err := rs.ParseBytes(data)
	wg.Wait()
	if err != nil {
		return v.syntaxResult(location, err), nil
	}
	in.Doc = doc
	res := Run(location, in, v.Config)
	if schemaErr != nil {
		res.Status = StatusError
		res.Error = joinErr(res.Error, "schema validation failed to run: "+schemaErr.Error())
	}
	return res, in.Doc
}

// syntaxResult is the result of a document the Go parser refused.
func (v *Validator) syntaxResult(location string, err error) Result {
	var se *rs.SyntaxError
	if !errors.As(err, &se) {
		return ErrorResult(location, err.Error())
	}
	return Run(location, Input{Syntax: se}, v.Config)
}

// SchemaStarter is a SchemaValidator that also builds the model from its
// own parse (one parse instead of two) and validates in the background
// while the caller works on the model; *schema.Validator implements it.
// See schema.Validator.Start.
type SchemaStarter interface {
	Start(data []byte) (doc *rs.Document, perrs []schema.Error, wait func() ([]schema.Error, error), err error)
}

func (v *Validator) schemaSelected() bool {
	return v.Config.Select.Selects(SchemaRuleID)
}

// ErrorResult is the Result for a document that could not be processed.
func ErrorResult(location, msg string) Result {
	return Result{Location: location, Kind: rs.KindUnknown, Status: StatusError, Error: msg}
}
