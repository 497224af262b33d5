package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// sharedHome is an environment whose HOME (and so the shared database,
// ~/.cache/deepseek-web-retrieval/shared.db) every process of a test
// shares.
func sharedHome(t *testing.T) (env []string, dbPath string) {
	env = baseEnv(t)
	home := strings.TrimPrefix(env[0], "HOME=")
	return env, filepath.Join(home, ".cache", "deepseek-web-retrieval", localdb.FileName)
}

// callTool calls one tool on s and returns its text and whether it is an
// error result.
func callTool(t testing.TB, s *rpcServer, id int, tool string, args map[string]any) (string, bool) {
	return toolText(t, s.call(id, "tools/call", map[string]any{"name": tool, "arguments": args}))
}

// countOK counts the mock's requests to path that its handlers answered
// with 2xx (the handlers below fail the paths named "fail").
func countPaths(m *deepseektest.Server, path string) int {
	n := 0
	for _, r := range m.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

// integrity runs SQLite's integrity check on the database file.
func integrity(t *testing.T, path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
	var check string
	require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&check))
	require.Equal(t, "ok", check)
}

// A page one MCP server fetched is served to a second server, and to the
// CLI, with no request to DeepSeek; cache stats counts it.
func TestSharedCacheAcrossProcesses(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	env, _ := sharedHome(t)
	url := "https://go.dev/doc/effective_go"
	var texts []string
	for range 2 {
		s := startMCP(t, env, "--base-url", m.URL)
		s.initialize("2025-06-18")
		text, isErr := callTool(t, s, 1, "deepseek_fetch", map[string]any{"url": url})
		require.False(t, isErr, text)
		texts = append(texts, text)
		code, _ := s.closeAndWait()
		require.Equal(t, 0, code, s.stderr.String())
		require.NotContains(t, s.stderr.String(), "warning")
	}
	require.Equal(t, texts[0], texts[1])
	require.Equal(t, 1, countPaths(m, "/v1/tools/fetch"), "the second server read the shared cache")

	// Another key's call is not served the first key's page: it asks DeepSeek (which refuses it).
	other := startMCP(t, append(slices.Clone(env[:1]), "DEEPSEEK_API_KEY=sk-anotherkey0123456789abcd", "LANG=C.UTF-8"), "--base-url", m.URL)
	other.initialize("2025-06-18")
	_, isErr := callTool(t, other, 1, "deepseek_fetch", map[string]any{"url": url})
	require.True(t, isErr)
	other.closeAndWait()
	require.Equal(t, 2, countPaths(m, "/v1/tools/fetch"))

	// The CLI's parts end in a continue line of their own (--offset), so a
	// page is shared between CLI runs; a search between every process.
	for range 2 {
		r := runBin(t, env, "fetch", "--base-url", m.URL, url)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, fetchText, r.stdout)
	}
	require.Equal(t, 3, countPaths(m, "/v1/tools/fetch"), "the second CLI run read the shared cache")
	m.Search = deepseektest.Answer(200, searchAnswer)
	s := startMCP(t, env, "--base-url", m.URL)
	s.initialize("2025-06-18")
	_, isErr = callTool(t, s, 1, "deepseek_search", map[string]any{"query": "go idioms"})
	require.False(t, isErr)
	s.closeAndWait()
	r := runBin(t, env, "search", "--base-url", m.URL, "go idioms")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, searchText, r.stdout)
	require.Equal(t, 1, countPaths(m, "/v1/tools/search"), "the CLI read the MCP server's search")

	r = runBin(t, env, "cache", "stats", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	require.Equal(t, float64(2), st["pages"])
	require.Equal(t, float64(1), st["searches"])
	require.Equal(t, float64(256<<20), st["maxBytes"])
	r = runBin(t, env, "cache", "clear")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^Deleted 3 answers from .*shared\.db\.\n$`, r.stdout)
}

// Eight MCP servers fetch and search at once for a while, half of the
// calls shared between them, half new (each a write): no call fails, no
// server logs a database problem, and the database checks out after.
func TestSharedCacheUnderLoad(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	m.Search = deepseektest.Answer(200, searchAnswer)
	env, dbPath := sharedHome(t)
	const servers = 8
	duration := 20 * time.Second
	if testing.Short() {
		duration = 3 * time.Second
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	calls := 0
	deadline := time.Now().Add(duration)
	for p := range servers {
		s := startMCP(t, env, "--base-url", m.URL, "--cache-ttl", "0") // every call reaches the shared cache
		s.initialize("2025-06-18")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				tool, args := "deepseek_fetch", map[string]any{"url": fmt.Sprintf("https://shared.example/%d", i%16)}
				switch i % 4 {
				case 1:
					args = map[string]any{"url": fmt.Sprintf("https://p%d.example/%d", p, i)}
				case 2:
					tool, args = "deepseek_search", map[string]any{"query": fmt.Sprintf("shared %d", i%16)}
				case 3:
					tool, args = "deepseek_search", map[string]any{"query": fmt.Sprintf("p%d q%d", p, i)}
				}
				text, isErr := toolText(t, s.call(i+1, "tools/call", map[string]any{"name": tool, "arguments": args}))
				mu.Lock()
				calls++
				if isErr {
					failures = append(failures, text)
				}
				mu.Unlock()
			}
			code, _ := s.closeAndWait()
			mu.Lock()
			if code != 0 || strings.Contains(s.stderr.String(), "warning") {
				failures = append(failures, fmt.Sprintf("server %d: exit %d: %s", p, code, s.stderr.String()))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("%d servers, %d calls in %v, %d requests to DeepSeek", servers, calls, duration, len(m.Requests()))
	require.Empty(t, failures)
	require.Less(t, len(m.Requests()), calls, "the shared cache answered some calls")
	integrity(t, dbPath)
}

// A server killed (SIGKILL) in the middle of its writes leaves a
// database the next one reads: every answer is right, and the file
// checks out.
func TestSharedCacheSurvivesKill(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	env, dbPath := sharedHome(t)
	s := startMCP(t, env, "--base-url", m.URL)
	s.initialize("2025-06-18")
	for i := range 40 {
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": fmt.Sprintf("https://k.example/%d", i)}}})
	}
	for countPaths(m, "/v1/tools/fetch") < 10 {
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, s.cmd.Process.Kill())
	<-s.exited

	next := startMCP(t, env, "--base-url", m.URL)
	next.initialize("2025-06-18")
	want := strings.TrimSuffix(fetchText, "\n")
	for i := range 40 {
		text, isErr := callTool(t, next, i+1, "deepseek_fetch", map[string]any{"url": fmt.Sprintf("https://k.example/%d", i)})
		require.False(t, isErr, text)
		require.Equal(t, want, text)
	}
	code, _ := next.closeAndWait()
	require.Equal(t, 0, code, next.stderr.String())
	integrity(t, dbPath)
}

// A shared database that is garbage, or cut short, costs nothing but the
// cache: the call succeeds, the file is moved aside and made again, and
// the next call is served from it.
func TestSharedCacheDamagedFile(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	env, dbPath := sharedHome(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(dbPath), 0o700))
	require.NoError(t, os.WriteFile(dbPath, []byte(strings.Repeat("garbage ", 4096)), 0o600))
	r := runBin(t, env, "fetch", "--base-url", m.URL, "https://go.dev/doc/effective_go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, fetchText, r.stdout)
	require.Contains(t, r.stderr, "is damaged")
	_, err := os.Stat(dbPath + ".broken")
	require.NoError(t, err)
	r = runBin(t, env, "fetch", "--base-url", m.URL, "https://go.dev/doc/effective_go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "", r.stderr)
	require.Equal(t, 1, countPaths(m, "/v1/tools/fetch"), "the rebuilt cache served the second run")
	integrity(t, dbPath)
}

// failingSearch answers 500 to a query starting "fail", else the search
// answer.
func failingSearch(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	if q, _ := body["query"].(string); strings.HasPrefix(q, "fail") {
		deepseektest.WriteJSON(w, 500, deepseektest.APIError("boom"))
		return
	}
	deepseektest.WriteJSON(w, 200, searchAnswer)
}

// usageJSON runs usage --json and decodes it.
func usageJSON(t *testing.T, env []string, args ...string) map[string]any {
	r := runBin(t, env, append([]string{"usage", "--json"}, args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	return out
}

// The ledger of three servers counts exactly the requests DeepSeek
// answered with 2xx as billed, the failed ones as failed, and the calls
// the caches saved.
func TestLedgerAcrossProcesses(t *testing.T) {
	m := newMock(t)
	m.Search = failingSearch
	env, _ := sharedHome(t)
	var wg sync.WaitGroup
	for p := range 3 {
		s := startMCP(t, env, "--base-url", m.URL, "--max-retries", "0")
		s.initialize("2025-06-18")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				q := fmt.Sprintf("p%d q%d", p, i)
				if i == 5 {
					q = fmt.Sprintf("fail p%d", p)
				}
				toolText(t, s.call(i+1, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": q}}))
			}
			// Asked again: the server's own cache answers.
			toolText(t, s.call(7, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": fmt.Sprintf("p%d q0", p)}}))
			s.closeAndWait()
		}()
	}
	wg.Wait()
	ok := 0
	for _, r := range m.Requests() {
		if q, _ := r.Body["query"].(string); !strings.HasPrefix(q, "fail") {
			ok++
		}
	}
	require.Equal(t, 15, ok)
	u := usageJSON(t, env, "--no-balance", "--by", "host")
	total := u["report"].(map[string]any)["total"].(map[string]any)
	require.Equal(t, map[string]any{"key": "total", "billed": float64(ok), "cached": float64(3), "coalesced": float64(0), "failed": float64(3), "bytes": total["bytes"]}, total)
	rows := u["report"].(map[string]any)["rows"].([]any)
	require.Len(t, rows, 1)
	require.Equal(t, "raw-driver", rows[0].(map[string]any)["key"], "the MCP client's clientInfo name")
}

// The daily budget holds across three servers calling at once: exactly
// the budget's requests reach DeepSeek, and every other call fails before
// sending, with the sentence.
func TestBudgetAcrossProcesses(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	env, _ := sharedHome(t)
	env = append(env, "DEEPSEEK_WEB_RETRIEVAL_DAILY_BUDGET=5")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var refusals []string
	for p := range 3 {
		s := startMCP(t, env, "--base-url", m.URL)
		s.initialize("2025-06-18")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": fmt.Sprintf("https://b%d.example/%d", p, i)}}})
			}
			for i := range 4 {
				text, isErr := toolText(t, s.response(i+1))
				if isErr {
					mu.Lock()
					refusals = append(refusals, text)
					mu.Unlock()
				}
			}
			s.closeAndWait()
		}()
	}
	wg.Wait()
	require.Equal(t, 5, countPaths(m, "/v1/tools/fetch"))
	require.Len(t, refusals, 7)
	for _, r := range refusals {
		require.Equal(t, "daily budget spent: 5 billed DeepSeek requests today (dailyBudget 5); it resets at 00:00 local time", r)
	}
	r := runBin(t, env, "fetch", "--base-url", m.URL, "https://cli.example/")
	require.Equal(t, exitFailed, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: daily budget spent: 5 billed DeepSeek requests today (dailyBudget 5); it resets at 00:00 local time\n", r.stderr)
	u := usageJSON(t, env, "--no-balance")
	require.Equal(t, map[string]any{"daily": float64(5), "spentToday": float64(5)}, u["budget"])
}

// usage prints a fixed ledger, grouped, with the budget and the balance
// DeepSeek's account endpoint gives for the key; --json has the same,
// in the schema below.
func TestUsageOutput(t *testing.T) {
	m := newMock(t)
	m.Balance = deepseektest.Answer(200, map[string]any{"is_available": true, "balance_infos": []any{
		map[string]any{"currency": "CNY", "total_balance": "110.00", "granted_balance": "10.00", "topped_up_balance": "100.00"}}})
	env, dbPath := sharedHome(t)
	env = append(env, "DEEPSEEK_WEB_RETRIEVAL_DAILY_BUDGET=200")

	cfg, _, err := core.NewConfig(core.Options{})
	require.NoError(t, err)
	db := localdb.New(dbPath, nil, ledger.Schema, ledger.SchemaIndex)
	l := ledger.New(db, cfg)
	at := time.Now().Add(-time.Hour)
	l.Now = func() time.Time { return at }
	ctx := context.Background()
	for i, host := range []string{"claude-code", "claude-code", "codex", "cli"} {
		kind := core.KindSearch
		if i%2 == 1 {
			kind = core.KindFetch
		}
		tk, refused := l.Reserve(ledger.WithHost(ctx, host), kind)
		require.Nil(t, refused)
		tk.Done(core.Reply{Kind: core.ReplyResponse, Status: 200, Body: []byte("{}")})
	}
	l.Saved(ledger.WithHost(ctx, "codex"), core.KindFetch, ledger.Cached)
	l.Saved(ledger.WithHost(ctx, "codex"), core.KindSearch, ledger.Coalesced)
	tk, _ := l.Reserve(ledger.WithHost(ctx, "cli"), core.KindSearch)
	tk.Done(core.Reply{Kind: core.ReplyTimeout})
	require.NoError(t, db.Close())

	r := runBin(t, env, "usage", "--by", "tool", "--base-url", m.URL)
	require.Equal(t, 0, r.code, r.stderr)
	since := time.Now().Add(-24 * time.Hour)
	want := "DeepSeek usage in the last 24h (since " + since.Format("2006-01-02 15:04") + "), every process on this machine:\n" +
		"  billed requests        4\n" +
		"  saved by the cache     1\n" +
		"  saved by coalescing    1\n" +
		"  failed requests        1\n" +
		"\n" +
		"By tool:\n" +
		"    tool  billed  cached  coalesced  failed\n" +
		"   fetch       2       1          0       0\n" +
		"  search       2       0          1       1\n" +
		"\n" +
		"Daily budget: 4 of 200 billed requests spent today; it resets at 00:00 local time.\n" +
		"Account balance: 110.00 CNY (available).\n" +
		"Ledger: " + dbPath + "\n"
	if at.Day() != time.Now().Day() {
		want = strings.Replace(want, "Daily budget: 4 of", "Daily budget: 0 of", 1) // the rows are yesterday's
	}
	require.Equal(t, want, r.stdout)
	require.Empty(t, r.stderr)

	u := usageJSON(t, env, "--by", "host", "--base-url", m.URL)
	require.ElementsMatch(t, []string{"database", "report", "budget", "balance"}, keys(u))
	rep := u["report"].(map[string]any)
	require.ElementsMatch(t, []string{"since", "by", "rows", "total"}, keys(rep))
	require.Equal(t, "host", rep["by"])
	for _, row := range rep["rows"].([]any) {
		require.ElementsMatch(t, []string{"key", "billed", "cached", "coalesced", "failed", "bytes"}, keys(row.(map[string]any)))
	}
	require.Equal(t, map[string]any{"isAvailable": true, "balances": []any{map[string]any{"currency": "CNY", "total": "110.00"}}}, u["balance"])

	// Without the account endpoint (or with a bad key) usage says so and
	// goes on; no body is repeated.
	m.Balance = nil
	r = runBin(t, env, "usage", "--base-url", m.URL)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Account balance: not available (HTTP 404).\n")
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// doctor reads the balance too (at the base URL's option variable), and
// --no-balance skips the request.
func TestDoctorBalance(t *testing.T) {
	m := newMock(t)
	m.Balance = deepseektest.Answer(200, map[string]any{"is_available": false, "balance_infos": []any{
		map[string]any{"currency": "USD", "total_balance": "0.00"}}})
	env := append(baseEnv(t), "DEEPSEEK_WEB_RETRIEVAL_BASE_URL="+m.URL)
	r := runBin(t, env, "doctor")
	require.Contains(t, r.stdout, "\nAccount balance: 0.00 USD (not enough for API calls).\n")
	require.Equal(t, 1, len(m.Requests()))
	r = runBin(t, env, "doctor", "--no-balance")
	require.NotContains(t, r.stdout, "Account balance")
	require.Equal(t, 1, len(m.Requests()))
}
