package mcp_test

// Tests through the SDK's in-memory transport and client: what a host lists and calls, every
// failure class, cancellation, concurrency and progress, against an httptest server playing
// DeepSeek that echoes the key wherever it can. Every message on the wire is recorded and
// checked for the key.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

const testKey = "sk-mcptest0123456789abcdef"

// newDeepSeek plays DeepSeek for the tests' key (internal/deepseektest).
func newDeepSeek(t *testing.T) *deepseektest.Server { return deepseektest.New(t, testKey) }

var searchAnswer = map[string]any{"results": []any{
	map[string]any{
		"url": "https://go.dev/doc/effective_go", "title": "Effective Go",
		"summary":      "Effective Go gives   tips\nfor writing clear, idiomatic Go code. " + testKey,
		"rerank_score": 2.44, "authority": 4, "date": "2024-01-15T08:00:00Z", "site_name": "Go Documentation",
	},
	map[string]any{"url": "https://GO.dev/doc/effective_go#top", "title": "Duplicate", "summary": "dropped"},
	map[string]any{"url": "https://example.com/go-tips", "snippet": "Some Go tips.", "authority": -1},
}}

// searchText is SPEC §6's text for searchAnswer, the CLI's output without its final newline.
const searchText = "1. Effective Go\n" +
	"https://go.dev/doc/effective_go\n" +
	"[rerank 2.4 · authority 4 · Go Documentation] · published 2024-01-15\n" +
	"Effective Go gives tips for writing clear, idiomatic Go code. [redacted]\n" +
	"\n" +
	"2. https://example.com/go-tips\n" +
	"https://example.com/go-tips\n" +
	"[authority unknown]\n" +
	"Some Go tips."

var fetchAnswer = map[string]any{"title": "Effective Go", "content": "Effective Go is a guide.\n\n## Introduction\n\nGo is a new language."}

const fetchText = "# Effective Go\n\nEffective Go is a guide.\n\n## Introduction\n\nGo is a new language."

// env is a mutable environment, so a test can set the key after the server started.
type env struct {
	mu   sync.Mutex
	vars map[string]string
}

func (e *env) get(name string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vars[name]
}

func (e *env) set(name, value string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vars[name] = value
}

type harness struct {
	session  *sdk.ClientSession
	env      *env
	wire     *syncbuf.Buffer // every JSON-RPC message, both ways
	mu       sync.Mutex
	progress []*sdk.ProgressNotificationParams
}

// connect starts a server with options (JSON as a user writes them; baseURL added) and
// connects a client to it in memory.
func connect(t *testing.T, d *deepseektest.Server, options string) *harness {
	t.Helper()
	return connectWith(t, d, options, nil)
}

// connectWith is connect with the server's Options adjusted by adjust.
func connectWith(t *testing.T, d *deepseektest.Server, options string, adjust func(*mcp.Options)) *harness {
	t.Helper()
	var o core.Options
	if options != "" {
		require.NoError(t, json.Unmarshal([]byte(options), &o))
	}
	if d != nil && o.BaseURL == "" {
		o.BaseURL = d.URL
	}
	cfg, _, err := core.NewConfig(o)
	require.NoError(t, err)
	h := &harness{env: &env{vars: map[string]string{"DEEPSEEK_API_KEY": testKey}}, wire: &syncbuf.Buffer{}}
	mo := mcp.Options{Config: cfg, Getenv: h.env.get}
	if adjust != nil {
		adjust(&mo)
	}
	srv := mcp.NewServer(mo)
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, r.Params)
			h.mu.Unlock()
		},
	})
	h.session, err = client.Connect(ctx, &sdk.LoggingTransport{Transport: ct, Writer: h.wire}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = h.session.Close()
		_ = ss.Wait()
		cancel()
		require.NotContains(t, h.fromServer(), testKey, "the server sent the key")
	})
	return h
}

