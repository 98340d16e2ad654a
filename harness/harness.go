// Package harness tests a ResourceSync Destination against rsconform's
// mock Source (package mocksource): it plays a scenario on a server on
// 127.0.0.1, runs the Destination's command after each step, and judges
// the result like h2spec judges a server: one verdict per step and
// requirement, with what was expected and what was found.
//
// The Destination is any program: its arguments may hold {source} (the
// Source Description's URI), {dir} (the directory to keep in step),
// {step}, {token} (the bearer token of a scenario whose Source wants
// one, else empty), {origin} and {origin2} (the base URLs of the Source's
// two origins, http://127.0.0.1:PORT, both listening on 127.0.0.1 only);
// the same values are in the environment as RSCONFORM_SOURCE,
// RSCONFORM_DIR, RSCONFORM_STEP, RSCONFORM_TOKEN, RSCONFORM_ORIGIN and
// RSCONFORM_ORIGIN2. It is expected to mirror each resource's URI path,
// as written, under DIR (http://host/a/b.html in DIR/a/b.html, as
// rsconform sync does for the Source's origin; escapes kept, a query at
// the end of the name: names.go), and the resources of the second origin
// under DIR/origin2 ({origin2}/a/b.html in DIR/origin2/a/b.html; only
// scenario second-origin has any); names at the top of DIR starting with
// ".rsconform" are its own and are not looked at. A run that dies by a signal is a crash; a
// run that leaves no DIR fails, and DIR is judged as empty.
//
// The harness drives the mock through Go calls (Source.Step,
// Source.Expected, Source.LogSince); the Destination alone talks HTTP. The command runs once before the first step (the
// Source's initial state) and after every checkpoint step (a step with
// expect in the scenario); steps without one are the Destination's time
// offline, unless Config.EveryStep.
package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
	"github.com/rsconform/rsconform/rules/engine"
)

// Config is one scenario to play against one Destination.
type Config struct {
	Scenario *scenario.Scenario
	// Source holds further options of the mock Source (Resources, Seed,
	// MaxEntries ...); its Scenario is replaced by the one above.
	Source mocksource.Options
	// Dir is the Destination's directory; it is created when missing.
	Dir string
	// Command is the Destination: program and arguments.
	Command []string
	// Timeout bounds one run of the command (default 5 minutes); a
	// command still running then is killed with its process group.
	Timeout time.Duration
	// MaxRate is the most requests the Destination may make in any one
	// second; 0 leaves the rate unchecked.
	MaxRate float64
	// EveryStep runs the command after every step, checkpoints or not.
	EveryStep bool
	// Env is added to the command's environment.
	Env []string
	// Output, when set, receives the command's output as it runs.
	Output io.Writer
	// Select chooses the requirements judged; the zero Selector, all.
	Select engine.Selector
	// Progress, when set, is called before and after each run of the
	// command (test-destination shows it on a terminal).
	Progress func(Progress)
}

// Progress is where a scenario stands: the command is about to run after
// step Step of Steps (Run nil), or has run (Run and Verdicts set).
type Progress struct {
	Scenario    string
	Step, Steps int
	Name        string
	Run         *RunInfo
	Verdicts    []Verdict
}

// Selects reports whether the requirement with this ID is judged.
func (c *Config) Selects(id string) bool { return c.Select.Selects(id) }

// Result is the outcome of one scenario.
type Result struct {
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	// File is the scenario's YAML file when it was read from one (not a
	// built-in scenario): the steps' Line are its lines.
	File     string       `json:"file,omitempty"`
	Source   string       `json:"source"`
	Dir      string       `json:"dir"`
	Command  []string     `json:"command"`
	Duration float64      `json:"duration_seconds"`
	Steps    []StepResult `json:"steps"`
	// Interrupted says why the scenario stopped before its last step (an
	// interrupt, the mock Source failing): the steps after the last one
	// in Steps were not played, and have no verdict.
	Interrupted string `json:"interrupted,omitempty"`
}

// StepResult is one step: the run of the command after it and the
// verdicts. Steps where the command did not run have Ran false and no
// verdicts.
type StepResult struct {
	Step       int       `json:"step"`
	Name       string    `json:"name"`
	Time       time.Time `json:"time"`
	Checkpoint bool      `json:"checkpoint"`
	// Line is the step's line in the scenario's YAML (0 for step 0).
	Line     int       `json:"line,omitempty"`
	Ran      bool      `json:"ran"`
	Run      *RunInfo  `json:"run,omitempty"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
}

// RunInfo is how one run of the command went.
type RunInfo struct {
	// ExitCode is the exit status; -1 when the command was killed by a
	// signal, which Signal names ("SIGSEGV").
	ExitCode int     `json:"exit_code"`
	Signal   string  `json:"signal,omitempty"`
	TimedOut bool    `json:"timed_out"`
	Seconds  float64 `json:"seconds"`
	Requests int     `json:"requests"`
	// Output is the end of what the command printed (standard output and
	// error, interleaved); Stderr the end of its standard error alone.
	Output string `json:"output,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// DirMissing is true when DIR did not exist after the run: the run
	// fails, and DIR is judged as empty.
	DirMissing bool `json:"dir_missing,omitempty"`
}

