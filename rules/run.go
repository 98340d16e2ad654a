package rules

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	return runRules(All(), location, in, cfg)
}

func runRules(rules []*Rule, location string, in Input, cfg Config) Result {
	cfg = cfg.withDefaults()
	res := Result{Location: location, Kind: rs.KindUnknown}
	if in.Doc != nil {
		res.Kind = in.Doc.Kind()
	}
	for _, r := range rules {
		if !cfg.Select.Selects(r.ID) || !r.AppliesTo(res.Kind, cfg.Spec) {
			continue
		}
		if r.IsGraph() || (in.Doc == nil && !r.Input) {
			continue
		}
		p := &Pass{Rule: r, Doc: in.Doc, Kind: res.Kind, Spec: cfg.Spec, Limits: cfg.Limits,
			Location: location, Input: &in,
			report: func(d Diagnostic) { res.Diagnostics = append(res.Diagnostics, d) }}
		res.Applied = append(res.Applied, r.ID)
		if err := safeCheck(r, p); err != nil {
			res.Status = StatusError
			res.Error = joinErr(res.Error, fmt.Sprintf("rule %s could not run: %v", r.ID, err))
		}
	}
	if in.Syntax != nil {
		res.Status = StatusError
		res.Error = joinErr(res.Error, "not a well-formed XML document: "+in.Syntax.Error())
	}
	res.Finish()
	return res
}

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

// ValidateBytes validates an uncompressed document held in memory. Parsing
// into the model and schema validation run concurrently.
func (v *Validator) ValidateBytes(ctx context.Context, location string, data []byte) Result {
	if err := ctx.Err(); err != nil {
		return ErrorResult(location, err.Error())
	}
	limits := v.Config.Limits.WithDefaults()
	if int64(len(data)) > limits.MaxBytes {
		return Run(location, Input{TooLarge: &rs.LimitError{What: "document", Limit: limits.MaxBytes}}, v.Config)
	}
	var in Input
	var schemaErr error
	var wg sync.WaitGroup
	// A DOCTYPE never reaches libxml2: the Go parser refuses it and so
	// does the guard here, before any goroutine starts.
	if v.Schema != nil && !rs.HasDoctype(data) && v.schemaSelected() {
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
		var se *rs.SyntaxError
		if !errors.As(err, &se) {
			return ErrorResult(location, err.Error())
		}
		in.Syntax = se
		in.Schema, in.SchemaRan = nil, false // the parser's message is the one that matters
	}
	in.Doc = doc
	res := Run(location, in, v.Config)
	if schemaErr != nil && in.Syntax == nil {
		res.Status = StatusError
		res.Error = joinErr(res.Error, "schema validation failed to run: "+schemaErr.Error())
	}
	return res
}

func (v *Validator) schemaSelected() bool {
	return v.Config.Select.Selects(SchemaRuleID)
}

// ErrorResult is the Result for a document that could not be processed.
func ErrorResult(location, msg string) Result {
	return Result{Location: location, Kind: rs.KindUnknown, Status: StatusError, Error: msg}
}
