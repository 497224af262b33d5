package main

// search --search-backend messages through the built binary, against an httptest server
// playing DeepSeek's Anthropic-compatible Messages endpoint.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

type messagesRequest struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// mockMessages answers POST */v1/messages with body when both auth headers carry the
// key, and records every request.
type mockMessages struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []messagesRequest
}

func newMessagesMock(t *testing.T, status int, body string) *mockMessages {
	m := &mockMessages{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b map[string]any
		_ = json.Unmarshal(raw, &b)
		m.mu.Lock()
		m.reqs = append(m.reqs, messagesRequest{r.URL.Path, r.Header.Clone(), b})
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("x-api-key") != cliKey || r.Header.Get("Authorization") != "Bearer "+cliKey {
			w.WriteHeader(401)
			io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+r.Header.Get("x-api-key")+`"}}`)
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			w.WriteHeader(404)
			io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"no route"}}`)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *mockMessages) seen() []messagesRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]messagesRequest(nil), m.reqs...)
}

func messagesFixture(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "testdata", "messages", name))
	require.NoError(t, err)
	return string(b)
}

const messagesText = "1. WASI 0.2 Launched\n" +
	"https://bytecodealliance.org/articles/WASI-0.2\n" +
	"published 2024-01-25\n" +
	"The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.\n" +
	"WASI 0.2 is built on the Component Model.\n" +
	"\n" +
	"2. WASI Preview 2\n" +
	"https://github.com/WebAssembly/WASI/blob/main/preview2/README.md\n" +
	"\n" +
	"3. The WebAssembly Component Model\n" +
	"https://component-model.bytecodealliance.org/\n" +
	"\n" +
	"4. WASI support in Go\n" +
	"https://go.dev/blog/wasi\n" +
	"published 2023-09-13\n" +
	"Go 1.21 adds a new port targeting the WASI preview 1 syscall API through the new GOOS value wasip1.\n"

func TestCLIMessagesSearch(t *testing.T) {
	m := newMessagesMock(t, 200, messagesFixture(t, "multi.json"))
	r := runBin(t, baseEnv(t), "search", "--search-backend", "messages", "--messages-base-url", m.URL, "  wasi preview 2 ")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, messagesText, r.stdout)
	require.Empty(t, r.stderr)
	seen := m.seen()
	require.Len(t, seen, 1)
	req := seen[0]
	require.Equal(t, "/v1/messages", req.Path)
	require.Equal(t, cliKey, req.Header.Get("x-api-key"))
	require.Equal(t, "Bearer "+cliKey, req.Header.Get("Authorization"))
	require.Equal(t, "2023-06-01", req.Header.Get("anthropic-version"))
	require.Equal(t, "application/json", req.Header.Get("Content-Type"))
	require.Equal(t, map[string]any{
		"model": "deepseek-v4-flash", "max_tokens": float64(4096),
		"messages": []any{map[string]any{"role": "user", "content": "Perform a web search for the query: wasi preview 2"}},
		"tools":    []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": float64(5)}},
	}, req.Body)
}

func TestCLIMessagesJSONShowsUsage(t *testing.T) {
	m := newMessagesMock(t, 200, messagesFixture(t, "multi.json"))
	r := runBin(t, baseEnv(t), "search", "--json", "--search-backend", "messages", "--messages-base-url", m.URL,
		"--max-results", "2", "--messages-summary", "wasi")
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Query   string           `json:"query"`
		Results []map[string]any `json:"results"`
		Text    string           `json:"text"`
		Summary string           `json:"summary"`
		Dropped int              `json:"dropped"`
		Usage   map[string]any   `json:"usage"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, map[string]any{
		"input_tokens": float64(10817), "output_tokens": float64(412),
		"server_tool_use": map[string]any{"web_search_requests": float64(2)}, "requests": float64(1),
	}, got.Usage)
	require.Equal(t, 2, got.Dropped)
	require.Len(t, got.Results, 2)
	require.Equal(t, map[string]any{
		"url": "https://bytecodealliance.org/articles/WASI-0.2", "title": "WASI 0.2 Launched",
		"text": "The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.\nWASI 0.2 is built on the Component Model.",
		"date": "January 25, 2024", "published": float64(1706140800000),
	}, got.Results[0])
	require.True(t, strings.HasPrefix(got.Summary, "I'll search for the current status of WASI preview 2.\n\nWASI 0.2 (preview 2) was launched"))
	require.True(t, strings.HasPrefix(got.Text, "DeepSeek's summary (written by the model, not a quote from the results):\n"))
	require.True(t, strings.HasSuffix(got.Text, "\n\n(2 more results not shown: maxResults is 2.)"))
}