// Exit says how the run ended: "exit 0", "exit 3", "killed by SIGSEGV",
// "killed at the timeout".
func (r *RunInfo) Exit() string {
	switch {
	case r.TimedOut:
		return "killed at the timeout"
	case r.Signal != "":
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("exit %d", r.ExitCode)
}

// Crashed reports whether the run ended by a signal it did not ask for
// (not the harness's kill at the timeout).
func (r *RunInfo) Crashed() bool { return r.Signal != "" && !r.TimedOut }

// Status of a verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// NotObserved: the requirement waits for an event (a retry after
	// Retry-After, a download of content under a wrong hash) that the log
	// does not show; neither a pass nor a failure.
	NotObserved Status = "not-observed"
	// Skip: the requirement does not apply at this step, or could not be
	// judged (the run failed, the log overflowed); Actual says which.
	Skip Status = "skip"
)

// Verdict is the judgement of one requirement after one step.
type Verdict struct {
	ID       string `json:"id"`
	Section  string `json:"section"`
	Level    Level  `json:"level"`
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Evidence lists what the verdict rests on: requests of the mock's
	// log, files of DIR, lines of the output.
	Evidence []string `json:"evidence,omitempty"`
}

// Fails reports whether the verdict fails the run: a failed MUST, or under
// strict any failure.
func (v Verdict) Fails(strict bool) bool { return v.Status == Fail && v.Level.Fails(strict) }

// Line is a verdict as one line: "step 3 [12.1] MUST deleted resources are
// removed: expected /res3 absent, actual present".
func (v Verdict) Line(step int) string {
	return fmt.Sprintf("step %d [%s] %s %s: expected %s, actual %s", step, v.Section, v.Level, v.Title, v.Expected, v.Actual)
}

// Failed reports whether a verdict fails the run (see Verdict.Fails).
func (r *Result) Failed(strict bool) bool {
	for _, s := range r.Steps {
		for _, v := range s.Verdicts {
			if v.Fails(strict) {
				return true
			}
		}
	}
	return false
}

// Summary counts verdicts.
type Summary struct {
	Scenarios int `json:"scenarios"`
	Steps     int `json:"steps"`
	Verdicts  int `json:"verdicts"`
	Passed    int `json:"passed"`
	// Failed counts failed verdicts of every level; Failing those that
	// fail the run (MUST, or every level when strict).
	Failed      int `json:"failed"`
	Failing     int `json:"failing"`
	NotObserved int `json:"not_observed"`
	Skipped     int `json:"skipped"`
}

// Summarize counts the verdicts of results.
func Summarize(results []*Result, strict bool) Summary {
	var s Summary
	for _, r := range results {
		s.Scenarios++
		for _, st := range r.Steps {
			if st.Ran {
				s.Steps++
			}
			for _, v := range st.Verdicts {
				s.Verdicts++
				switch v.Status {
				case Pass:
					s.Passed++
				case Fail:
					s.Failed++
					if v.Fails(strict) {
						s.Failing++
					}
				case NotObserved:
					s.NotObserved++
				default:
					s.Skipped++
				}
			}
		}
	}
	return s
}

// ErrCommand is returned when the command cannot be started at all.
var ErrCommand = errors.New("the Destination command cannot be run")

