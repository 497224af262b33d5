// Package diskcache is the answer cache every process of a user shares
// on one machine: a page fetched by one agent session's MCP server is
// served to another session, to the CLI, or tomorrow, without a second
// billed request. It keeps its table in the shared SQLite database
// (internal/localdb) and sits behind each process's in-memory cache
// (core's): httpdriver asks it when the engine would send a request.
//
// Answers are keyed by a SHA-256 of the core's work key identity
// (core.WorkKey.Identity), which covers every option that changes an
// answer, and of a hash of the API key, so one key's answers are never
// served to another; the value is the answer itself (core.Result as
// JSON), never a key. Pages live diskPageTTL minutes,
// searches diskSearchTTL, and the table is held under diskCacheMaxMB,
// the least recently used answers evicted first. Any failure of the
// database is a miss: the call goes to DeepSeek.
package diskcache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"sync"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// Schema creates the cache's table in the shared database.
const Schema = `CREATE TABLE IF NOT EXISTS cache (
	id      BLOB PRIMARY KEY,
	kind    TEXT NOT NULL,
	value   BLOB NOT NULL,
	size    INTEGER NOT NULL,
	expires INTEGER NOT NULL,
	used    INTEGER NOT NULL
) WITHOUT ROWID`

// SchemaIndex is the cache's index for eviction.
const SchemaIndex = `CREATE INDEX IF NOT EXISTS cache_used ON cache(used)`

// touchEvery is how stale a hit's last-use time may get before a hit
// writes it again (most hits only read).
const touchEvery = time.Minute

// Cache is the shared answer cache.
type Cache struct {
	db       *localdb.DB
	maxBytes int64
	ttl      map[core.Kind]time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	written int64 // bytes written since the last eviction check
}

