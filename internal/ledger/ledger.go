// Package ledger records what every process of a user on one machine
// asks of DeepSeek, in the shared SQLite database (internal/localdb), and
// holds them together to a daily budget.
//
// Each request to DeepSeek is one row: when, which tool, which host (the
// MCP client's name, "cli", "gateway"), how it ended (billed: DeepSeek
// answered 2xx and bills it; failed: anything else), its response bytes
// and how long it took. A call answered without a request is a row too:
// cached (the in-memory or the shared cache) or coalesced (it waited for
// an identical call in flight). No row holds a query, a URL or a key.
//
// The budget counts billed rows of the local day. With a budget, a
// request is reserved before it is sent, in one write transaction across
// processes (a pending row, counted as billed), so processes together
// never pass it; a pending row a killed process left counts until the
// day ends. Without one, the row is written once, when the request ends.
package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// Schema creates the ledger's table in the shared database.
const Schema = `CREATE TABLE IF NOT EXISTS ledger (
	at      INTEGER NOT NULL,
	day     TEXT NOT NULL,
	tool    TEXT NOT NULL,
	host    TEXT NOT NULL,
	outcome TEXT NOT NULL,
	bytes   INTEGER NOT NULL DEFAULT 0,
	ms      INTEGER NOT NULL DEFAULT 0
)`

// SchemaIndex is the ledger's index by day.
const SchemaIndex = `CREATE INDEX IF NOT EXISTS ledger_day ON ledger(day, outcome)`

// The outcomes of a row.
const (
	Pending   = "pending"   // reserved, being sent
	Billed    = "billed"    // DeepSeek answered 2xx
	Failed    = "failed"    // an error status, a timeout, a network failure
	Cached    = "cached"    // answered from a cache, no request
	Coalesced = "coalesced" // answered by an identical call in flight
)

// Ledger writes the rows and enforces the budget.
type Ledger struct {
	db     *localdb.DB
	budget int
	// Now is the clock; nil means time.Now. Days are local.
	Now func() time.Time
}

// New returns the ledger on db with cfg's daily budget (0: none).
func New(db *localdb.DB, cfg *core.Config) *Ledger {
	if db == nil {
		return nil
	}
	return &Ledger{db: db, budget: cfg.Host.DailyBudget}
}

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

type hostKey struct{}

// WithHost returns ctx carrying the name of the host a call is made for
// (an MCP client's clientInfo name, "cli").
func WithHost(ctx context.Context, host string) context.Context {
	return context.WithValue(ctx, hostKey{}, host)
}

// Host returns the host ctx carries, "unknown" when none.
func Host(ctx context.Context) string {
	if h, _ := ctx.Value(hostKey{}).(string); h != "" {
		return h
	}
	return "unknown"
}

// Ticket is a reserved request; Done records how it ended.
type Ticket struct {
	l     *Ledger
	rowid int64 // the pending row; 0 when Done inserts the row itself
	start time.Time
	tool  core.Kind
	host  string
}

// BudgetError is the refusal of a request past the daily budget.
func (l *Ledger) budgetError(spent int) *core.Error {
	return &core.Error{Code: core.CodeBudget, Message: fmt.Sprintf("daily budget spent: %d billed DeepSeek requests today (dailyBudget %d); it resets at 00:00 local time", spent, l.budget)}
}

// Reserve reserves one request of tool for the host of ctx. Past the
// budget it returns the refusal instead, and nothing may be sent. When
// the database cannot be used it returns a ticket that records nothing:
// the budget cannot be held then, and the call goes on (logged once).
func (l *Ledger) Reserve(ctx context.Context, tool core.Kind) (*Ticket, *core.Error) {
	now := l.now()
	t := &Ticket{l: l, start: now, tool: tool, host: Host(ctx)}
	if l.budget == 0 {
		// Nothing to hold: Done writes the one row.
		return t, nil
	}
	db := l.sqlDB()
	if db == nil {
		return t, nil
	}
	tx, err := db.BeginTx(ctx, nil) // _txlock=immediate: one writer at a time
	if err != nil {
		l.db.Failed(err)
		return t, nil
	}
	defer tx.Rollback()
	var spent int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ledger WHERE day = ? AND outcome IN (?, ?)`, day(now), Billed, Pending).Scan(&spent); err != nil {
		l.db.Failed(err)
		return t, nil
	}
	if spent >= l.budget {
		return nil, l.budgetError(spent)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO ledger (at, day, tool, host, outcome) VALUES (?, ?, ?, ?, ?)`, now.UnixMilli(), day(now), string(tool), Host(ctx), Pending)
	if err != nil {
		l.db.Failed(err)
		return t, nil
	}
	if err := tx.Commit(); err != nil {
		l.db.Failed(err)
		return t, nil
	}
	t.rowid, _ = res.LastInsertId()
	return t, nil
}

