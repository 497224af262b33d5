package gateway

import (
	"context"
	"errors"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// UsageSchema is the table a one-replica gateway keeps its members' usage
// in, in the machine's shared database beside the ledger.
const UsageSchema = `CREATE TABLE IF NOT EXISTS member_usage (
	day       TEXT NOT NULL,
	member    TEXT NOT NULL,
	tool      TEXT NOT NULL,
	billed    INTEGER NOT NULL DEFAULT 0,
	cached    INTEGER NOT NULL DEFAULT 0,
	coalesced INTEGER NOT NULL DEFAULT 0,
	refused   INTEGER NOT NULL DEFAULT 0,
	failed    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, member, tool)
)`

// LocalUsage is the [UsageBook] of a gateway without Redis: the machine's
// shared SQLite database (internal/localdb), which "serve usage" reads
// while the gateway runs or after.
type LocalUsage struct{ db *localdb.DB }

// NewLocalUsage returns the book in db, which must have been made with
// UsageSchema.
func NewLocalUsage(db *localdb.DB) *LocalUsage { return &LocalUsage{db: db} }

// errNoDatabase is what a book whose database cannot be opened says.
var errNoDatabase = errors.New("the shared database cannot be opened")

// AddUsage implements [UsageBook].
func (u *LocalUsage) AddUsage(ctx context.Context, row UsageRow) error {
	db := u.db.SQL()
	if db == nil {
		return errNoDatabase
	}
	_, err := db.ExecContext(ctx, `INSERT INTO member_usage (day, member, tool, billed, cached, coalesced, refused, failed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (day, member, tool) DO UPDATE SET billed = billed + excluded.billed, cached = cached + excluded.cached,
		coalesced = coalesced + excluded.coalesced, refused = refused + excluded.refused, failed = failed + excluded.failed`,
		row.Day, row.Member, row.Tool, row.Billed, row.Cached, row.Coalesced, row.Refused, row.Failed)
	if err != nil {
		u.db.Failed(err)
	}
	return err
}

// ReadUsage implements [UsageBook].
func (u *LocalUsage) ReadUsage(ctx context.Context, since string) ([]UsageRow, error) {
	db := u.db.SQL()
	if db == nil {
		return nil, errNoDatabase
	}
	rs, err := db.QueryContext(ctx, `SELECT day, member, tool, billed, cached, coalesced, refused, failed FROM member_usage WHERE day >= ? ORDER BY day, member, tool`, since)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var rows []UsageRow
	for rs.Next() {
		var r UsageRow
		if err := rs.Scan(&r.Day, &r.Member, &r.Tool, &r.Billed, &r.Cached, &r.Coalesced, &r.Refused, &r.Failed); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, rs.Err()
}