// New returns the cache of cfg's disk options on db, or nil when they
// turn it off (diskCacheMaxMB 0, or both TTLs 0).
func New(db *localdb.DB, cfg *core.Config) *Cache {
	h := cfg.Host
	if db == nil || h.DiskCacheMaxBytes == 0 || (h.DiskPageTTLMinutes == 0 && h.DiskSearchTTLMinutes == 0) {
		return nil
	}
	return &Cache{db: db, maxBytes: h.DiskCacheMaxBytes, ttl: map[core.Kind]time.Duration{
		core.KindFetch:  time.Duration(h.DiskPageTTLMinutes) * time.Minute,
		core.KindSearch: time.Duration(h.DiskSearchTTLMinutes) * time.Minute,
	}}
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// id is the row's key: the SHA-256 of the work key's identity and of a
// SHA-256 of the API key, so one key's answers are never served to a
// call with another (as in the core's own cache), and no row holds
// anything a key could be read back from.
func id(key core.WorkKey, apiKey string) []byte {
	owner := sha256.Sum256([]byte(apiKey))
	h := sha256.New()
	h.Write(key.Identity())
	h.Write([]byte{0})
	h.Write(owner[:])
	return h.Sum(nil)
}

// sqlDB returns the database, or nil when it cannot be used.
func (c *Cache) sqlDB() *sql.DB {
	if c == nil {
		return nil
	}
	return c.db.SQL()
}

// record is what a row holds: the result by its JSON tags alone, which
// are lossless. The defined types leave out the results' AppendJSON, and
// with it the rendered text and markers it computes: they would double a
// search's row, and are computed again from the fields when read.
type record struct {
	Search *searchRecord `json:",omitempty"`
	Fetch  *fetchRecord  `json:",omitempty"`
}

type (
	searchRecord core.SearchResult
	fetchRecord  core.FetchResult
)

// Get returns the answer to key for the API key apiKey, marked Cached,
// when the cache has one that has not expired.
func (c *Cache) Get(ctx context.Context, key core.WorkKey, apiKey string, kind core.Kind) (*core.Result, bool) {
	if c.ttlOf(kind) == 0 {
		return nil, false // this kind is not kept: no need to open the file
	}
	db := c.sqlDB()
	if db == nil {
		return nil, false
	}
	now := c.now().UnixMilli()
	var value []byte
	var used int64
	err := db.QueryRowContext(ctx, `SELECT value, used FROM cache WHERE id = ? AND kind = ? AND expires > ?`, id(key, apiKey), string(kind), now).Scan(&value, &used)
	if err != nil {
		if err != sql.ErrNoRows {
			c.db.Failed(err)
		}
		return nil, false
	}
	var rec record
	if json.Unmarshal(value, &rec) != nil || (rec.Search == nil) == (rec.Fetch == nil) {
		return nil, false
	}
	r := core.Result{Search: (*core.SearchResult)(rec.Search), Fetch: (*core.FetchResult)(rec.Fetch)}
	if now-used > touchEvery.Milliseconds() {
		if _, err := db.ExecContext(ctx, `UPDATE cache SET used = ? WHERE id = ?`, now, id(key, apiKey)); err != nil {
			c.db.Failed(err)
		}
	}
	if r.Search != nil {
		r.Search.Cached, r.Search.Usage = true, nil
	}
	if r.Fetch != nil {
		r.Fetch.Cached = true
	}
	return &r, true
}

// Put keeps r, the answer a request with apiKey earned for key.
func (c *Cache) Put(ctx context.Context, key core.WorkKey, apiKey string, kind core.Kind, r *core.Result) {
	ttl := c.ttlOf(kind)
	if ttl == 0 || r == nil {
		return
	}
	db := c.sqlDB()
	if db == nil {
		return
	}
	var stored record
	if r.Search != nil {
		cp := searchRecord(*r.Search)
		cp.Cached, cp.Usage = false, nil
		stored.Search = &cp
	}
	if r.Fetch != nil {
		cp := fetchRecord(*r.Fetch)
		cp.Cached = false
		stored.Fetch = &cp
	}
	value, err := json.Marshal(stored)
	if err != nil || int64(len(value)) > c.maxBytes {
		return
	}
	now := c.now()
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO cache (id, kind, value, size, expires, used) VALUES (?, ?, ?, ?, ?, ?)`,
		id(key, apiKey), string(kind), value, len(value), now.Add(ttl).UnixMilli(), now.UnixMilli()); err != nil {
		c.db.Failed(err)
		return
	}
	c.mu.Lock()
	c.written += int64(len(value))
	check := c.written > c.maxBytes/64
	if check {
		c.written = 0
	}
	c.mu.Unlock()
	if check {
		c.evict(ctx, db)
	}
}

func (c *Cache) ttlOf(kind core.Kind) time.Duration {
	if c == nil {
		return 0
	}
	return c.ttl[kind]
}

// evict deletes the expired answers, then the least recently used until
// the table is under its bound.
func (c *Cache) evict(ctx context.Context, db *sql.DB) {
	if _, err := db.ExecContext(ctx, `DELETE FROM cache WHERE expires <= ?`, c.now().UnixMilli()); err != nil {
		c.db.Failed(err)
		return
	}
	var total int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0) FROM cache`).Scan(&total); err != nil {
		c.db.Failed(err)
		return
	}
	for total > c.maxBytes {
		// Delete the oldest-used rows, about an eighth of what is over at
		// a time (at least one row).
		var cut int64
		rows, err := db.QueryContext(ctx, `SELECT id, size FROM cache ORDER BY used LIMIT 256`)
		if err != nil {
			c.db.Failed(err)
			return
		}
		var ids [][]byte
		for rows.Next() && total-cut > c.maxBytes {
			var rid []byte
			var size int64
			if rows.Scan(&rid, &size) != nil {
				break
			}
			ids = append(ids, rid)
			cut += size
		}
		rows.Close()
		if len(ids) == 0 {
			return
		}
		for _, rid := range ids {
			if _, err := db.ExecContext(ctx, `DELETE FROM cache WHERE id = ?`, rid); err != nil {
				c.db.Failed(err)
				return
			}
		}
		total -= cut
	}
}

// Stats is what the cache holds.
type Stats struct {
	Path     string `json:"path"`
	Pages    int64  `json:"pages"`
	Searches int64  `json:"searches"`
	Bytes    int64  `json:"bytes"`
	MaxBytes int64  `json:"maxBytes"`
	Expired  int64  `json:"expired"`
}

// Stats counts the answers the cache holds.
func (c *Cache) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Path: c.db.Path(), MaxBytes: c.maxBytes}
	db := c.db.SQL()
	if db == nil {
		return s, errUnavailable(c.db.Path())
	}
	now := c.now().UnixMilli()
	err := db.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(kind = 'fetch' AND expires > ?), 0),
		COALESCE(SUM(kind = 'search' AND expires > ?), 0),
		COALESCE(SUM(size), 0),
		COALESCE(SUM(expires <= ?), 0) FROM cache`, now, now, now).Scan(&s.Pages, &s.Searches, &s.Bytes, &s.Expired)
	return s, err
}

// Clear deletes every answer.
func (c *Cache) Clear(ctx context.Context) (int64, error) {
	db := c.db.SQL()
	if db == nil {
		return 0, errUnavailable(c.db.Path())
	}
	res, err := db.ExecContext(ctx, `DELETE FROM cache`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

type errUnavailable string

func (e errUnavailable) Error() string {
	return "the shared cache " + string(e) + " cannot be opened"
}
