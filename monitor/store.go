package monitor

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"sync"
	"time"

	// SQLite through cgo: the C library is compiled once per build
	// cache and is not instrumented by -race, so the tests that write a
	// database run at C speed under go test -race (see the commit that
	// added it for the figures).
	_ "github.com/mattn/go-sqlite3"

	"github.com/rsconform/rsconform/internal/filelock"
	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/internal/safefile"
)

// Run statuses.
const (
	// StatusRunning is a run in progress; one found at start-up belongs to
	// a monitor that was killed, and becomes StatusInterrupted.
	StatusRunning = "running"
	// StatusOK is a crawl that ran to its end: its findings are the
	// Source's state.
	StatusOK = "ok"
	// StatusUnreachable is a crawl whose entry point could not be fetched
	// or led to no ResourceSync document.
	StatusUnreachable = "unreachable"
	// StatusInterrupted is a run stopped before its end (a signal, a kill).
	StatusInterrupted = "interrupted"
	// StatusFailed is a run the monitor could not make (bad options).
	StatusFailed = "failed"
)

// migrations are the schema's versions, in order: migrations[i] takes a
// database from version i to i+1 (PRAGMA user_version). Only ever append.
var migrations = []string{
	`CREATE TABLE sources (
		id   INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		url  TEXT NOT NULL
	);
	CREATE TABLE runs (
		id          INTEGER PRIMARY KEY,
		source_id   INTEGER NOT NULL REFERENCES sources(id),
		url         TEXT NOT NULL,
		started     INTEGER NOT NULL, -- Unix milliseconds
		duration_ms INTEGER NOT NULL DEFAULT 0,
		status      TEXT NOT NULL,
		error       TEXT NOT NULL DEFAULT '',
		requests    INTEGER NOT NULL DEFAULT 0,
		documents   INTEGER NOT NULL DEFAULT 0,
		resources   INTEGER NOT NULL DEFAULT 0,
		bytes       INTEGER NOT NULL DEFAULT 0,
		errors      INTEGER NOT NULL DEFAULT 0,
		warnings    INTEGER NOT NULL DEFAULT 0,
		infos       INTEGER NOT NULL DEFAULT 0,
		new_errors  INTEGER NOT NULL DEFAULT 0,
		new         INTEGER NOT NULL DEFAULT 0,
		fixed       INTEGER NOT NULL DEFAULT 0,
		baseline_run INTEGER -- the run new and fixed are counted against
	);
	CREATE INDEX runs_by_source ON runs(source_id, id);
	-- One row per fingerprint (fingerprint.Key) of a run, with how many
	-- findings have it.
	CREATE TABLE findings (
		run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		document TEXT NOT NULL,
		rule     TEXT NOT NULL,
		message  TEXT NOT NULL,
		sampled  INTEGER NOT NULL, -- 1: a finding about sampled resources
		severity TEXT NOT NULL,
		count    INTEGER NOT NULL,
		location TEXT NOT NULL, -- the first finding's document
		example  TEXT NOT NULL  -- and its message in full
	);
	CREATE INDEX findings_by_run ON findings(run_id);
	-- What changed since the baseline run: kind is 'new' or 'fixed'.
	CREATE TABLE changes (
		run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		kind     TEXT NOT NULL,
		document TEXT NOT NULL,
		rule     TEXT NOT NULL,
		message  TEXT NOT NULL,
		sampled  INTEGER NOT NULL, -- 1: a finding about sampled resources
		severity TEXT NOT NULL,
		count    INTEGER NOT NULL,
		location TEXT NOT NULL, -- the first finding's document
		example  TEXT NOT NULL  -- and its message in full
	);
	CREATE INDEX changes_by_run ON changes(run_id);
	-- The full reports (gzip) of the last runs of each Source.
	CREATE TABLE reports (
		run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
		json   BLOB NOT NULL,
		html   BLOB NOT NULL
	);
	-- Each alert sent, or tried.
	CREATE TABLE alerts (
		id       INTEGER PRIMARY KEY,
		run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		channel  TEXT NOT NULL,
		sent     INTEGER NOT NULL, -- 1 delivered, 0 not
		attempts INTEGER NOT NULL,
		error    TEXT NOT NULL DEFAULT '',
		at       INTEGER NOT NULL
	);`,
	`-- The findings of a run counted but not kept, beyond the crawl's
	-- --max-findings-per-rule: per document (fingerprint.Key.Document)
	-- and rule.
	CREATE TABLE omitted (
		run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		document TEXT NOT NULL,
		rule     TEXT NOT NULL,
		count    INTEGER NOT NULL
	);
	CREATE INDEX omitted_by_run ON omitted(run_id);`,
	`-- Why a finished run's full reports were not kept ('' when they were,
	-- or when the run made none).
	ALTER TABLE runs ADD COLUMN report_note TEXT NOT NULL DEFAULT '';`,
}

