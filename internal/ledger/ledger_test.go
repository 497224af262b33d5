package ledger_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

func newLedger(t *testing.T, path string, budget int, now func() time.Time) *ledger.Ledger {
	cfg, _, err := core.NewConfig(core.Options{HostOptions: core.HostOptions{DailyBudget: budget}})
	require.NoError(t, err)
	db := localdb.New(path, func(format string, args ...any) { t.Errorf("logged: "+format, args...) }, ledger.Schema, ledger.SchemaIndex)
	t.Cleanup(func() { db.Close() })
	l := ledger.New(db, cfg)
	l.Now = now
	return l
}

var ok200 = core.Reply{Kind: core.ReplyResponse, Status: 200, Body: []byte(`{"results":[]}`)}

func TestReport(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 4, 9, 30, 0, 0, time.Local)
	l := newLedger(t, filepath.Join(t.TempDir(), "shared.db"), 0, func() time.Time { return now })
	claude := ledger.WithHost(ctx, "claude-code")
	for _, r := range []core.Reply{ok200, ok200, {Kind: core.ReplyResponse, Status: 429}, {Kind: core.ReplyTimeout}} {
		tk, refused := l.Reserve(claude, core.KindSearch)
		require.Nil(t, refused)
		tk.Done(r)
	}
	tk, _ := l.Reserve(ledger.WithHost(ctx, "cli"), core.KindFetch)
	tk.Done(ok200)
	l.Saved(claude, core.KindFetch, ledger.Cached)
	l.Saved(claude, core.KindSearch, ledger.Coalesced)
	l.Saved(ctx, core.KindSearch, ledger.Cached)

	rep, err := l.Report(ctx, now.Add(-24*time.Hour), "tool")
	require.NoError(t, err)
	require.Equal(t, []ledger.Row{
		{Key: "fetch", Billed: 1, Cached: 1, Bytes: 14},
		{Key: "search", Billed: 2, Cached: 1, Coalesced: 1, Failed: 2, Bytes: 28},
	}, rep.Rows)
	require.Equal(t, ledger.Row{Key: "total", Billed: 3, Cached: 2, Coalesced: 1, Failed: 2, Bytes: 42}, rep.Total)
	rep, err = l.Report(ctx, now.Add(-24*time.Hour), "host")
	require.NoError(t, err)
	require.Equal(t, []string{"claude-code", "cli", "unknown"}, []string{rep.Rows[0].Key, rep.Rows[1].Key, rep.Rows[2].Key})
	rep, err = l.Report(ctx, now.Add(-24*time.Hour), "day")
	require.NoError(t, err)
	require.Equal(t, "2026-12-04", rep.Rows[0].Key)
	rep, err = l.Report(ctx, now.Add(time.Minute), "")
	require.NoError(t, err)
	require.Empty(t, rep.Rows)
	require.Equal(t, ledger.Row{Key: "total"}, rep.Total)
	_, err = l.Report(ctx, now, "member")
	require.EqualError(t, err, `--by "member": want day, host or tool`)
}

// The budget counts the day's billed and pending requests; a failed one
// is not billed; the next day starts again.
func TestBudget(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 23, 0, 0, 0, time.Local)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l := newLedger(t, filepath.Join(t.TempDir(), "shared.db"), 3, clock)
	tk, refused := l.Reserve(ctx, core.KindFetch)
	require.Nil(t, refused)
	tk.Done(core.Reply{Kind: core.ReplyResponse, Status: 500})
	pending, refused := l.Reserve(ctx, core.KindFetch) // not done yet: counts
	require.Nil(t, refused)
	for range 2 {
		tk, refused := l.Reserve(ctx, core.KindSearch)
		require.Nil(t, refused)
		tk.Done(ok200)
	}
	_, refused = l.Reserve(ctx, core.KindSearch)
	require.Equal(t, &core.Error{Code: core.CodeBudget, Message: "daily budget spent: 3 billed DeepSeek requests today (dailyBudget 3); it resets at 00:00 local time"}, refused)
	pending.Done(ok200)
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	_, refused = l.Reserve(ctx, core.KindSearch)
	require.Nil(t, refused, "a new day")
}

// Many ledgers on one file (as many processes) never pass the budget
// together.
func TestBudgetConcurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	var ls []*ledger.Ledger
	for range 4 {
		ls = append(ls, newLedger(t, path, 10, time.Now))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, refused := ls[i%4].Reserve(ctx, core.KindSearch)
			if refused == nil {
				tk.Done(ok200)
				mu.Lock()
				granted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 10, granted)
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{"24h": now.Add(-24 * time.Hour), "7d": now.AddDate(0, 0, -7), "30d": now.AddDate(0, 0, -30)} {
		got, err := ledger.ParseSince(in, now)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	for _, bad := range []string{"", "h", "0d", "-1d", "7w", "1.5h", "99999d"} {
		_, err := ledger.ParseSince(bad, now)
		require.EqualError(t, err, `--since "`+bad+`": want hours or days, such as 24h, 7d or 30d`)
	}
}
