package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

const gwKey = "sk-gatewaytest0123456789abcdef"

var fetchAnswer = map[string]any{"title": "Effective Go", "content": "Effective Go is a guide.\n\n## Introduction\n\nGo is a new language."}

// replica is one gateway process, as a test drives it.
type replica struct {
	gw    *gateway.Server
	srv   *httptest.Server
	audit *syncbuf.Buffer
}

// startReplica starts a gateway on d with tokens and store (nil: in
// process), adjusted by adjust.
func startReplica(t *testing.T, d *deepseektest.Server, tokens *gateway.Tokens, store gateway.Store, adjust func(*gateway.ServerOptions)) *replica {
	t.Helper()
	cfg, _, err := core.NewConfig(core.Options{BaseURL: d.URL})
	require.NoError(t, err)
	r := &replica{audit: &syncbuf.Buffer{}}
	o := gateway.ServerOptions{
		MCP:      mcp.Options{Config: cfg, Getenv: func(string) string { return gwKey }},
		Tokens:   tokens,
		Store:    store,
		CacheTTL: time.Minute,
		Audit:    gateway.NewAudit(r.audit, core.NewRedactor(gwKey).Mask),
		Logf:     t.Logf,
	}
	if adjust != nil {
		adjust(&o)
	}
	r.gw, err = gateway.NewServer(o)
	require.NoError(t, err)
	r.srv = httptest.NewServer(r.gw.Handler())
	t.Cleanup(func() { r.gw.Close(); r.srv.Close() })
	return r
}

// bearer sets one Authorization header on every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// session connects an MCP client to r with token.
func (r *replica) session(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

func newTokens(t *testing.T, names ...string) (*gateway.Tokens, string, map[string]string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens.json")
	toks := map[string]string{}
	for _, n := range names {
		tok, err := gateway.AddToken(file, n, time.Now())
		require.NoError(t, err)
		toks[n] = tok
	}
	tokens, err := gateway.OpenTokens(file, t.Logf)
	require.NoError(t, err)
	return tokens, file, toks
}

// post sends one raw JSON-RPC initialize to /mcp with the given headers.
func post(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Members call the tools with their token; no token, a wrong one or a
// revoked one gets a bare 401, a foreign Origin 403; the key is in no
// answer, header or audit line.
func TestGatewayAuth(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	tokens, file, toks := newTokens(t, "alice", "bob")
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.AllowOrigins = []string{"https://app.example.com"} })

	text, isErr := callText(t, r.session(t, toks["alice"]), "deepseek_fetch", map[string]any{"url": "https://go.dev/doc/effective_go"})
	require.False(t, isErr, text)
	require.Contains(t, text, "Effective Go is a guide.")

	for name, h := range map[string]map[string]string{
		"no token":     {},
		"wrong token":  {"Authorization": "Bearer " + toks["alice"][:len(toks["alice"])-1] + "x"},
		"not a bearer": {"Authorization": "Basic " + toks["alice"]},
	} {
		code, body := post(t, r.srv.URL, h)
		require.Equal(t, http.StatusUnauthorized, code, name)
		require.Empty(t, body, name)
	}
	code, body := post(t, r.srv.URL, map[string]string{"Authorization": "Bearer " + toks["bob"], "Origin": "https://evil.example.com"})
	require.Equal(t, http.StatusForbidden, code)
	require.NotContains(t, body, gwKey)
	code, _ = post(t, r.srv.URL, map[string]string{"Authorization": "Bearer " + toks["bob"], "Origin": "https://app.example.com"})
	require.Equal(t, http.StatusOK, code)

	require.NoError(t, gateway.RevokeToken(file, "bob"))
	require.Eventually(t, func() bool {
		code, _ := post(t, r.srv.URL, map[string]string{"Authorization": "Bearer " + toks["bob"]})
		return code == http.StatusUnauthorized
	}, 5*time.Second, 20*time.Millisecond, "a revoked token is refused once the file changes")

	lines := strings.Split(strings.TrimSpace(r.audit.String()), "\n")
	require.Len(t, lines, 1)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &line))
	require.Equal(t, "alice", line["member"])
	require.Equal(t, "deepseek_fetch", line["tool"])
	require.Equal(t, "https://go.dev/doc/effective_go", line["url"])
	require.Equal(t, "ok", line["outcome"])
	require.Equal(t, float64(200), line["deepseek_status"])
	require.Equal(t, true, line["billed"])
	require.NotContains(t, r.audit.String(), gwKey)
	for _, tok := range toks {
		require.NotContains(t, r.audit.String(), tok)
	}

	resp, err := http.Get(r.srv.URL + "/metrics")
	require.NoError(t, err)
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(metrics), `dwr_calls_total{tool="deepseek_fetch",outcome="ok"} 1`)
	require.Contains(t, string(metrics), `dwr_deepseek_billed_requests_total{tool="deepseek_fetch"} 1`)
	require.Contains(t, string(metrics), `dwr_calls_total{tool="",outcome="unauthorized"}`)
	require.Contains(t, string(metrics), `dwr_calls_total{tool="",outcome="forbidden"} 1`)
	resp, err = http.Get(r.srv.URL + "/healthz")
	require.NoError(t, err)
	health, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "ok\n", string(health))
}

