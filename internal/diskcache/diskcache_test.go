package diskcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	path  string
	db    *localdb.DB
	cache *diskcache.Cache
	clock *clock
	logs  []string
	eng   *core.Engine
	cfg   *core.Config
}

// newFixture opens a cache with options o in a fresh directory.
func newFixture(t *testing.T, o core.HostOptions) *fixture {
	f := &fixture{path: filepath.Join(t.TempDir(), "shared.db"), clock: &clock{t: time.Date(2026, 12, 4, 10, 0, 0, 0, time.Local)}}
	cfg, _, err := core.NewConfig(core.Options{HostOptions: o})
	require.NoError(t, err)
	f.cfg = cfg
	f.db = localdb.New(f.path, func(format string, args ...any) { f.logs = append(f.logs, fmt.Sprintf(format, args...)) }, diskcache.Schema, diskcache.SchemaIndex)
	t.Cleanup(func() { f.db.Close() })
	f.cache = diskcache.New(f.db, cfg)
	if f.cache != nil {
		f.cache.Now = f.clock.now
	}
	f.eng = core.NewEngine(core.Env{Now: func() int64 { return f.clock.now().UnixMilli() }, Random: func() float64 { return 0 }})
	return f
}

func (f *fixture) key(t *testing.T, kind core.Kind, arg string) core.WorkKey {
	op := core.Operation{Kind: kind, Config: f.cfg, APIKey: testKey, Query: arg, URL: arg}
	k, ok := f.eng.WorkKey(op)
	require.True(t, ok)
	return k
}

const testKey = "sk-diskcache0123456789"

func page(url, text string) *core.Result {
	return &core.Result{Fetch: &core.FetchResult{URL: url, Title: "T", Text: text, Chars: len(text), TotalChars: len(text)}}
}

func TestGetPut(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, core.HostOptions{})
	_, err := os.Stat(f.path)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is opened before the first call")
	k := f.key(t, core.KindFetch, "https://go.dev/doc/")
	_, ok := f.cache.Get(ctx, k, testKey, core.KindFetch)
	require.False(t, ok)
	f.cache.Put(ctx, k, testKey, core.KindFetch, page("https://go.dev/doc/", "# Docs"))
	got, ok := f.cache.Get(ctx, k, testKey, core.KindFetch)
	require.True(t, ok)
	require.Equal(t, &core.FetchResult{URL: "https://go.dev/doc/", Title: "T", Text: "# Docs", Chars: 6, TotalChars: 6, Cached: true}, got.Fetch)

	s := f.key(t, core.KindSearch, "go idioms")
	f.cache.Put(ctx, s, testKey, core.KindSearch, &core.Result{Search: &core.SearchResult{Query: "go idioms", Hits: []core.Hit{{URL: "https://go.dev", Title: "Go"}}, Usage: &core.Usage{}}})
	sr, ok := f.cache.Get(ctx, s, testKey, core.KindSearch)
	require.True(t, ok)
	require.True(t, sr.Search.Cached)
	require.Nil(t, sr.Search.Usage, "a cached answer cost nothing")
	_, ok = f.cache.Get(ctx, s, testKey, core.KindFetch)
	require.False(t, ok, "a search is not a page")
	_, ok = f.cache.Get(ctx, k, "sk-anotherkey0123456789", core.KindFetch)
	require.False(t, ok, "one key's answers are not another's")

	st, err := f.cache.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Pages)
	require.Equal(t, int64(1), st.Searches)
	n, err := f.cache.Clear(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, ok = f.cache.Get(ctx, k, testKey, core.KindFetch)
	require.False(t, ok)
	fi, err := os.Stat(f.path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Empty(t, f.logs)
}

// A search comes back as it went in, every field (a date, scores, the
// query that found a hit), and its row holds the fields alone: not the
// rendered text, which would double it.
func TestSearchRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, core.HostOptions{})
	rerank, authority := 2.5, 3.0
	in := &core.SearchResult{Query: "go idioms", Summary: "s", Dropped: 1, Notes: []string{"a note"}, Hits: []core.Hit{
		{URL: "https://go.dev/doc/", Title: "Go", Text: strings.Repeat("effective go ", 80), Rerank: &rerank, Authority: &authority,
			Site: "go.dev", Date: "2024-01-15", Published: 1705276800000, FoundBy: "go idioms"},
		{URL: "https://example.com/", Title: "Example"},
	}}
	k := f.key(t, core.KindSearch, "go idioms")
	f.cache.Put(ctx, k, testKey, core.KindSearch, &core.Result{Search: in})
	got, ok := f.cache.Get(ctx, k, testKey, core.KindSearch)
	require.True(t, ok)
	want := *in
	want.Cached = true
	require.Equal(t, &want, got.Search)
	require.Contains(t, got.Search.Text(), "published 2024-01-15")

	var size int
	require.NoError(t, f.db.SQL().QueryRowContext(ctx, `SELECT size FROM cache`).Scan(&size))
	require.Less(t, size, len(in.Hits[0].Text)+400, "the row repeats no rendered text")
}