// Run plays the scenario and judges the Destination after each run.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Scenario == nil {
		return nil, errors.New("no scenario")
	}
	if len(cfg.Command) == 0 {
		return nil, errors.New("no Destination command")
	}
	if cfg.Dir == "" {
		return nil, errors.New("no directory")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	opts := cfg.Source
	opts.Scenario = cfg.Scenario
	if opts.LogSize <= 0 {
		opts.LogSize = 200000
	}
	src, err := mocksource.New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// The second origin: another port of 127.0.0.1, where the resources
	// under scenario.Origin2Prefix live ({origin2}).
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	origins := [2]string{base, "http://" + ln2.Addr().String()}
	src.SetBaseURL(base)
	src.SetOrigin2URL(origins[1])
	for _, s := range []struct {
		ln net.Listener
		h  http.Handler
	}{{ln, src.Handler()}, {ln2, src.Origin2Handler()}} {
		srv := &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(s.ln)
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if srv.Shutdown(sctx) != nil {
				srv.Close()
			}
		}()
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	res := &Result{Scenario: cfg.Scenario.Name, Description: cfg.Scenario.Description, File: cfg.Scenario.UserFile(),
		Source: base + "/.well-known/resourcesync", Dir: dir, Command: cfg.Command}
	j := &judge{cfg: &cfg, sc: cfg.Scenario, ever: map[string]bool{}}
	var seq int64
	// before is DIR before the next run: read once here, then the after of
	// the run before it (nothing between runs writes DIR; a DIR the
	// Destination removed stays missing, judged as empty).
	before, err := snapshot(dir)
	if err != nil {
		return res, err
	}
	for step := 0; step <= len(cfg.Scenario.Steps); step++ {
		sr := StepResult{Step: step, Name: "initial state", Checkpoint: true}
		if step > 0 {
			in, err := src.Step()
			if err != nil {
				return res, fmt.Errorf("mock Source, step %d: %w", step, err)
			}
			sr.Name, sr.Time, sr.Checkpoint = in.Name, in.Time, in.Expect != nil
			sr.Line = cfg.Scenario.Steps[step-1].Line
			if sr.Name == "" {
				sr.Name = fmt.Sprintf("step %d", step)
			}
		} else {
			sr.Time = src.Now()
		}
		expected := expectedFiles(src.Expected())
		for p := range expected {
			j.ever[p] = true
		}
		if !sr.Checkpoint && !cfg.EveryStep {
			res.Steps = append(res.Steps, sr)
			continue
		}
		if cfg.Progress != nil {
			cfg.Progress(Progress{Scenario: res.Scenario, Step: step, Steps: len(cfg.Scenario.Steps), Name: sr.Name})
		}
		info, err := runCommand(ctx, &cfg, res.Source, origins, dir, step)
		if err != nil {
			return res, err
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		after, err := snapshot(dir)
		if err != nil {
			return res, err
		}
		reqs := src.LogSince(seq)
		var lost int64
		if n := len(reqs); n > 0 {
			lost = reqs[0].Seq - seq - 1
			seq = reqs[n-1].Seq
		}
		info.Requests = len(reqs) + int(lost)
		info.DirMissing = after.Missing
		sr.Ran, sr.Run = true, info
		sr.Verdicts = j.verdicts(j.newStep(step, info, expected, before, after, reqs, lost, src.ArmedFaults()))
		if cfg.Progress != nil {
			cfg.Progress(Progress{Scenario: res.Scenario, Step: step, Steps: len(cfg.Scenario.Steps), Name: sr.Name, Run: info, Verdicts: sr.Verdicts})
		}
		res.Steps = append(res.Steps, sr)
		before = after
	}
	res.Duration = time.Since(started).Seconds()
	return res, nil
}

// dirState is DIR as the harness sees it: each regular file's SHA-256
// and length, by URI-style path ("/a/b"), the Destination's own names at
// the top left out. Missing is true when DIR itself does not exist (the
// Destination removed it): it is then judged as empty.
type dirState struct {
	Hashes  map[string]string
	Lengths map[string]int64
	Missing bool
}

// snapshot reads DIR. A DIR that does not exist is an empty one, marked
// Missing; any other error is the harness's.
func snapshot(dir string) (dirState, error) {
	ds := dirState{Hashes: map[string]string{}, Lengths: map[string]int64{}}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		ds.Missing = true
		return ds, nil
	}
	if err != nil {
		return ds, err
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if !strings.Contains(p, "/") && strings.HasPrefix(p, ".rsconform") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := root.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		key := dirKey(p)
		if _, dup := ds.Hashes[key]; dup {
			// Two names for one URI (an IRI written raw and escaped): the
			// second is a file of no resource.
			key = "/" + p
		}
		ds.Hashes[key], ds.Lengths[key] = hex.EncodeToString(h.Sum(nil)), n
		return nil
	})
	return ds, err
}

// runCommand runs the Destination once, within the timeout; origins are
// the base URLs of the Source's two origins.
func runCommand(ctx context.Context, cfg *Config, source string, origins [2]string, dir string, step int) (*RunInfo, error) {
	argv := make([]string, len(cfg.Command))
	token := cfg.Scenario.BearerToken
	r := strings.NewReplacer("{source}", source, "{dir}", dir, "{step}", strconv.Itoa(step), "{token}", token,
		"{origin}", origins[0], "{origin2}", origins[1])
	for i, a := range cfg.Command {
		argv[i] = r.Replace(a)
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "RSCONFORM_SOURCE="+source, "RSCONFORM_DIR="+dir, "RSCONFORM_STEP="+strconv.Itoa(step),
		"RSCONFORM_ORIGIN="+origins[0], "RSCONFORM_ORIGIN2="+origins[1])
	if token != "" {
		cmd.Env = append(cmd.Env, "RSCONFORM_TOKEN="+token)
	}
	cmd.Env = append(cmd.Env, cfg.Env...)
	tail := &tailBuffer{max: 16 << 10}
	errTail := &tailBuffer{max: 16 << 10}
	var out io.Writer = tail
	if cfg.Output != nil {
		out = &lockedWriter{w: io.MultiWriter(tail, cfg.Output)}
	}
	cmd.Stdout, cmd.Stderr = out, io.MultiWriter(out, errTail)
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCommand, err)
	}
	err := cmd.Wait()
	info := &RunInfo{Seconds: time.Since(start).Seconds(), ExitCode: cmd.ProcessState.ExitCode(), Signal: signalName(cmd.ProcessState)}
	if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		info.TimedOut = true
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !info.TimedOut && !errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: %v", ErrCommand, err)
	}
	info.Output, info.Stderr = tail.String(), errTail.String()
	return info, nil
}

// lockedWriter serialises writes: standard output and error are copied by
// two goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tailBuffer keeps the last max bytes written; it is safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}