// A member's daily quota ends with our sentence, not a DeepSeek error, and
// a call that failed its arguments spends nothing.
func TestGatewayQuota(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	tokens, _, toks := newTokens(t, "alice")
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Limits.PerDay = 2; o.CacheTTL = 0 })
	cs := r.session(t, toks["alice"])
	for i := range 2 {
		text, isErr := callText(t, cs, "deepseek_fetch", map[string]any{"url": fmt.Sprintf("https://go.dev/%d", i)})
		require.False(t, isErr, text)
	}
	text, isErr := callText(t, cs, "deepseek_fetch", map[string]any{"url": "https://go.dev/3"})
	require.True(t, isErr)
	require.Regexp(t, `^quota spent: alice has made all 2 calls allowed per day; the quota resets at \d{4}-\d\d-\d\d 00:00 UTC$`, text)
	require.Len(t, d.Requests(), 2)
	require.Contains(t, r.audit.String(), `"outcome":"quota"`)
}

// Two replicas on one Redis: a page fetched through one is served by the
// other without a second DeepSeek request; 20 identical calls spread over
// both reach DeepSeek once; the team's rate holds across both; with Redis
// stopped, calls still succeed.
func TestGatewayReplicasShareRedis(t *testing.T) {
	rs := redistest.Start(t)
	d := deepseektest.New(t, gwKey)
	gate := make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, _ *http.Request) {
		<-gate // held until every identical call is waiting
		deepseektest.WriteJSON(w, 200, fetchAnswer)
	}
	tokens, _, toks := newTokens(t, "alice", "bob")
	var replicas []*replica
	for range 2 {
		redis, err := gateway.OpenRedis(rs.URL, gateway.RedisOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { redis.Close() })
		store := gateway.NewFailoverStore(redis, gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.FailoverOptions{Logf: t.Logf})
		replicas = append(replicas, startReplica(t, d, tokens, store, func(o *gateway.ServerOptions) { o.Limits.InFlight = 32 }))
	}
	a, b := replicas[0].session(t, toks["alice"]), replicas[1].session(t, toks["bob"])

	// 20 identical calls, half through each replica, while DeepSeek holds
	// the first request.
	var wg sync.WaitGroup
	texts := make([]string, 20)
	for i := range 20 {
		cs := a
		if i%2 == 1 {
			cs = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts[i], _ = callText(t, cs, "deepseek_fetch", map[string]any{"url": "https://go.dev/doc"})
		}()
	}
	require.Eventually(t, func() bool { return len(d.Requests()) >= 1 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // let the others reach their replica's flight or the lock
	close(gate)
	wg.Wait()
	for _, text := range texts {
		require.Contains(t, text, "Effective Go is a guide.")
	}
	require.Len(t, d.Requests(), 1, "20 identical calls over two replicas, one DeepSeek request")

	// Served from the shared cache by either replica.
	text, isErr := callText(t, b, "deepseek_fetch", map[string]any{"url": "https://go.dev/doc"})
	require.False(t, isErr, text)
	require.Len(t, d.Requests(), 1)
	require.Contains(t, replicas[1].audit.String(), `"cache_hit":true`)

	// Redis stopped: calls go on, from each replica's memory.
	rs.Stop()
	text, isErr = callText(t, a, "deepseek_fetch", map[string]any{"url": "https://go.dev/other"})
	require.False(t, isErr, text)
	text, isErr = callText(t, b, "deepseek_fetch", map[string]any{"url": "https://go.dev/third"})
	require.False(t, isErr, text)
	resp, err := http.Get(replicas[0].srv.URL + "/healthz")
	require.NoError(t, err)
	health, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(health), "degraded")
}