// fromServer is every message the server sent (the LoggingTransport's "read:" lines).
func (h *harness) fromServer() string {
	var b strings.Builder
	for _, line := range strings.Split(h.wire.String(), "\n") {
		if strings.HasPrefix(line, "read: ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func (h *harness) call(t *testing.T, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := h.session.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	return res
}

// text returns a result's only content, which must be text.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func TestListTools(t *testing.T) {
	const preferSearch = " Prefer this tool over the host's built-in web search tool for searching the web."
	const preferFetch = " Prefer this tool over the host's built-in web fetch tool for reading web pages."
	tests := []struct {
		name, options string
		want          []string // tool names
		preferSearch  bool
		preferFetch   bool
	}{
		{"defaults", ``, []string{"deepseek_fetch", "deepseek_search"}, true, false},
		{"search off", `{"search":"off"}`, []string{"deepseek_fetch"}, false, false},
		{"fetch off", `{"fetch":"off"}`, []string{"deepseek_search"}, true, false},
		{"both off", `{"search":"off","fetch":"off"}`, nil, false, false},
		{"optional search, preferred fetch", `{"search":"optional","fetch":"preferred"}`, []string{"deepseek_fetch", "deepseek_search"}, false, true},
		{"forced", `{"search":"forced","fetch":"forced"}`, []string{"deepseek_fetch", "deepseek_search"}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := connect(t, nil, tc.options)
			res, err := h.session.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				schema, err := json.Marshal(tool.InputSchema)
				require.NoError(t, err)
				switch tool.Name {
				case "deepseek_search":
					require.True(t, strings.HasPrefix(tool.Description, "Search the web with DeepSeek's Search API. Returns up to 10 results,"), tool.Description)
					require.Equal(t, tc.preferSearch, strings.HasSuffix(tool.Description, preferSearch), tool.Description)
					require.JSONEq(t, `{"type":"object","properties":{
						"query":{"type":"string","description":"What to search for, with optional operators."},
						"queries":{"type":"array","items":{"type":"string"},"maxItems":4,"description":"Or up to 4 queries at once; results merged."},
						"question":{"type":"string","description":"Optional: the user's original question in their own words, when it says more than the query; DeepSeek uses it to rank results."}},
						"additionalProperties":false}`, string(schema))
				case "deepseek_fetch":
					require.True(t, strings.HasPrefix(tool.Description, "Fetch one public web page through DeepSeek's Fetch API and return its content as Markdown, at most 16000 characters"), tool.Description)
					require.Equal(t, tc.preferFetch, strings.HasSuffix(tool.Description, preferFetch), tool.Description)
					require.JSONEq(t, `{"type":"object","properties":{
						"url":{"type":"string","description":"The absolute http:// or https:// URL of the page to fetch."},
						"format":{"type":"string","enum":["markdown"],"description":"Output format. Only \"markdown\" is available; leave it out."},
						"urls":{"type":"array","items":{"type":"string"},"maxItems":5,"description":"Or up to 5 URLs at once."},
						"offset":{"type":"integer","minimum":0,"description":"Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on."}},
						"additionalProperties":false}`, string(schema))
				}
				require.NotNil(t, tool.Annotations)
				require.True(t, tool.Annotations.ReadOnlyHint)
			}
			require.Equal(t, tc.want, names)
		})
	}
}

func TestDescriptionsFollowOptions(t *testing.T) {
	h := connect(t, nil, `{"maxResults":5,"fetchMaxChars":3000}`)
	res, err := h.session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Contains(t, res.Tools[0].Description, "at most 3000 characters")
	require.Contains(t, res.Tools[1].Description, "Returns up to 5 results")
}

func TestServerInfo(t *testing.T) {
	h := connect(t, nil, ``)
	init := h.session.InitializeResult()
	require.Equal(t, "deepseek-web-retrieval", init.ServerInfo.Name)
	require.Equal(t, core.Version, init.ServerInfo.Version)
	require.NotNil(t, init.Capabilities.Tools)
	require.Nil(t, init.Capabilities.Logging, "no logging capability: diagnostics go to stderr")
}

