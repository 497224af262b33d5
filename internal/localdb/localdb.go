// Package localdb is the SQLite database every process of one user on
// one machine shares: the MCP servers of every agent session, the CLI and
// a gateway without Redis. The shared cache (package diskcache) and the
// usage ledger (package ledger) keep their tables in it.
//
// It is SQLite through modernc.org/sqlite, a pure-Go driver, so builds
// stay static; in WAL mode, so readers never wait for a writer and
// writers wait for each other (busy_timeout) instead of failing. A
// [DB] opens the file on first use, not when a server starts. The
// database only ever saves work: when it cannot be opened, is locked
// past the timeout, is corrupt or cannot be written, the failure is
// logged once and callers go on without it. A file that is not a
// database, or fails SQLite's quick check, is moved aside and made
// again.
package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// FileName is the database's name in its directory.
const FileName = "shared.db"

// Dir is the directory of the database: $XDG_CACHE_HOME (or the
// system's user cache directory)/deepseek-web-retrieval.
func Dir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "deepseek-web-retrieval"), nil
}

// busyTimeout is how long a statement waits for another process's write.
const busyTimeout = 5 * time.Second

// retryAfter is how long a DB that failed to open waits before trying
// again.
const retryAfter = time.Minute

// DB is a database file opened on first use.
type DB struct {
	path   string
	schema []string
	logf   func(format string, args ...any)

	mu       sync.Mutex
	db       *sql.DB
	failedAt time.Time
	logged   bool
}

// New returns a DB for the file at path whose tables schema creates (each
// statement idempotent: CREATE … IF NOT EXISTS). logf hears about the
// first failure; nil drops it.
func New(path string, logf func(format string, args ...any), schema ...string) *DB {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &DB{path: path, schema: schema, logf: logf}
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// Opened reports whether the file has been opened (tests and benchmarks
// check that a server does not open it before its first call).
func (d *DB) Opened() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.db != nil
}

// SQL returns the open database, opening it on the first call. It
// returns nil when the database cannot be used now (the reason was logged
// once); callers then go on without it.
func (d *DB) SQL() *sql.DB {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != nil {
		return d.db
	}
	if !d.failedAt.IsZero() && time.Since(d.failedAt) < retryAfter {
		return nil
	}
	db, err := d.open()
	if err != nil {
		d.failedAt = time.Now()
		d.Fail(err)
		return nil
	}
	d.db, d.failedAt = db, time.Time{}
	return db
}

// Fail logs a failure of the database, once per DB: the cache or ledger
// goes on without it.
func (d *DB) Fail(err error) {
	if err == nil || d.logged {
		return
	}
	d.logged = true
	d.logf("the shared cache and usage ledger %s cannot be used (%v); calls go on without it", d.path, err)
}

// Failed handles an error of a statement: a damaged file is moved aside
// and made again, anything else is logged once (see Fail).
func (d *DB) Failed(err error) {
	if Broken(err) {
		d.Rebuild()
		return
	}
	d.Fail(err)
}

// Broken reports whether err means the file is damaged (not a database,
// corrupt), as opposed to busy or unwritable: a damaged file is made
// again.
func Broken(err error) bool {
	var qc *sqliteCorrupt
	return errors.As(err, &qc) || driverBroken(err)
}

// Rebuild moves a damaged database aside and makes it again; the next
// SQL call opens the new one.
func (d *DB) Rebuild() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != nil {
		d.db.Close()
		d.db = nil
	}
	d.failedAt = time.Time{}
	d.moveAside()
}

func (d *DB) moveAside() {
	aside := d.path + ".broken"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if suffix == "" {
			_ = os.Rename(d.path, aside)
		} else {
			_ = os.Remove(d.path + suffix)
		}
	}
}

// open opens the file in WAL mode and makes the tables; a damaged file
// is moved aside and made again once.
func (d *DB) open() (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
		return nil, err
	}
	db, err := d.tryOpen()
	if err != nil && Broken(err) {
		d.logf("%s is damaged (%v): moved to %s.broken and made again", d.path, err, d.path)
		d.moveAside()
		db, err = d.tryOpen()
	}
	return db, err
}

func (d *DB) tryOpen() (*sql.DB, error) {
	dsn := "file:" + d.path + "?_pragma=busy_timeout(" + fmt.Sprint(busyTimeout.Milliseconds()) + ")&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// One connection per process: SQLite serialises writers anyway, and
	// one connection keeps the WAL's readers few.
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyTimeout)
	defer cancel()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		db.Close()
		return nil, err
	}
	if check != "ok" {
		db.Close()
		return nil, &sqliteCorrupt{check}
	}
	for _, stmt := range d.schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			db.Close()
			return nil, err
		}
	}
	_ = os.Chmod(d.path, 0o600)
	return db, nil
}

// sqliteCorrupt is a quick check that found damage.
type sqliteCorrupt struct{ report string }

func (e *sqliteCorrupt) Error() string {
	return "quick_check: " + strings.SplitN(e.report, "\n", 2)[0]
}

// Close closes the database, if it was opened.
func (d *DB) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil
	}
	err := d.db.Close()
	d.db = nil
	return err
}