// Done records how the reserved request ended: billed for a 2xx answer.
func (t *Ticket) Done(r core.Reply) {
	if t == nil {
		return
	}
	outcome := Failed
	if r.Kind == core.ReplyResponse && r.Status >= 200 && r.Status < 300 {
		outcome = Billed
	}
	db := t.l.sqlDB()
	if db == nil {
		return
	}
	ms := t.l.now().Sub(t.start).Milliseconds()
	var err error
	if t.rowid != 0 {
		_, err = db.Exec(`UPDATE ledger SET outcome = ?, bytes = ?, ms = ? WHERE rowid = ?`, outcome, len(r.Body), ms, t.rowid)
	} else {
		_, err = db.Exec(`INSERT INTO ledger (at, day, tool, host, outcome, bytes, ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			t.start.UnixMilli(), day(t.start), string(t.tool), t.host, outcome, len(r.Body), ms)
	}
	if err != nil {
		t.l.db.Failed(err)
	}
}

// Saved records a call answered without a request: outcome Cached or
// Coalesced.
func (l *Ledger) Saved(ctx context.Context, tool core.Kind, outcome string) {
	db := l.sqlDB()
	if db == nil {
		return
	}
	now := l.now()
	if _, err := db.ExecContext(ctx, `INSERT INTO ledger (at, day, tool, host, outcome) VALUES (?, ?, ?, ?, ?)`, now.UnixMilli(), day(now), string(tool), Host(ctx), outcome); err != nil {
		l.db.Failed(err)
	}
}

func (l *Ledger) sqlDB() *sql.DB {
	if l == nil {
		return nil
	}
	return l.db.SQL()
}

// Row is one group of a [Report].
type Row struct {
	Key       string `json:"key"`
	Billed    int64  `json:"billed"`
	Cached    int64  `json:"cached"`
	Coalesced int64  `json:"coalesced"`
	Failed    int64  `json:"failed"`
	Bytes     int64  `json:"bytes"`
}

// Report is the ledger summed over a period.
type Report struct {
	Since time.Time `json:"since"`
	By    string    `json:"by"`
	Rows  []Row     `json:"rows"`
	Total Row       `json:"total"`
}

// Report sums the rows since since, grouped by "day", "host" or "tool"
// ("" for none).
func (l *Ledger) Report(ctx context.Context, since time.Time, by string) (*Report, error) {
	group := map[string]string{"": "''", "day": "day", "host": "host", "tool": "tool"}[by]
	if group == "" {
		return nil, fmt.Errorf("--by %q: want day, host or tool", by)
	}
	db := l.sqlDB()
	if db == nil {
		return nil, fmt.Errorf("the usage ledger %s cannot be opened", l.db.Path())
	}
	rows, err := db.QueryContext(ctx, `SELECT `+group+` AS k,
		SUM(outcome IN ('billed', 'pending')), SUM(outcome = 'cached'), SUM(outcome = 'coalesced'), SUM(outcome = 'failed'), SUM(bytes)
		FROM ledger WHERE at >= ? GROUP BY k ORDER BY k`, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	r := &Report{Since: since, By: by, Rows: []Row{}, Total: Row{Key: "total"}}
	for rows.Next() {
		var w Row
		if err := rows.Scan(&w.Key, &w.Billed, &w.Cached, &w.Coalesced, &w.Failed, &w.Bytes); err != nil {
			return nil, err
		}
		if by != "" {
			r.Rows = append(r.Rows, w)
		}
		r.Total.Billed += w.Billed
		r.Total.Cached += w.Cached
		r.Total.Coalesced += w.Coalesced
		r.Total.Failed += w.Failed
		r.Total.Bytes += w.Bytes
	}
	return r, rows.Err()
}

// ParseSince reads --since: a number of hours (h) or days (d), "24h",
// "7d", "30d".
func ParseSince(s string, now time.Time) (time.Time, error) {
	if len(s) >= 2 {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err == nil && n > 0 && n <= 3660 {
			switch s[len(s)-1] {
			case 'h':
				return now.Add(-time.Duration(n) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -n), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want hours or days, such as 24h, 7d or 30d", s)
}