func TestSearch(t *testing.T) {
	d := newDeepSeek(t)
	d.Search = deepseektest.Answer(200, searchAnswer)
	h := connect(t, d, `{"maxResults":5}`)

	res := h.call(t, "deepseek_search", map[string]any{"query": "  go idioms "})
	require.False(t, res.IsError)
	require.Nil(t, res.StructuredContent)
	require.Equal(t, searchText, text(t, res))

	res = h.call(t, "deepseek_search", map[string]any{"query": "go idioms", "question": "  How do I write idiomatic Go? ", "extra": 1})
	require.False(t, res.IsError)
	require.Equal(t, []map[string]any{
		{"query": "go idioms", "count": float64(5), "need_content": false},
		{"query": "go idioms", "count": float64(5), "need_content": false, "ori_question": "How do I write idiomatic Go?"},
	}, d.Bodies())
}

func TestFetch(t *testing.T) {
	d := newDeepSeek(t)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	h := connect(t, d, ``)
	for _, args := range []map[string]any{
		{"url": "https://go.dev/doc/effective_go"},
		{"url": "https://go.dev/doc/effective_go", "format": "markdown"},
	} {
		res := h.call(t, "deepseek_fetch", args)
		require.False(t, res.IsError, text(t, res))
		require.Nil(t, res.StructuredContent)
		require.Equal(t, fetchText, text(t, res))
	}
	require.Equal(t, map[string]any{"url": "https://go.dev/doc/effective_go"}, d.Bodies()[0])
}

func TestFetchTruncated(t *testing.T) {
	d := newDeepSeek(t)
	d.Fetch = deepseektest.Answer(200, map[string]any{"title": "Long", "content": strings.Repeat("word ", 200)})
	h := connect(t, d, `{"fetchMaxChars":200}`)
	got := text(t, h.call(t, "deepseek_fetch", map[string]any{"url": "https://example.com/long"}))
	require.LessOrEqual(t, len([]rune(got)), 200)
	require.True(t, strings.HasPrefix(got, "# Long\n\nword word"), got)
	require.True(t, strings.HasSuffix(got, "\n[content truncated: showing 0–99 of 1,007 characters; call deepseek_fetch with offset 99 for more]"), got)
	// The next part comes from the server's page cache: no second request.
	next := text(t, h.call(t, "deepseek_fetch", map[string]any{"url": "https://example.com/long", "offset": 99}))
	require.True(t, strings.HasPrefix(next, "ord word"), next)
	require.True(t, strings.HasSuffix(next, "\n[content truncated: showing 99–197 of 1,007 characters; call deepseek_fetch with offset 197 for more]"), next)
	require.Len(t, d.Bodies(), 1)
}