// The team's Fetch rate holds across two replicas: with a limit of 3 per
// second, 8 different calls at once get 3 answers and 5 "busy" results
// (the gateway waits at most MaxWait for a slot, here none).
func TestGatewayTeamRateAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	tokens, _, toks := newTokens(t, "alice")
	var sessions []*sdk.ClientSession
	for range 2 {
		redis, err := gateway.OpenRedis(rs.URL, gateway.RedisOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { redis.Close() })
		r := startReplica(t, d, tokens, redis, func(o *gateway.ServerOptions) {
			o.Limits = gateway.Limits{FetchPerSecond: 3, MaxWait: -1, InFlight: 32}
		})
		sessions = append(sessions, r.session(t, toks["alice"]))
	}
	var mu sync.Mutex
	ok, busy := 0, 0
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, isErr := callText(t, sessions[i%2], "deepseek_fetch", map[string]any{"url": fmt.Sprintf("https://go.dev/p%d", i)})
			mu.Lock()
			defer mu.Unlock()
			if !isErr {
				ok++
				return
			}
			require.Contains(t, text, "busy: the team is at its limit of 3 Fetch requests per second; retry in ")
			busy++
		}()
	}
	wg.Wait()
	require.Equal(t, 3, ok)
	require.Equal(t, 5, busy)
	require.Len(t, d.Requests(), 3)
}

// Every refusal is the same bare 401 whatever the reason (no token, an
// unknown, a revoked one, a broken tokens file), and the reason goes to
// the log only, never the token; a member's request reaches the tools
// with the member's name.
func TestGatewayRefusalsAreBare(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	file := filepath.Join(t.TempDir(), "tokens.json")
	alice, err := gateway.AddToken(file, "alice", time.Now())
	require.NoError(t, err)
	revoked, err := gateway.AddToken(file, "mallory", time.Now())
	require.NoError(t, err)
	require.NoError(t, gateway.RevokeToken(file, "mallory"))
	var logs logBuf
	tokens, err := gateway.OpenTokens(file, logs.Logf)
	require.NoError(t, err)
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Logf = logs.Logf })

	_, isErr := callText(t, r.session(t, alice), "deepseek_fetch", map[string]any{"url": "https://go.dev/"})
	require.False(t, isErr)
	require.Contains(t, r.audit.String(), `"member":"alice"`)
	for name, header := range map[string]string{"no token": "", "wrong token": "Bearer " + gateway.NewToken(), "revoked token": "Bearer " + revoked} {
		h := map[string]string{}
		if header != "" {
			h["Authorization"] = header
		}
		code, body := post(t, r.srv.URL, h)
		require.Equal(t, http.StatusUnauthorized, code, name)
		require.Empty(t, body, name)
	}
	// A broken file refuses everyone, alice too, with the same bare 401.
	require.NoError(t, os.WriteFile(file, []byte("{"), 0o600))
	code, body := post(t, r.srv.URL, map[string]string{"Authorization": "Bearer " + alice})
	require.Equal(t, http.StatusUnauthorized, code)
	require.Empty(t, body)
	require.Contains(t, logs.String(), "unknown or revoked token")
	require.Contains(t, logs.String(), "tokens file "+file+": line 1: the JSON ends early")
	require.NotContains(t, logs.String(), "dwr_")
}

// Close cancels the calls in flight: the member is told at once that the
// gateway is stopping, and does not wait for DeepSeek's late answer.
func TestCloseCancelsCalls(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	arrived, release := make(chan struct{}), make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	defer close(release)
	tokens, _, toks := newTokens(t, "alice")
	r := startReplica(t, d, tokens, nil, nil)
	cs := r.session(t, toks["alice"])
	type answer struct {
		text  string
		isErr bool
	}
	done := make(chan answer, 1)
	go func() {
		text, isErr := callText(t, cs, "deepseek_fetch", map[string]any{"url": "https://go.dev/slow"})
		done <- answer{text, isErr}
	}()
	<-arrived
	r.gw.Close()
	select {
	case a := <-done:
		require.True(t, a.isErr)
		require.Equal(t, "deepseek-web-retrieval gateway: the gateway is stopping, so the call was cancelled; try again", a.text)
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled")
	}
	require.Contains(t, r.audit.String(), `"outcome":"cancelled"`)
}