// Pages live diskPageTTL minutes, searches diskSearchTTL; 0 keeps none of
// that kind, and both 0 (or diskCacheMaxMB 0) turns the cache off.
func TestTTLs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, core.HostOptions{})
	p, s := f.key(t, core.KindFetch, "https://a.example/"), f.key(t, core.KindSearch, "q")
	f.cache.Put(ctx, p, testKey, core.KindFetch, page("https://a.example/", "x"))
	f.cache.Put(ctx, s, testKey, core.KindSearch, &core.Result{Search: &core.SearchResult{Query: "q"}})
	f.clock.add(59 * time.Minute)
	_, ok := f.cache.Get(ctx, s, testKey, core.KindSearch)
	require.True(t, ok)
	f.clock.add(time.Minute)
	_, ok = f.cache.Get(ctx, s, testKey, core.KindSearch)
	require.False(t, ok, "a search lives 60 minutes")
	f.clock.add(22*time.Hour + 59*time.Minute)
	_, ok = f.cache.Get(ctx, p, testKey, core.KindFetch)
	require.True(t, ok)
	f.clock.add(time.Minute)
	_, ok = f.cache.Get(ctx, p, testKey, core.KindFetch)
	require.False(t, ok, "a page lives 24 hours")

	zero := 0
	f = newFixture(t, core.HostOptions{DiskSearchTTL: &zero})
	s = f.key(t, core.KindSearch, "q")
	f.cache.Put(ctx, s, testKey, core.KindSearch, &core.Result{Search: &core.SearchResult{Query: "q"}})
	_, ok = f.cache.Get(ctx, s, testKey, core.KindSearch)
	require.False(t, ok)
	require.Nil(t, newFixture(t, core.HostOptions{DiskSearchTTL: &zero, DiskPageTTL: &zero}).cache)
	require.Nil(t, newFixture(t, core.HostOptions{DiskCacheMaxMB: &zero}).cache)
}

// The table stays under diskCacheMaxMB: the least recently used answers
// go first, and an answer read lately stays.
func TestSizeBound(t *testing.T) {
	ctx := context.Background()
	one := 1
	f := newFixture(t, core.HostOptions{DiskCacheMaxMB: &one})
	body := strings.Repeat("x", 100<<10) // ~100 KiB each
	keys := make([]core.WorkKey, 40)
	for i := range keys {
		keys[i] = f.key(t, core.KindFetch, fmt.Sprintf("https://p%d.example/", i))
		f.cache.Put(ctx, keys[i], testKey, core.KindFetch, page("u", body))
		f.clock.add(2 * time.Minute)
		// Keep reading the first page: it is the most recently used.
		_, ok := f.cache.Get(ctx, keys[0], testKey, core.KindFetch)
		require.True(t, ok, "page 0 after %d puts", i)
	}
	st, err := f.cache.Stats(ctx)
	require.NoError(t, err)
	require.LessOrEqual(t, st.Bytes, int64(1<<20))
	require.Greater(t, st.Bytes, int64(1<<20)/2, "eviction stops near the bound")
	_, ok := f.cache.Get(ctx, keys[1], testKey, core.KindFetch)
	require.False(t, ok, "the least recently used went first")
	_, ok = f.cache.Get(ctx, keys[39], testKey, core.KindFetch)
	require.True(t, ok)
}

// A file that is not a database, or a database cut short, is moved aside
// and made again: calls miss, then the cache works again. Nothing fails.
func TestDamagedFile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o600))
		}},
		{"truncated", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, fi.Size()/2))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, core.HostOptions{})
			k := f.key(t, core.KindFetch, "https://a.example/")
			for i := range 200 {
				f.cache.Put(ctx, f.key(t, core.KindFetch, fmt.Sprintf("https://%d.example/", i)), testKey, core.KindFetch, page("u", strings.Repeat("y", 4000)))
			}
			require.NoError(t, f.db.Close())
			for _, s := range []string{"-wal", "-shm"} {
				_ = os.Remove(f.path + s)
			}
			tc.damage(t, f.path)
			f.cache.Put(ctx, k, testKey, core.KindFetch, page("https://a.example/", "again"))
			got, ok := f.cache.Get(ctx, k, testKey, core.KindFetch)
			if !ok {
				// The damage showed on the put: the file was rebuilt; the
				// next put lands.
				f.cache.Put(ctx, k, testKey, core.KindFetch, page("https://a.example/", "again"))
				got, ok = f.cache.Get(ctx, k, testKey, core.KindFetch)
			}
			require.True(t, ok, "%q", f.logs)
			require.Equal(t, "again", got.Fetch.Text)
			_, err := os.Stat(f.path + ".broken")
			require.NoError(t, err, "the damaged file is kept aside: %q", f.logs)
		})
	}
}

// A directory that cannot be written: every call misses, and the reason
// is logged once.
func TestUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: a read-only directory is writable; using a path under a file instead")
	}
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	cfg, _, err := core.NewConfig(core.Options{})
	require.NoError(t, err)
	var logs []string
	db := localdb.New(filepath.Join(file, "sub", "shared.db"), func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }, diskcache.Schema)
	c := diskcache.New(db, cfg)
	eng := core.NewEngine(core.Env{Now: func() int64 { return 0 }, Random: func() float64 { return 0 }})
	k, _ := eng.WorkKey(core.Operation{Kind: core.KindFetch, Config: cfg, APIKey: "sk-x0123456789abcdef", URL: "https://a.example/"})
	for range 3 {
		c.Put(ctx, k, testKey, core.KindFetch, page("u", "x"))
		_, ok := c.Get(ctx, k, testKey, core.KindFetch)
		require.False(t, ok)
	}
	require.Len(t, logs, 1)
	require.Contains(t, logs[0], "calls go on without it")
}