// Every failure is a tool result with isError and our sentence; none sends a request it must not.
func TestFailures(t *testing.T) {
	tests := []struct {
		name     string
		options  string
		tool     string
		args     any
		search   http.HandlerFunc
		fetch    http.HandlerFunc
		key      string
		want     string
		requests int
	}{
		{name: "no arguments", tool: "deepseek_search", args: nil,
			want: `deepseek_search: the input needs "query" (a string)`},
		{name: "query missing", tool: "deepseek_search", args: map[string]any{"question": "why"},
			want: `deepseek_search: the input needs "query" (a string)`},
		{name: "query not a string", tool: "deepseek_search", args: map[string]any{"query": 42},
			want: `deepseek_search: "query" must be a string`},
		{name: "question not a string", tool: "deepseek_search", args: map[string]any{"query": "go", "question": []string{"a"}},
			want: `deepseek_search: "question" must be a string`},
		{name: "empty query", tool: "deepseek_search", args: map[string]any{"query": "   "},
			want: "DeepSeek Search: the query is empty"},
		{name: "query too long", tool: "deepseek_search", args: map[string]any{"query": strings.Repeat("é", 129)},
			want: "DeepSeek Search: the query is 129 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{name: "url missing", tool: "deepseek_fetch", args: map[string]any{"format": "markdown"},
			want: `deepseek_fetch: the input needs "url" (a string)`},
		{name: "format text", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/", "format": "text"},
			want: `DeepSeek Fetch: format "text" is not available; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)`},
		{name: "private url", tool: "deepseek_fetch", args: map[string]any{"url": "http://169.254.169.254/latest/meta-data/"},
			want: `DeepSeek Fetch: url refused: host "169.254.169.254" is the link-local cloud metadata address 169.254.169.254; private and local addresses never leave this machine`},
		{name: "blocked domain", options: `{"blockedDomains":["example.com"]}`, tool: "deepseek_fetch", args: map[string]any{"url": "https://www.example.com/"},
			want: `DeepSeek Fetch: url refused: host "www.example.com" is in blockedDomains ("example.com")`},
		{name: "query holding the key", tool: "deepseek_search", args: map[string]any{"query": "leak " + testKey},
			want: "DeepSeek Search: the query contains the API key; it was not sent"},
		{name: "missing key", tool: "deepseek_search", args: map[string]any{"query": "go"}, key: "-",
			want: "DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable"},
		{name: "missing key, other variable", options: `{"apiKeyEnv":"MY_DS_KEY"}`, tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/"},
			want: "DeepSeek API key not found: set the MY_DS_KEY environment variable"},
		{name: "unexpanded ${VAR} (Claude Code with the variable unset)", tool: "deepseek_search", args: map[string]any{"query": "go"}, key: "${DEEPSEEK_API_KEY}",
			want: "DeepSeek API key not found: the MCP host passed DEEPSEEK_API_KEY as an unexpanded reference, not a key; set the DEEPSEEK_API_KEY environment variable where the host starts"},
		{name: "unexpanded $VAR", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/"}, key: "$DEEPSEEK_API_KEY",
			want: "DeepSeek API key not found: the MCP host passed DEEPSEEK_API_KEY as an unexpanded reference, not a key; set the DEEPSEEK_API_KEY environment variable where the host starts"},
		{name: "unexpanded {env:VAR}", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/"}, key: "{env:DEEPSEEK_API_KEY}",
			want: "DeepSeek API key not found: the MCP host passed DEEPSEEK_API_KEY as an unexpanded reference, not a key; set the DEEPSEEK_API_KEY environment variable where the host starts"},
		{name: "wrong key, echoed", tool: "deepseek_search", args: map[string]any{"query": "go"}, key: "sk-wrong0123456789abcdefghij",
			want: "DeepSeek Search failed: HTTP 401: Authentication Fails: bad key [redacted] (check the API key in DEEPSEEK_API_KEY)", requests: 1},
		{name: "insufficient balance", tool: "deepseek_search", args: map[string]any{"query": "go"},
			search: deepseektest.Answer(402, deepseektest.APIError("Insufficient Balance")),
			want:   "DeepSeek Search failed: HTTP 402: Insufficient Balance", requests: 1},
		{name: "server errors until retries run out", options: `{"maxRetries":1}`, tool: "deepseek_search", args: map[string]any{"query": "go"},
			search: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "0")
				deepseektest.WriteJSON(w, 503, deepseektest.APIError("Service Unavailable"))
			},
			want: "DeepSeek Search failed: HTTP 503: Service Unavailable (gave up after 2 attempts)", requests: 2},
		{name: "fetch 404", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/missing"},
			fetch: deepseektest.Answer(404, deepseektest.APIError("could not retrieve the page")),
			want:  "DeepSeek Fetch failed: HTTP 404: could not retrieve the page", requests: 1},
		{name: "redirect", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/"},
			fetch: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://evil.example/", http.StatusFound)
			},
			want: "DeepSeek Fetch failed: HTTP 302: DeepSeek answered with a redirect, which is never followed", requests: 1},
		{name: "not JSON", tool: "deepseek_search", args: map[string]any{"query": "go"},
			search: func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "oops") },
			want:   "DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: oops); check that baseURL", requests: 1},
		{name: "no content", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/empty"},
			fetch: deepseektest.Answer(200, map[string]any{"title": "Empty", "content": "  "}),
			want:  "DeepSeek Fetch failed: no readable content at https://go.dev/empty", requests: 1},
		{name: "body over 5 MiB", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/big"},
			fetch: func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write(bytes.Repeat([]byte(" "), core.MaxResponseBytes+1))
			},
			want: "DeepSeek Fetch failed: the response is larger than 5 MiB (5242880 bytes) and was not read", requests: 1},
		{name: "timeout", options: `{"timeoutMs":1000,"maxRetries":0}`, tool: "deepseek_search", args: map[string]any{"query": "go"},
			search: func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			want: "DeepSeek Search failed: timed out after 1000 ms", requests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeepSeek(t)
			d.Search, d.Fetch = tc.search, tc.fetch
			h := connect(t, d, tc.options)
			switch tc.key {
			case "":
			case "-":
				h.env.set("DEEPSEEK_API_KEY", "")
			default:
				h.env.set("DEEPSEEK_API_KEY", tc.key)
			}
			res := h.call(t, tc.tool, tc.args)
			require.True(t, res.IsError, "want isError; got %q", text(t, res))
			got := text(t, res)
			if strings.HasSuffix(tc.want, "check that baseURL") { // the mock's port follows
				require.True(t, strings.HasPrefix(got, tc.want), got)
			} else {
				require.Equal(t, tc.want, got)
			}
			require.Len(t, d.Bodies(), tc.requests)
			if tc.key != "" && tc.key != "-" {
				require.NotContains(t, h.fromServer(), tc.key)
			}
		})
	}
}