// SchemaVersion is the version of the database schema this build writes.
var SchemaVersion = len(migrations)

// ErrLocked is returned by Open when another monitor uses the database.
var ErrLocked = errors.New("another rsconform monitor uses this database")

// Store is the monitor's history: one SQLite file.
type Store struct {
	db   *sql.DB
	lock *os.File
	// writing serialises this process's write transactions: SQLite has
	// one writer at a time, and many crawls ending at once would
	// otherwise wait for it in SQLite's busy handler, which is not fair
	// (seen: runs failing with "database is locked" among 200 at once).
	writing sync.Mutex
	// Interrupted is the number of runs found in progress at Open: the
	// runs of a monitor that was killed, now marked interrupted.
	Interrupted int
	// maxReport bounds a full report, stored and read back
	// (MaxReportBytes; the tests set less).
	maxReport int64
}

// MaxReportBytes bounds one full report (json or html) the store keeps
// and unzips: a larger one is not kept, and a stored one that unzips to
// more (a damaged or crafted database) is refused, not read into memory.
// A crawl's reports keep at most --max-findings-per-rule findings of a
// rule per document and 8 MiB of documents' text.
const MaxReportBytes = 256 << 20

// Open opens (creating it if need be) the database at path, migrates it
// to SchemaVersion and takes it for this process: a second monitor on the
// same file gets ErrLocked. Runs left in progress by a killed monitor are
// marked interrupted.
func Open(ctx context.Context, path string) (*Store, error) {
	lock, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	// flock(2) on the database file itself: SQLite's own locks are
	// fcntl(2) locks, which flock does not touch on Linux.
	if err := filelock.Lock(lock); err != nil {
		lock.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, fmt.Errorf("%s: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := openDB(ctx, path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	s.lock = lock
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, error = ? WHERE status = ?`,
		StatusInterrupted, "the monitor stopped during the run (killed, or the machine went down)", StatusRunning)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n, _ := res.RowsAffected()
	s.Interrupted = int(n)
	return s, nil
}

// OpenReadOnly opens the database at path to read it, while a monitor
// may be writing it (a dashboard, a test).
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, maxReport: MaxReportBytes}
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a monitor database: %w", path, err)
	}
	if v != SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("%s: schema version %d, this rsconform reads %d", path, v, SchemaVersion)
	}
	return s, nil
}

func openDB(ctx context.Context, path string) (*Store, error) {
	// WAL: a run's commit is durable and atomic, readers (the dashboard)
	// do not block it; transactions take the write lock at BEGIN, so two
	// crawls ending at once wait for each other instead of failing.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_foreign_keys=on&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, maxReport: MaxReportBytes}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// migrate applies the migrations the database has not had, each in its
// own transaction with the version it reaches.
func (s *Store) migrate(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("not a database: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this rsconform's (%d): use a newer rsconform", v, len(migrations))
	}
	if v == 0 {
		// A new file, or another SQLite database: refuse the latter.
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
			return fmt.Errorf("not a database: %w", err)
		}
		if n > 0 {
			return errors.New("a SQLite database that is not a monitor's (it has tables and no schema version)")
		}
	}
	for ; v < len(migrations); v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}

// Close closes the database and releases it.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.lock != nil {
		filelock.Unlock(s.lock)
		s.lock.Close()
	}
	return err
}

// Finding is a fingerprint with how many findings of a run have it.
type Finding struct {
	fingerprint.Key
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	// Location and Example are the document and the message, in full,
	// of the first finding with the fingerprint in the run.
	Location string `json:"location"`
	Example  string `json:"example"`
}

// findingColumns are the columns of a Finding in the findings and changes
// tables, in the order of Finding.fields.
const findingColumns = "document, rule, message, sampled, severity, count, location, example"

// fields are f's fields in the order of findingColumns: where Scan puts
// them.
func (f *Finding) fields() []any {
	return []any{&f.Document, &f.Rule, &f.Message, &f.Sampled, &f.Severity, &f.Count, &f.Location, &f.Example}
}

// values are the values of f's fields in the order of findingColumns,
// after the values in front of them (an INSERT's first columns).
func (f *Finding) values(front ...any) []any {
	return append(front, f.Document, f.Rule, f.Message, f.Sampled, f.Severity, f.Count, f.Location, f.Example)
}

// Omitted counts the findings of one rule in one document (its
// fingerprint's Document) a run counted but did not keep, beyond the
// crawl's cap on findings per rule (engine.Config.MaxFindingsPerRule).
type Omitted struct {
	Document string
	Rule     string
	Count    int
}

// Run is one crawl of one Source, as recorded.
type Run struct {
	ID        int64         `json:"id"`
	Source    string        `json:"source"`
	URL       string        `json:"url"`
	Started   time.Time     `json:"started"`
	Duration  time.Duration `json:"-"`
	Status    string        `json:"status"`
	Error     string        `json:"error,omitempty"`
	Requests  int64         `json:"requests"`
	Documents int           `json:"documents"`
	Resources int           `json:"resources"`
	Bytes     int64         `json:"bytes"`
	Errors    int           `json:"errors"`
	Warnings  int           `json:"warnings"`
	Infos     int           `json:"infos"`
	// NewErrors, New and Fixed count the findings (errors; all) that
	// are new since Baseline, the Source's last complete run, and those
	// that were fixed.
	NewErrors int   `json:"new_errors"`
	New       int   `json:"new"`
	Fixed     int   `json:"fixed"`
	Baseline  int64 `json:"baseline_run,omitempty"`
	// HasReport says whether the full reports are still kept.
	HasReport bool `json:"has_report"`
	// ReportNote says why the run's reports are not kept: larger than
	// MaxReportBytes when it finished, or dropped since, when later runs
	// of its Source took its place (--keep-reports); "" when they are
	// kept or none was made.
	ReportNote string `json:"report_note,omitempty"`
}

// Regression is what changed in a run since the Source's last complete
// one.
type Regression struct {
	New, Fixed []Finding
}

// StartRun records that a run of the Source named name, at url, started:
// a monitor killed from now on leaves it interrupted, not lost.
func (s *Store) StartRun(ctx context.Context, name, sourceURL string, started time.Time) (int64, error) {
	s.writing.Lock()
	defer s.writing.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sources(name, url) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET url = excluded.url`, name, sourceURL); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO runs(source_id, url, started, status) SELECT id, ?, ?, ? FROM sources WHERE name = ?`,
		sourceURL, started.UnixMilli(), StatusRunning, name)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// Declare records the Sources watched, so that the dashboard lists them
// before their first run (a Source's URL is updated; none is removed).
func (s *Store) Declare(ctx context.Context, sources []Source) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, src := range sources {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sources(name, url) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET url = excluded.url`, src.Name, src.URL); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SourceURL is the entry point of the Source named name (ErrNotFound
// when the store knows no such Source).
func (s *Store) SourceURL(ctx context.Context, name string) (string, error) {
	var u string
	err := s.db.QueryRowContext(ctx, `SELECT url FROM sources WHERE name = ?`, name).Scan(&u)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return u, err
}

// Baseline is the findings of the Source's last complete run before run
// (0 and nil when it has none).
func (s *Store) Baseline(ctx context.Context, name string, before int64) (int64, map[fingerprint.Key]Finding, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT r.id FROM runs r JOIN sources s ON s.id = r.source_id
		WHERE s.name = ? AND r.status = ? AND r.id < ? ORDER BY r.id DESC LIMIT 1`, name, StatusOK, before).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	fs, err := s.Findings(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	m := make(map[fingerprint.Key]Finding, len(fs))
	for _, f := range fs {
		m[f.Key] = f
	}
	return id, m, nil
}

// LastStatus is the status of the Source's last finished run before run
// ("" when none; interrupted runs are not counted), and whether any run
// before run was complete (reached).
func (s *Store) LastStatus(ctx context.Context, name string, before int64) (last string, reached bool, err error) {
	var st sql.NullString
	err = s.db.QueryRowContext(ctx, `SELECT
		(SELECT r.status FROM runs r JOIN sources s ON s.id = r.source_id
			WHERE s.name = ? AND r.status IN (?, ?) AND r.id < ? ORDER BY r.id DESC LIMIT 1),
		EXISTS (SELECT 1 FROM runs r JOIN sources s ON s.id = r.source_id
			WHERE s.name = ? AND r.status = ? AND r.id < ?)`,
		name, StatusOK, StatusUnreachable, before, name, StatusOK, before).Scan(&st, &reached)
	return st.String, reached, err
}

// Findings are the findings of run, by fingerprint.
func (s *Store) Findings(ctx context.Context, run int64) ([]Finding, error) {
	return s.findingRows(ctx, `SELECT `+findingColumns+` FROM findings WHERE run_id = ? ORDER BY document, rule, message`, run)
}

// OmittedOf is what run counted but did not keep, by document and rule.
func (s *Store) OmittedOf(ctx context.Context, run int64) ([]Omitted, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT document, rule, count FROM omitted WHERE run_id = ? ORDER BY document, rule`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Omitted
	for rows.Next() {
		var om Omitted
		if err := rows.Scan(&om.Document, &om.Rule, &om.Count); err != nil {
			return nil, err
		}
		out = append(out, om)
	}
	return out, rows.Err()
}

// Changes are the findings new in run and those it fixed.
func (s *Store) Changes(ctx context.Context, run int64) (Regression, error) {
	var r Regression
	var err error
	const q = `SELECT ` + findingColumns + ` FROM changes WHERE run_id = ? AND kind = ? ORDER BY document, rule, message`
	if r.New, err = s.findingRows(ctx, q, run, "new"); err != nil {
		return r, err
	}
	r.Fixed, err = s.findingRows(ctx, q, run, "fixed")
	return r, err
}

func (s *Store) findingRows(ctx context.Context, q string, args ...any) ([]Finding, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Finding
	for rows.Next() {
		var f Finding
		if err := rows.Scan(f.fields()...); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Outcome is what a finished run recorded.
type Outcome struct {
	Run      Run
	Findings []Finding
	Omitted  []Omitted
	Changes  Regression
	// JSON and HTML are the full reports.
	JSON, HTML []byte
}

// FinishRun records the outcome of run in one transaction (a kill before
// its commit leaves the run interrupted), and drops the full reports of
// the Source's runs older than its last keepReports.
func (s *Store) FinishRun(ctx context.Context, o *Outcome, keepReports int) error {
	// The record is written even when ctx is cancelled by a stop: the
	// crawl it records is over.
	ctx = context.WithoutCancel(ctx)
	// A report beyond the bound is not kept: it could not be read back.
	// The run says so.
	o.Run.ReportNote = ""
	for _, r := range []struct {
		format string
		data   []byte
	}{{"json", o.JSON}, {"html", o.HTML}} {
		if n := int64(len(r.data)); n > s.maxReport && o.Run.ReportNote == "" {
			o.Run.ReportNote = fmt.Sprintf("the %s report is %s, more than the %s the monitor keeps of one report",
				r.format, safefile.Size(n), safefile.Size(s.maxReport))
		}
	}
	keepReport := len(o.JSON) > 0 && o.Run.ReportNote == ""
	var jsonGz, htmlGz []byte
	if keepReport {
		var err error
		if jsonGz, err = gz(o.JSON); err != nil {
			return err
		}
		if htmlGz, err = gz(o.HTML); err != nil {
			return err
		}
	}
	s.writing.Lock()
	defer s.writing.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	r := o.Run
	var baseline any
	if r.Baseline != 0 {
		baseline = r.Baseline
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET duration_ms = ?, status = ?, error = ?, requests = ?, documents = ?, resources = ?, bytes = ?,
		errors = ?, warnings = ?, infos = ?, new_errors = ?, new = ?, fixed = ?, baseline_run = ?, report_note = ? WHERE id = ?`,
		r.Duration.Milliseconds(), r.Status, r.Error, r.Requests, r.Documents, r.Resources, r.Bytes,
		r.Errors, r.Warnings, r.Infos, r.NewErrors, r.New, r.Fixed, baseline, r.ReportNote, r.ID); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO findings(run_id, `+findingColumns+`) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, f := range o.Findings {
		if _, err := ins.ExecContext(ctx, f.values(r.ID)...); err != nil {
			return err
		}
	}
	for _, om := range o.Omitted {
		if _, err := tx.ExecContext(ctx, `INSERT INTO omitted(run_id, document, rule, count) VALUES(?, ?, ?, ?)`,
			r.ID, om.Document, om.Rule, om.Count); err != nil {
			return err
		}
	}
	chg, err := tx.PrepareContext(ctx, `INSERT INTO changes(run_id, kind, `+findingColumns+`) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer chg.Close()
	for kind, list := range map[string][]Finding{"new": o.Changes.New, "fixed": o.Changes.Fixed} {
		for _, f := range list {
			if _, err := chg.ExecContext(ctx, f.values(r.ID, kind)...); err != nil {
				return err
			}
		}
	}
	if keepReport {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reports(run_id, json, html) VALUES(?, ?, ?)`, r.ID, jsonGz, htmlGz); err != nil {
			return err
		}
	}
	if keepReports > 0 {
		// The runs that lose their reports say why, as one over the
		// bound does.
		const older = `SELECT r.id FROM runs r WHERE r.source_id = (SELECT source_id FROM runs WHERE id = ?)
			ORDER BY r.id DESC LIMIT -1 OFFSET ?`
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET report_note = ? WHERE id IN (
			SELECT run_id FROM reports WHERE run_id IN (`+older+`))`, droppedNote(keepReports), r.ID, keepReports); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reports WHERE run_id IN (`+older+`)`, r.ID, keepReports); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// droppedNote is the report note of a run whose full reports were
// dropped because keepReports later runs of its Source keep theirs.
func droppedNote(keepReports int) string {
	if keepReports == 1 {
		return "older than the last run of its Source, which keeps its full reports (--keep-reports 1)"
	}
	return fmt.Sprintf("older than the last %d runs of its Source, which keep their full reports (--keep-reports %d)", keepReports, keepReports)
}

// RecordAlert records an alert sent (or not) for run.
func (s *Store) RecordAlert(ctx context.Context, run int64, channel string, sent bool, attempts int, why string, at time.Time) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	_, err := s.db.ExecContext(context.WithoutCancel(ctx), `INSERT INTO alerts(run_id, channel, sent, attempts, error, at) VALUES(?, ?, ?, ?, ?, ?)`,
		run, channel, sent, attempts, why, at.UnixMilli())
	return err
}

// SourceSummary is a Source as the dashboard lists it.
type SourceSummary struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// Last is the Source's last run (nil when none); Trend the error
	// counts of its last finished runs, oldest first.
	Last  *Run  `json:"last_run"`
	Runs  int   `json:"runs"`
	Trend []int `json:"trend"`
}

const runColumns = `r.id, s.name, r.url, r.started, r.duration_ms, r.status, r.error, r.requests, r.documents, r.resources, r.bytes,
	r.errors, r.warnings, r.infos, r.new_errors, r.new, r.fixed, coalesce(r.baseline_run, 0), EXISTS(SELECT 1 FROM reports p WHERE p.run_id = r.id), r.report_note`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var started, ms int64
	err := sc.Scan(&r.ID, &r.Source, &r.URL, &started, &ms, &r.Status, &r.Error, &r.Requests, &r.Documents, &r.Resources, &r.Bytes,
		&r.Errors, &r.Warnings, &r.Infos, &r.NewErrors, &r.New, &r.Fixed, &r.Baseline, &r.HasReport, &r.ReportNote)
	r.Started = time.UnixMilli(started).UTC()
	r.Duration = time.Duration(ms) * time.Millisecond
	return r, err
}

// sourcesQuery is each Source with its last ? runs, newest first, and
// its number of runs in all (a Source without runs: one row whose run
// columns are NULL). The last runs are looked up through runs_by_source
// per Source, and the counts read from that index alone: ranking every
// row of runs (runs are never deleted) made a page of 1,000 Sources with
// 1,000 runs each take 18-27 s.
const sourcesQuery = `SELECT s.url, coalesce(c.total, 0), ` + runColumns + ` FROM sources s
	LEFT JOIN (SELECT source_id, count(*) AS total FROM runs GROUP BY source_id) c ON c.source_id = s.id
	LEFT JOIN runs r ON r.id IN (SELECT x.id FROM runs x WHERE x.source_id = s.id ORDER BY x.id DESC LIMIT ?)
	ORDER BY s.name, r.id DESC`

// Sources lists the Sources with their last run and trend (trendRuns
// runs), by name, in one query whatever the number of Sources
// (sourcesQuery).
func (s *Store) Sources(ctx context.Context, trendRuns int) ([]SourceSummary, error) {
	rows, err := s.db.QueryContext(ctx, sourcesQuery, trendRuns)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SourceSummary
	var runs [][]Run
	for rows.Next() {
		var ss SourceSummary
		r, err := scanRun(scanFunc(func(dest ...any) error {
			for i := range dest {
				dest[i] = orZero(dest[i])
			}
			return rows.Scan(append([]any{&ss.URL, &ss.Runs}, dest...)...)
		}))
		if err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != r.Source {
			ss.Name = r.Source
			out = append(out, ss)
			runs = append(runs, nil)
		}
		if r.ID != 0 {
			runs[len(runs)-1] = append(runs[len(runs)-1], r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if len(runs[i]) > 0 {
			last := runs[i][0]
			out[i].Last = &last
		}
		out[i].Trend = trendOf(runs[i], trendRuns)
	}
	return out, nil
}

// scanFunc is a Scan method of its own: scanRun reads the columns a
// query has after its own ones.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// orZero is dest scanning NULL as its zero value (the run columns of a
// Source without runs), for the types scanRun reads.
func orZero(dest any) any {
	switch d := dest.(type) {
	case *int64:
		return nullable[int64]{d}
	case *int:
		return nullable[int]{d}
	case *string:
		return nullable[string]{d}
	case *bool:
		return nullable[bool]{d}
	}
	return dest
}

type nullable[T any] struct{ dst *T }

func (n nullable[T]) Scan(src any) error {
	var v sql.Null[T]
	if err := v.Scan(src); err != nil {
		return err
	}
	*n.dst = v.V
	return nil
}

// Runs are the last limit runs of the Source named name, newest first.
func (s *Store) Runs(ctx context.Context, name string, limit int) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs r JOIN sources s ON s.id = r.source_id
		WHERE s.name = ? ORDER BY r.id DESC LIMIT ?`, name, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ErrNotFound is returned for a run or a report that is not there.
var ErrNotFound = errors.New("not found")

// Run is the run with id.
func (s *Store) Run(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs r JOIN sources s ON s.id = r.source_id WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// Report is the full report of run in format "json" or "html"
// (ErrNotFound once dropped, a *safefile.LimitError naming the run when
// it unzips to more than MaxReportBytes).
func (s *Store) Report(ctx context.Context, run int64, format string) ([]byte, error) {
	col := "json"
	if format == "html" {
		col = "html"
	}
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT `+col+` FROM reports WHERE run_id = ?`, run).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("run %d: the %s report: %w", run, col, err)
	}
	too := &safefile.LimitError{Name: fmt.Sprintf("run %d", run), What: col + " report", Limit: s.maxReport}
	data, err := io.ReadAll(safefile.LimitReader(zr, s.maxReport, too))
	if errors.Is(err, too) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("run %d: the %s report: %w", run, col, err)
	}
	return data, nil
}

func gz(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sortFindings orders findings by document, rule, message.
func sortFindings(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Document != b.Document {
			return a.Document < b.Document
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}
