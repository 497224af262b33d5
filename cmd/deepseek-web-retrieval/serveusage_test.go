package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

// serveInProcess runs serve with args until the test ends and returns its
// /mcp URL.
func serveInProcess(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--audit", "off"}, args...), &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	require.Eventually(t, func() bool { return addr.MatchString(stderr.String()) }, 10*time.Second, 10*time.Millisecond, stderr.String())
	return addr.FindStringSubmatch(stderr.String())[1]
}

// member connects to endpoint with token.
func member(t *testing.T, endpoint, token string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withBearer{token: token}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Two replicas on one real Redis count their members' calls together;
// serve usage reads them, by member, tool or day.
func TestServeUsageAcrossReplicas(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	redis := redistest.Start(t)
	d := newMock(t)
	d.Fetch = deepseektest.Answer(200, map[string]any{"title": "T", "content": "the page"})
	d.Search = deepseektest.Answer(500, deepseektest.APIError("down"))
	file := filepath.Join(t.TempDir(), "tokens.json")
	tokens := map[string]string{}
	for _, name := range []string{"alice", "bob"} {
		code, tok, errs := runCLI("serve", "token", "add", name, "--tokens", file)
		require.Equal(t, exitOK, code, errs)
		tokens[name] = strings.TrimSpace(tok)
	}
	args := []string{"--tokens", file, "--redis", redis.URL, "--replicas", "2", "--per-day", "3", "--base-url", d.URL, "--max-retries", "0"}
	one, two := serveInProcess(t, args...), serveInProcess(t, args...)
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) bool {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		require.NoError(t, err)
		return res.IsError
	}
	alice1, alice2, bob2 := member(t, one, tokens["alice"]), member(t, two, tokens["alice"]), member(t, two, tokens["bob"])
	require.False(t, call(alice1, "deepseek_fetch", map[string]any{"url": "https://go.dev/a"})) // billed
	require.False(t, call(bob2, "deepseek_fetch", map[string]any{"url": "https://go.dev/a"}))   // the other replica: shared cache
	require.True(t, call(alice2, "deepseek_search", map[string]any{"query": "go"}))             // failed
	require.False(t, call(alice2, "deepseek_fetch", map[string]any{"url": "https://go.dev/b"})) // billed
	require.True(t, call(alice1, "deepseek_fetch", map[string]any{"url": "https://go.dev/c"}))  // over the quota: refused
	require.Equal(t, 3, len(d.Requests()), "two fetches and the search reached DeepSeek")

	type group struct {
		Key                                        string
		Billed, Cached, Coalesced, Refused, Failed int
	}
	read := func(by string) (string, []group, group) {
		code, out, errs := runCLI("serve", "usage", "--redis", redis.URL, "--by", by, "--json")
		require.Equal(t, exitOK, code, errs)
		var rep struct {
			Source string
			Rows   []group
			Total  group
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		return rep.Source, rep.Rows, rep.Total
	}
	source, rows, total := read("member")
	require.Equal(t, "redis", source)
	require.Equal(t, []group{
		{Key: "alice", Billed: 2, Refused: 1, Failed: 1},
		{Key: "bob", Cached: 1},
	}, rows)
	require.Equal(t, group{Key: "", Billed: 2, Cached: 1, Refused: 1, Failed: 1}, total)
	_, rows, _ = read("tool")
	require.Equal(t, []group{{Key: "deepseek_fetch", Billed: 2, Cached: 1, Refused: 1}, {Key: "deepseek_search", Failed: 1}}, rows)
	_, rows, _ = read("day")
	require.Len(t, rows, 1)
	require.Equal(t, time.Now().UTC().Format(time.DateOnly), rows[0].Key)

	code, out, errs := runCLI("serve", "usage", "--redis", redis.URL)
	require.Equal(t, exitOK, code, errs)
	t.Logf("serve usage --redis URL:\n%s", out)
	require.Regexp(t, `(?m)^Gateway usage since \d{4}-\d\d-\d\d \(UTC\), by member, from redis:
  member +billed +cached +coalesced +refused +failed
  alice +2 +0 +0 +1 +1
  bob +0 +1 +0 +0 +0
  total +2 +1 +0 +1 +1
$`, out)

	// serve usage reads the Redis URL from serve's variable too, and an
	// option variable it has no flag for is not its business.
	t.Setenv("DEEPSEEK_WEB_RETRIEVAL_REDIS", redis.URL)
	t.Setenv("DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS", "5")
	code, again, errs := runCLI("serve", "usage")
	require.Equal(t, exitOK, code, errs)
	require.Equal(t, out, again)
}

// A gateway without Redis counts in the machine's database; serve usage
// reads it there.
func TestServeUsageOneReplica(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	d := newMock(t)
	d.Fetch = deepseektest.Answer(200, map[string]any{"title": "T", "content": "the page"})
	file := filepath.Join(t.TempDir(), "tokens.json")
	code, tok, errs := runCLI("serve", "token", "add", "carol", "--tokens", file)
	require.Equal(t, exitOK, code, errs)
	cs := member(t, serveInProcess(t, "--tokens", file, "--base-url", d.URL), strings.TrimSpace(tok))
	for range 2 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": "https://go.dev/"}})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	code, out, errs := runCLI("serve", "usage", "--json")
	require.Equal(t, exitOK, code, errs)
	var rep struct {
		Source string
		Rows   []struct {
			Key            string
			Billed, Cached int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.True(t, strings.HasSuffix(rep.Source, filepath.Join("deepseek-web-retrieval", "shared.db")), rep.Source)
	require.Len(t, rep.Rows, 1)
	require.Equal(t, "carol", rep.Rows[0].Key)
	require.Equal(t, 1, rep.Rows[0].Billed)
	require.Equal(t, 1, rep.Rows[0].Cached)

	code, _, errs = runCLI("serve", "usage", "--by", "host")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errs, `--by "host": want member, day or tool`)
}
