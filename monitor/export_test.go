package monitor

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/rsconform/rsconform/internal/fingerprint"
	"github.com/rsconform/rsconform/sourcehttp"
)

// Diff is diff of runs that omitted no finding, for the tests.
func Diff(before map[fingerprint.Key]Finding, now []Finding) Regression {
	return diff(before, nil, now, nil)
}

// DiffOmitted is diff, for the tests.
func DiffOmitted(before map[fingerprint.Key]Finding, beforeOmitted []Omitted, now []Finding, nowOmitted []Omitted) Regression {
	return diff(before, beforeOmitted, now, nowOmitted)
}

// HostWaits reserves requests to hosts in turn at the rate each asks,
// after declaring the Sources' rates, and returns the waits.
func HostWaits(c sourcehttp.Clock, declared map[string][]float64, requests []string, rate float64) []time.Duration {
	h := newHostLimiter(c)
	for host, rates := range declared {
		for _, r := range rates {
			h.declare(host, r)
		}
	}
	var out []time.Duration
	for _, host := range requests {
		out = append(out, h.reserve(host, rate))
	}
	return out
}

// SetMaxReportBytes sets the bound of a full report of s (MaxReportBytes).
func SetMaxReportBytes(s *Store, n int64) { s.maxReport = n }

// OpenCounting opens the database at path to read it, as OpenReadOnly,
// counting the statements the Store prepares: every query is one.
func OpenCounting(path string) (*Store, *atomic.Int64) {
	n := new(atomic.Int64)
	db := sql.OpenDB(countingConnector{dsn: "file:" + path + "?mode=ro", n: n})
	return &Store{db: db, maxReport: MaxReportBytes}, n
}

type countingConnector struct {
	dsn string
	n   *atomic.Int64
}

func (c countingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := (&sqlite3.SQLiteDriver{}).Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c.n}, nil
}

func (c countingConnector) Driver() driver.Driver { return &sqlite3.SQLiteDriver{} }

// countingConn has only driver.Conn's methods, so database/sql prepares
// every query through Prepare.
type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c countingConn) Prepare(query string) (driver.Stmt, error) {
	c.n.Add(1)
	return c.Conn.Prepare(query)
}

// TrendOf is trendOf, for the tests.
func TrendOf(runs []Run, n int) []int { return trendOf(runs, n) }

// SourcesQuery is the one query of Store.Sources.
const SourcesQuery = sourcesQuery

// QueryPlan is the detail column of EXPLAIN QUERY PLAN of query with args
// on s's database, one line per step.
func QueryPlan(ctx context.Context, s *Store, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}