func TestNetworkError(t *testing.T) {
	d := newDeepSeek(t)
	h := connect(t, d, `{"maxRetries":0}`)
	d.Close()
	res := h.call(t, "deepseek_search", map[string]any{"query": "go"})
	require.True(t, res.IsError)
	require.True(t, strings.HasPrefix(text(t, res), "DeepSeek Search failed: network error: "), text(t, res))
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	h := connect(t, nil, `{"search":"off"}`)
	for _, name := range []string{"nope", "deepseek_search"} {
		_, err := h.session.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{"query": "go"}})
		require.ErrorContains(t, err, fmt.Sprintf("unknown tool %q", name))
	}
	// The session still serves.
	_, err := h.session.ListTools(context.Background(), nil)
	require.NoError(t, err)
}

// The key is read at every call: a host that sets it after start works.
func TestKeyReadAtCallTime(t *testing.T) {
	d := newDeepSeek(t)
	d.Search = deepseektest.Answer(200, searchAnswer)
	h := connect(t, d, ``)
	h.env.set("DEEPSEEK_API_KEY", "")
	res := h.call(t, "deepseek_search", map[string]any{"query": "go"})
	require.True(t, res.IsError)
	h.env.set("DEEPSEEK_API_KEY", testKey)
	res = h.call(t, "deepseek_search", map[string]any{"query": "go"})
	require.False(t, res.IsError, text(t, res))
	require.Equal(t, searchText, text(t, res))
}

// Cancelling a call (the client sends notifications/cancelled) aborts its request at once.
func TestCancellation(t *testing.T) {
	d := newDeepSeek(t)
	arrived, aborted := make(chan struct{}), make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-r.Context().Done():
			close(aborted)
		case <-time.After(10 * time.Second):
		}
	}
	h := connect(t, d, ``)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.session.CallTool(ctx, &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": "https://go.dev/"}})
		done <- err
	}()
	<-arrived
	start := time.Now()
	cancel()
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("the request to DeepSeek was not aborted")
	}
	require.Less(t, time.Since(start), 5*time.Second) // the mock would hold it 10 s
	require.ErrorIs(t, <-done, context.Canceled)
	require.Contains(t, h.wire.String(), `"method":"notifications/cancelled"`)
	// The session still serves.
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	require.Equal(t, fetchText, text(t, h.call(t, "deepseek_fetch", map[string]any{"url": "https://go.dev/"})))
}

// Twenty calls run at once: DeepSeek answers none until all twenty have arrived.
func TestConcurrentCalls(t *testing.T) {
	const n = 20
	d := newDeepSeek(t)
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	d.Search = func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Query string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		arrived.Done()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			deepseektest.WriteJSON(w, 500, deepseektest.APIError("not concurrent"))
			return
		}
		deepseektest.WriteJSON(w, 200, map[string]any{"results": []any{map[string]any{"url": "https://example.com/" + body.Query, "title": body.Query}}})
	}
	// The body is read by the handler, not by the shared mock: use a bare server.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			deepseektest.WriteJSON(w, 401, deepseektest.APIError("bad key"))
			return
		}
		d.Search(w, r)
	}))
	defer srv.Close()
	// Twenty at once: over the default admission limits.
	h := connect(t, nil, `{"baseURL":"`+srv.URL+`","maxRetries":0,"maxCalls":20,"maxHeldMB":256}`)
	var wg sync.WaitGroup
	results := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.session.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_search", Arguments: map[string]any{"query": fmt.Sprintf("q%d", i)}})
			if err == nil {
				results[i] = res.Content[0].(*sdk.TextContent).Text
			}
		}()
	}
	wg.Wait()
	for i, got := range results {
		q := fmt.Sprintf("q%d", i)
		require.Equal(t, "1. "+q+"\nhttps://example.com/"+q, got)
	}
}