func TestCLIMessagesSeedEnvironment(t *testing.T) {
	m := newMessagesMock(t, 200, messagesFixture(t, "empty.json"))
	env := append(baseEnv(t),
		"DEEPSEEK_SEARCH_BASE_URL="+m.URL+"/gw/v1",
		"DEEPSEEK_SEARCH_MODEL=deepseek-v4-pro",
		"DEEPSEEK_SEARCH_MAX_TOKENS=2048",
		"DEEPSEEK_SEARCH_MAX_USES=2",
		"DEEPSEEK_SEARCH_API_VERSION=2024-10-22",
	)
	r := runBin(t, env, "search", "--search-backend", "messages", "zzqx nonexistent phrase 8841")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "No results found for \"zzqx nonexistent phrase 8841\".\n", r.stdout)
	req := m.seen()[0]
	require.Equal(t, "/gw/v1/messages", req.Path)
	require.Equal(t, "2024-10-22", req.Header.Get("anthropic-version"))
	require.Equal(t, "deepseek-v4-pro", req.Body["model"])
	require.Equal(t, float64(2048), req.Body["max_tokens"])
	require.Equal(t, float64(2), req.Body["tools"].([]any)[0].(map[string]any)["max_uses"])

	// Flags win over the environment.
	r = runBin(t, env, "search", "--search-backend", "messages", "--messages-model", "m-flag", "--messages-max-uses", "4",
		"--anthropic-version", "2023-06-01", "zzqx nonexistent phrase 8841")
	require.Equal(t, 0, r.code, r.stderr)
	req = m.seen()[1]
	require.Equal(t, "m-flag", req.Body["model"])
	require.Equal(t, float64(2048), req.Body["max_tokens"])
	require.Equal(t, float64(4), req.Body["tools"].([]any)[0].(map[string]any)["max_uses"])
	require.Equal(t, "2023-06-01", req.Header.Get("anthropic-version"))

	// Without the messages backend the variables are not read: the Search API is asked.
	search := newMock(t)
	search.Search = deepseektest.Answer(200, searchAnswer)
	r = runBin(t, env, "search", "--base-url", search.URL, "go idioms")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, searchText, r.stdout)
	require.Len(t, m.seen(), 2)

	// A variable that does not parse is a usage error naming it.
	r = runBin(t, append(baseEnv(t), "DEEPSEEK_SEARCH_MAX_USES=many"), "search", "--search-backend", "messages", "q")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `environment variable DEEPSEEK_SEARCH_MAX_USES: want a whole number from 1 to 20, got "many"`)
}

func TestCLIMessagesFailures(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		args   []string
		code   int
		stderr string
	}{
		{"strict grounding", 200, messagesFixture(t, "text-only.json"), nil, 4,
			"deepseek-web-retrieval search: DeepSeek Messages search failed: DeepSeek did not run a web search for this query\n"},
		{"a search tool error", 200, `{"type":"message","content":[{"type":"web_search_tool_result","tool_use_id":"s","content":{"type":"web_search_tool_result_error","error_code":"too_many_requests"}}],"stop_reason":"end_turn"}`, nil, 4,
			"deepseek-web-retrieval search: DeepSeek Messages search failed: DeepSeek's web search returned an error: too_many_requests (DeepSeek's search is rate-limited; try again shortly)\n"},
		{"an HTTP error", 402, `{"type":"error","error":{"type":"invalid_request_error","message":"Insufficient Balance"}}`, nil, 4,
			"deepseek-web-retrieval search: DeepSeek Messages search failed: HTTP 402: Insufficient Balance\n"},
		{"an invalid flag names the flag", 200, "{}", []string{"--messages-max-uses", "0"}, 2,
			"--messages-max-uses: want a whole number from 1 to 20, got 0"},
		{"both domain lists", 200, "{}", []string{"--include-domains", "go.dev", "--blocked-domains", "x.com"}, 2,
			`--blocked-domains: cannot be combined with includeDomains when searchBackend is "messages"`},
		{"an unknown backend", 200, "{}", []string{"--search-backend", "google"}, 2,
			`--search-backend: want "search" or "messages", got "google"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMessagesMock(t, tt.status, tt.body)
			args := append([]string{"search", "--search-backend", "messages", "--messages-base-url", m.URL}, tt.args...)
			r := runBin(t, baseEnv(t), append(args, "wasi")...)
			require.Equal(t, tt.code, r.code, r.stderr)
			require.Empty(t, r.stdout)
			if tt.code == 4 {
				require.Equal(t, tt.stderr, r.stderr)
			} else {
				require.Contains(t, r.stderr, tt.stderr)
			}
		})
	}

	// A wrong key is echoed by the mock; it is masked.
	m := newMessagesMock(t, 200, "{}")
	env := append(baseEnv(t)[:1:1], "DEEPSEEK_API_KEY=sk-wrong-key-1234", "LANG=C.UTF-8")
	r := runBin(t, env, "search", "--search-backend", "messages", "--messages-base-url", m.URL, "wasi")
	require.Equal(t, 4, r.code)
	require.Equal(t, "deepseek-web-retrieval search: DeepSeek Messages search failed: HTTP 401: invalid x-api-key [redacted] (check the API key in DEEPSEEK_API_KEY)\n", r.stderr)
}

func TestCLIInitWritesMessagesOptions(t *testing.T) {
	cfgDir := setup(t)
	code, _, errs := runCLI("init", "--host", "opencode", "--search-backend", "messages", "--messages-model", "deepseek-v4-pro",
		"--messages-max-uses", "3", "--messages-summary", "--yes")
	require.Equal(t, exitOK, code, errs)
	matches, _ := filepath.Glob(filepath.Join(cfgDir, "opencode.json*"))
	require.Len(t, matches, 1, "%v", matches)
	b, err := os.ReadFile(matches[0])
	require.NoError(t, err)
	var cfg struct {
		Plugins []struct {
			Options map[string]any `json:"options"`
		} `json:"plugins"`
	}
	require.NoError(t, json.Unmarshal(b, &cfg), string(b))
	require.Len(t, cfg.Plugins, 1)
	require.Equal(t, map[string]any{
		"search": "preferred", "fetch": "optional", "searchBackend": "messages",
		"messagesModel": "deepseek-v4-pro", "messagesMaxUses": float64(3), "messagesSummary": true,
	}, cfg.Plugins[0].Options)

	// Options that clash together are refused before anything is written.
	code, _, errs = runCLI("init", "--host", "opencode", "--search-backend", "messages", "--include-domains", "go.dev", "--blocked-domains", "x.com")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errs, `invalid --blocked-domains: cannot be combined with includeDomains`)
}