// A call whose client gave a progress token hears about every retry wait.
func TestProgressDuringRetries(t *testing.T) {
	d := newDeepSeek(t)
	calls := 0
	d.Search = func(w http.ResponseWriter, _ *http.Request) {
		calls++
		if calls < 3 {
			w.Header().Set("Retry-After", "0")
			deepseektest.WriteJSON(w, 503, deepseektest.APIError("busy"))
			return
		}
		deepseektest.WriteJSON(w, 200, searchAnswer)
	}
	h := connect(t, d, ``)
	params := &sdk.CallToolParams{Name: "deepseek_search", Arguments: map[string]any{"query": "go"}}
	params.SetProgressToken("tok-1")
	res, err := h.session.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.Equal(t, searchText, text(t, res))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return len(h.progress) == 2 }, 2*time.Second, 10*time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, p := range h.progress {
		require.Equal(t, "tok-1", p.ProgressToken)
		require.Equal(t, float64(i+1), p.Progress)
		require.Equal(t, float64(3), p.Total)
		require.Equal(t, fmt.Sprintf("DeepSeek Search: attempt %d of 3 failed (HTTP 503); retrying in 0.0 s", i+1), p.Message)
	}

	// Without a token, the same two retry waits send nothing (a query of its own: the search
	// cache would answer a repeated one without asking DeepSeek).
	calls = 0
	h.progress = nil
	h.mu.Unlock()
	res = h.call(t, "deepseek_search", map[string]any{"query": "go again"})
	h.mu.Lock()
	require.False(t, res.IsError)
	require.Equal(t, 3, calls)
	require.Empty(t, h.progress)
}

// Around sees every call (its tool, whether its arguments held, the
// identity its answer is shared by) and decides what the client gets: it
// can answer without running the call, as a shared cache does.
func TestAround(t *testing.T) {
	d := newDeepSeek(t)
	d.Search = deepseektest.Answer(200, searchAnswer)
	var mu sync.Mutex
	var calls []mcp.Call
	cached := map[string]string{}
	h := connectWith(t, d, `{"maxResults":5}`, func(o *mcp.Options) {
		o.Around = func(ctx context.Context, c *mcp.Call, run func(context.Context) mcp.Outcome) mcp.Outcome {
			mu.Lock()
			calls = append(calls, *c)
			text, hit := cached[string(c.Identity)]
			mu.Unlock()
			if hit {
				return mcp.Outcome{Text: text}
			}
			out := run(ctx)
			if !out.IsError && c.Identity != nil {
				mu.Lock()
				cached[string(c.Identity)] = out.Text
				mu.Unlock()
			}
			return out
		}
	})
	for range 3 {
		res := h.call(t, "deepseek_search", map[string]any{"query": "go idioms"})
		require.False(t, res.IsError)
		require.Equal(t, searchText, text(t, res))
	}
	require.Len(t, d.Requests(), 1, "the second and third came from Around's cache")
	res := h.call(t, "deepseek_search", map[string]any{"query": 1})
	require.True(t, res.IsError)
	require.Len(t, calls, 4)
	require.True(t, calls[0].Valid)
	require.Equal(t, "deepseek_search", calls[0].Tool)
	require.Equal(t, "go idioms", calls[0].Op.Query)
	require.NotEmpty(t, calls[0].Identity)
	require.NotContains(t, string(calls[0].Identity), testKey)
	require.False(t, calls[3].Valid)
	require.Nil(t, calls[3].Identity)
}
