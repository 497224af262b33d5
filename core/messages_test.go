package core_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestMessagesRequest(t *testing.T) {
	tests := []struct {
		name     string
		opts     core.Options
		query    string
		url      string
		version  string
		timeout  int64
		wantBody string
	}{
		{
			name:     "defaults",
			query:    "  WASI preview 2 status ",
			url:      "https://api.deepseek.com/anthropic/v1/messages",
			version:  "2023-06-01",
			timeout:  60000,
			wantBody: `{"model":"deepseek-v4-flash","max_tokens":4096,"messages":[{"role":"user","content":"Perform a web search for the query: WASI preview 2 status"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`,
		},
		{
			name: "every option, a base ending in /v1, includeDomains as allowed_domains",
			opts: core.Options{
				TimeoutMs: 90000, IncludeDomains: []string{"Go.dev", "wazero.io"}, Language: "zh,en", Localization: "1.2.3.4",
				MessagesOptions: core.MessagesOptions{
					MessagesBaseURL: "http://127.0.0.1:8080/gateway/v1/", MessagesModel: "deepseek-v4-pro",
					MessagesMaxTokens: 2048, MessagesMaxUses: 2, AnthropicVersion: "2024-01-01",
				},
			},
			query:    "wasip1",
			url:      "http://127.0.0.1:8080/gateway/v1/messages",
			version:  "2024-01-01",
			timeout:  90000,
			wantBody: `{"model":"deepseek-v4-pro","max_tokens":2048,"messages":[{"role":"user","content":"Perform a web search for the query: wasip1"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":2,"allowed_domains":["go.dev","wazero.io"]}]}`,
		},
		{
			name:     "blockedDomains as blocked_domains",
			opts:     core.Options{BlockedDomains: []string{"pinterest.com"}, MessagesOptions: core.MessagesOptions{MessagesBaseURL: "https://gw.example.com/anthropic"}},
			query:    "wasip1",
			url:      "https://gw.example.com/anthropic/v1/messages",
			version:  "2023-06-01",
			timeout:  60000,
			wantBody: `{"model":"deepseek-v4-flash","max_tokens":4096,"messages":[{"role":"user","content":"Perform a web search for the query: wasip1"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5,"blocked_domains":["pinterest.com"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := core.NewEngine(testEnv())
			s := e.Start(core.Operation{Kind: core.KindSearch, Query: tt.query, OriQuestion: "ignored here", Config: messagesConfig(t, tt.opts), APIKey: testKey})
			require.Nil(t, s.Err)
			require.Equal(t, &core.Request{
				Method: "POST",
				URL:    tt.url,
				Header: []core.HeaderField{
					{"x-api-key", testKey},
					{"Authorization", "Bearer " + testKey},
					{"anthropic-version", tt.version},
					{"Content-Type", "application/json"},
					{"Accept", "application/json"},
					{"User-Agent", "deepseek-web-retrieval/" + core.Version},
				},
				Body:      []byte(tt.wantBody),
				TimeoutMs: tt.timeout,
				MaxBytes:  5242880,
				Attempt:   1,
			}, s.Request)
			e.Cancel(s.Handle)
		})
	}
}

func TestMessagesOptions(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
		check   func(t *testing.T, c *core.Config)
	}{
		{"search stays the default backend", `{}`, "", func(t *testing.T, c *core.Config) {
			require.Equal(t, core.BackendSearch, c.Messages.Backend)
			require.Equal(t, 10, c.MaxResults)
			require.Equal(t, 30000, c.TimeoutMs)
		}},
		{"messages defaults: 8 results, 60 s, fetch keeps 30 s", `{"searchBackend":"messages"}`, "", func(t *testing.T, c *core.Config) {
			require.Equal(t, core.BackendMessages, c.Messages.Backend)
			require.Equal(t, 8, c.MaxResults)
			require.Equal(t, 60000, c.Messages.TimeoutMs)
			require.Equal(t, 30000, c.TimeoutMs)
			require.False(t, c.Messages.Summary)
		}},
		{"an explicit maxResults and timeoutMs win", `{"searchBackend":"messages","maxResults":12,"timeoutMs":45000}`, "", func(t *testing.T, c *core.Config) {
			require.Equal(t, 12, c.MaxResults)
			require.Equal(t, 45000, c.Messages.TimeoutMs)
		}},
		{"messagesSummary", `{"searchBackend":"messages","messagesSummary":true}`, "", func(t *testing.T, c *core.Config) {
			require.True(t, c.Messages.Summary)
		}},
		{"a base without /v1 keeps its path", `{"messagesBaseURL":"https://gw.example.com/x/anthropic/"}`, "", func(t *testing.T, c *core.Config) {
			require.Equal(t, "https://gw.example.com/x/anthropic/v1/messages", c.Messages.Endpoint)
		}},
		{"unknown backend", `{"searchBackend":"bing"}`, `option "searchBackend": want "search" or "messages", got "bing"`, nil},
		{"plain http off loopback", `{"messagesBaseURL":"http://gw.example.com/anthropic"}`, `option "messagesBaseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://gw.example.com/anthropic"`, nil},
		{"plain http to a name under localhost", `{"messagesBaseURL":"http://evil.localhost:18080/anthropic"}`, `option "messagesBaseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://evil.localhost:18080/anthropic"`, nil},
		{"plain http to localhost.", `{"messagesBaseURL":"http://localhost.:18080/anthropic"}`, `option "messagesBaseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://localhost.:18080/anthropic"`, nil},
		{"plain http to localhost", `{"messagesBaseURL":"http://localhost:18080/anthropic"}`, "", func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://localhost:18080/anthropic/v1/messages", c.Messages.Endpoint)
		}},
		{"max tokens 0", `{"messagesMaxTokens":0}`, `option "messagesMaxTokens": want a whole number from 128 to 65536, got 0`, nil},
		{"max tokens too high", `{"messagesMaxTokens":100000}`, `option "messagesMaxTokens": want a whole number from 128 to 65536, got 100000`, nil},
		{"max uses", `{"messagesMaxUses":21}`, `option "messagesMaxUses": want a whole number from 1 to 20, got 21`, nil},
		{"max uses not a number", `{"messagesMaxUses":"5"}`, `option "messagesMaxUses": want a whole number, got "5"`, nil},
		{"model with spaces", `{"messagesModel":" deepseek "}`, `option "messagesModel": want a model name such as "deepseek-v4-flash" (no surrounding spaces or control characters, at most 128 characters), got " deepseek "`, nil},
		{"version with a space", `{"anthropicVersion":"2023 06 01"}`, `option "anthropicVersion": want a version such as "2023-06-01" (no spaces, at most 64 characters), got "2023 06 01"`, nil},
		{"summary not a bool", `{"messagesSummary":"yes"}`, `option "messagesSummary": want true or false, got "yes"`, nil},
		{"both domain lists on messages", `{"searchBackend":"messages","includeDomains":["go.dev"],"blockedDomains":["x.com"]}`,
			`option "blockedDomains": cannot be combined with includeDomains when searchBackend is "messages": DeepSeek's web_search tool takes allowed_domains or blocked_domains, not both`, nil},
		{"both domain lists stay fine on search", `{"includeDomains":["go.dev"],"blockedDomains":["x.com"]}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, warnings, err := core.ParseOptions([]byte(tt.json))
			if err == nil {
				require.Empty(t, warnings)
				var c *core.Config
				c, _, err = core.NewConfig(o)
				if err == nil && tt.check != nil {
					tt.check(t, c)
				}
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
			var oe *core.OptionError
			require.True(t, errors.As(err, &oe))
		})
	}
}

func TestApplyMessagesEnv(t *testing.T) {
	env := map[string]string{
		"DEEPSEEK_SEARCH_BASE_URL":    "https://gw.example.com/v1",
		"DEEPSEEK_SEARCH_MODEL":       "deepseek-v4-pro",
		"DEEPSEEK_SEARCH_MAX_TOKENS":  "2048",
		"DEEPSEEK_SEARCH_MAX_USES":    " 3 ",
		"DEEPSEEK_SEARCH_API_VERSION": "2023-01-01",
	}
	getenv := func(k string) string { return env[k] }

	// Not the messages backend: nothing is read.
	var o core.Options
	require.NoError(t, core.ApplyMessagesEnv(&o, getenv))
	require.Equal(t, core.Options{}, o)

	o = core.Options{MessagesOptions: core.MessagesOptions{SearchBackend: core.BackendMessages}}
	require.NoError(t, core.ApplyMessagesEnv(&o, getenv))
	require.Equal(t, core.MessagesOptions{
		SearchBackend: core.BackendMessages, MessagesBaseURL: "https://gw.example.com/v1", MessagesModel: "deepseek-v4-pro",
		MessagesMaxTokens: 2048, MessagesMaxUses: 3, AnthropicVersion: "2023-01-01",
	}, o.MessagesOptions)
	cfg := mustConfig(t, o)
	require.Equal(t, "https://gw.example.com/v1/messages", cfg.Messages.Endpoint)

	// "010" is ten, not eight; a leading zero is no base prefix.
	o = core.Options{MessagesOptions: core.MessagesOptions{SearchBackend: core.BackendMessages}}
	require.NoError(t, core.ApplyMessagesEnv(&o, func(k string) string {
		return map[string]string{"DEEPSEEK_SEARCH_MAX_USES": "010", "DEEPSEEK_SEARCH_MAX_TOKENS": "+0000000000512"}[k]
	}))
	require.Equal(t, 10, o.MessagesMaxUses)
	require.Equal(t, 512, o.MessagesMaxTokens)

	// Options already set win.
	o = core.Options{MessagesOptions: core.MessagesOptions{SearchBackend: core.BackendMessages, MessagesModel: "m", MessagesMaxUses: 1}}
	require.NoError(t, core.ApplyMessagesEnv(&o, getenv))
	require.Equal(t, "m", o.MessagesModel)
	require.Equal(t, 1, o.MessagesMaxUses)
	require.Equal(t, 2048, o.MessagesMaxTokens)

	for _, bad := range []struct{ env, value, want string }{
		{"DEEPSEEK_SEARCH_MAX_TOKENS", "lots", `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "lots"`},
		{"DEEPSEEK_SEARCH_MAX_USES", "0", `environment variable DEEPSEEK_SEARCH_MAX_USES: want a whole number from 1 to 20, got "0"`},
		// Decimal only: base prefixes are not read.
		{"DEEPSEEK_SEARCH_MAX_USES", "0x10", `environment variable DEEPSEEK_SEARCH_MAX_USES: want a whole number from 1 to 20, got "0x10"`},
		{"DEEPSEEK_SEARCH_MAX_USES", "0b11", `environment variable DEEPSEEK_SEARCH_MAX_USES: want a whole number from 1 to 20, got "0b11"`},
		{"DEEPSEEK_SEARCH_MAX_TOKENS", "0o777", `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "0o777"`},
	} {
		o = core.Options{MessagesOptions: core.MessagesOptions{SearchBackend: core.BackendMessages}}
		err := core.ApplyMessagesEnv(&o, func(k string) string {
			if k == bad.env {
				return bad.value
			}
			return ""
		})
		require.EqualError(t, err, bad.want)
	}
}

func TestMessagesMapping(t *testing.T) {
	multiText := strings.Join([]string{
		"1. WASI 0.2 Launched",
		"https://bytecodealliance.org/articles/WASI-0.2",
		"published 2024-01-25",
		"The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.",
		"WASI 0.2 is built on the Component Model.",
		"",
		"2. WASI Preview 2",
		"https://github.com/WebAssembly/WASI/blob/main/preview2/README.md",
		"",
		"3. The WebAssembly Component Model",
		"https://component-model.bytecodealliance.org/",
		"",
		"4. WASI support in Go",
		"https://go.dev/blog/wasi",
		"published 2023-09-13",
		"Go 1.21 adds a new port targeting the WASI preview 1 syscall API through the new GOOS value wasip1.",
	}, "\n")
	tests := []struct {
		name      string
		opts      core.Options
		body      string
		wantText  string
		wantUsage core.Usage
	}{
		{
			name:      "several searches, duplicates across blocks, citations of non-results, results without citations",
			body:      fixture(t, "multi.json"),
			wantText:  multiText,
			wantUsage: core.Usage{InputTokens: 10817, OutputTokens: 412, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1},
		},
		{
			name: "messagesSummary puts DeepSeek's prose first, labelled",
			opts: core.Options{MessagesOptions: core.MessagesOptions{MessagesSummary: true}},
			body: fixture(t, "multi.json"),
			wantText: "DeepSeek's summary (written by the model, not a quote from the results):\n" +
				"I'll search for the current status of WASI preview 2.\n\n" +
				"WASI 0.2 (preview 2) was launched in January 2024, and it is built on the component model. Go supports the older preview 1 as GOOS=wasip1. See also https://prose-only.example.org/ for details.\n\n" +
				multiText,
			wantUsage: core.Usage{InputTokens: 10817, OutputTokens: 412, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1},
		},
		{
			name: "maxResults caps the list and says how many were dropped",
			opts: core.Options{MaxResults: 2},
			body: fixture(t, "multi.json"),
			wantText: strings.Join(strings.Split(multiText, "\n")[:8], "\n") + "\n\n" +
				"(2 more results not shown: maxResults is 2.)",
			wantUsage: core.Usage{InputTokens: 10817, OutputTokens: 412, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1},
		},
		{
			name:      "a result cut to maxSummaryChars",
			opts:      core.Options{MaxResults: 1, MaxSummaryChars: 40},
			body:      fixture(t, "multi.json"),
			wantText:  "1. WASI 0.2 Launched\nhttps://bytecodealliance.org/articles/WASI-0.2\npublished 2024-01-25\nThe WASI Subgroup voted to launch WASI…\n\n(3 more results not shown: maxResults is 1.)",
			wantUsage: core.Usage{InputTokens: 10817, OutputTokens: 412, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1},
		},
		{
			name:      "blockedDomains is enforced on the results too",
			opts:      core.Options{BlockedDomains: []string{"bytecodealliance.org", "github.com"}},
			body:      fixture(t, "multi.json"),
			wantText:  "1." + strings.TrimPrefix(strings.Join(strings.Split(multiText, "\n")[12:], "\n"), "4."),
			wantUsage: core.Usage{InputTokens: 10817, OutputTokens: 412, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1},
		},
		{
			name:      "a search with no results is a normal answer",
			body:      fixture(t, "empty.json"),
			wantText:  `No results found for "zzqx nonexistent phrase 8841".`,
			wantUsage: core.Usage{InputTokens: 2210, OutputTokens: 35, ServerToolUse: core.ServerToolUse{WebSearchRequests: 1}, Requests: 1},
		},
		{
			name: "one search failed beside one that ran",
			body: fixture(t, "partial-error.json"),
			wantText: "1. wazero docs\nhttps://wazero.io/docs/\npublished 2025-03-03\n" +
				"wazero.NewCompilationCacheWithDir caches compiled modules in a directory.\n\n" +
				"One of DeepSeek's web searches failed: max_uses_exceeded (the model used up the searches allowed per call; messagesMaxUses is 5); the results above come from the searches that ran.",
			wantUsage: core.Usage{InputTokens: 5100, OutputTokens: 140, ServerToolUse: core.ServerToolUse{WebSearchRequests: 1}, Requests: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := "wasi"
			if strings.Contains(tt.body, "zzqx") {
				q = "zzqx nonexistent phrase 8841"
			}
			s, _ := messagesSearch(t, messagesConfig(t, tt.opts), q, okReply(tt.body))
			require.Nil(t, s.Err)
			r := s.Result.Search
			require.Equal(t, tt.wantText, r.Text())
			require.Equal(t, &tt.wantUsage, r.Usage)
			for _, h := range r.Hits {
				require.Equal(t, "", h.Marker(), "no quality marker on this backend")
				require.Equal(t, h.Text, h.ProviderContent(), "provider content is the cited passages")
				require.NotContains(t, h.URL, "prose-only")
				require.NotContains(t, h.URL, "not-a-result")
			}
		})
	}
}

func TestMessagesHitFields(t *testing.T) {
	s, _ := messagesSearch(t, messagesConfig(t, core.Options{}), "wasi", okReply(fixture(t, "multi.json")))
	require.Nil(t, s.Err)
	hits := s.Result.Search.Hits
	require.Equal(t, []string{
		"https://bytecodealliance.org/articles/WASI-0.2",
		"https://github.com/WebAssembly/WASI/blob/main/preview2/README.md",
		"https://component-model.bytecodealliance.org/",
		"https://go.dev/blog/wasi",
	}, hitURLs(hits))
	require.Equal(t, "January 25, 2024", hits[0].Date)
	ms, ok := hits[0].PublishedMs()
	require.True(t, ok)
	require.Equal(t, int64(1706140800000), ms)
	require.Equal(t, "", hits[1].Date)
	require.Equal(t, "3 days ago", hits[2].Date)
	_, ok = hits[2].PublishedMs()
	require.False(t, ok, "a relative page_age has no date")
	require.Equal(t, "", hits[1].Text, "a result nobody cited has no summary")
	require.Nil(t, hits[0].Rerank)
	require.Nil(t, hits[0].Authority)
	require.Equal(t, "", s.Result.Search.Summary)
}

func TestMessagesStrictGrounding(t *testing.T) {
	s, _ := messagesSearch(t, messagesConfig(t, core.Options{}), "wasi", okReply(fixture(t, "text-only.json")))
	require.Nil(t, s.Result)
	require.Equal(t, &core.Error{Code: core.CodeNotGrounded, Message: "DeepSeek Messages search failed: DeepSeek did not run a web search for this query"}, s.Err)
	require.True(t, errors.Is(s.Err, core.ErrNotGrounded))

	// A response that is not a message at all, and one without content.
	for _, body := range []string{`{"type":"message","content":[],"stop_reason":"end_turn"}`, `{}`} {
		s, _ = messagesSearch(t, messagesConfig(t, core.Options{}), "wasi", okReply(body))
		require.Equal(t, core.CodeNotGrounded, s.Err.Code)
	}
}

func TestMessagesSearchErrors(t *testing.T) {
	tests := []struct{ code, want string }{
		{"too_many_requests", "too_many_requests (DeepSeek's search is rate-limited; try again shortly)"},
		{"invalid_tool_input", "invalid_tool_input (DeepSeek rejected the search query the model wrote)"},
		{"invalid_input", "invalid_input (DeepSeek rejected the search query the model wrote)"},
		{"max_uses_exceeded", "max_uses_exceeded (the model used up the searches allowed per call; messagesMaxUses is 5)"},
		{"query_too_long", "query_too_long (the search query is too long; shorten it)"},
		{"unavailable", "unavailable (DeepSeek's search is unavailable; try again later)"},
		{"brand_new_code", `"brand_new_code"`},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			body := fmt.Sprintf(`{"type":"message","role":"assistant","content":[
			  {"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"wasi"}},
			  {"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"web_search_tool_result_error","error_code":%q}},
			  {"type":"text","text":"The search failed."}],
			  "stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":12,"server_tool_use":{"web_search_requests":0}}}`, tt.code)
			s, _ := messagesSearch(t, messagesConfig(t, core.Options{}), "wasi", okReply(body))
			require.Nil(t, s.Result)
			require.Equal(t, &core.Error{Code: core.CodeSearchError, Message: "DeepSeek Messages search failed: DeepSeek's web search returned an error: " + tt.want}, s.Err)
			require.True(t, errors.Is(s.Err, core.ErrSearchError))
		})
	}
	// Two failed searches name both codes, once each.
	body := `{"content":[
	  {"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}},
	  {"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}},
	  {"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error"}}]}`
	s, _ := messagesSearch(t, messagesConfig(t, core.Options{}), "wasi", okReply(body))
	require.Equal(t, `DeepSeek Messages search failed: DeepSeek's web search returned an error: unavailable (DeepSeek's search is unavailable; try again later); "unknown"`, s.Err.Message)
}

func TestMessagesPauseTurn(t *testing.T) {
	cfg := messagesConfig(t, core.Options{})
	s, reqs := messagesSearch(t, cfg, "opencode websearch", okReply(fixture(t, "pause-1.json")), okReply(fixture(t, "pause-2.json")))
	require.Nil(t, s.Err)
	require.Len(t, reqs, 2)
	r := s.Result.Search
	require.Equal(t, "1. Plugins | opencode\nhttps://opencode.ai/docs/plugins/\npublished 2026-05-02\n"+
		"A plugin can add a websearch provider with ctx.websearch.transform.\n\n"+
		"2. anomalyco/opencode\nhttps://github.com/anomalyco/opencode", r.Text())
	require.Equal(t, &core.Usage{InputTokens: 7200, OutputTokens: 150, ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 2}, r.Usage)

	// The continuation: same URL and headers, attempt 1, and the paused
	// content handed back as the assistant's turn.
	cont := reqs[1]
	require.Equal(t, reqs[0].URL, cont.URL)
	require.Equal(t, reqs[0].Header, cont.Header)
	require.Equal(t, 1, cont.Attempt)
	require.Equal(t, int64(0), cont.DelayMs)
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(cont.Body, &body))
	require.Equal(t, "deepseek-v4-flash", body.Model)
	require.Len(t, body.Messages, 2)
	require.Equal(t, "user", body.Messages[0].Role)
	require.JSONEq(t, `"Perform a web search for the query: opencode websearch"`, string(body.Messages[0].Content))
	require.Equal(t, "assistant", body.Messages[1].Role)
	var paused struct {
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(fixture(t, "pause-1.json")), &paused))
	require.JSONEq(t, string(paused.Content), string(body.Messages[1].Content))
	require.Len(t, body.Tools, 1)
}

func TestMessagesPauseBounded(t *testing.T) {
	// A turn that keeps pausing is continued MaxPauseContinuations times,
	// then reported with what it found.
	replies := make([]core.Reply, core.MaxPauseContinuations+1)
	for i := range replies {
		replies[i] = okReply(fixture(t, "pause-1.json"))
	}
	s, reqs := messagesSearch(t, messagesConfig(t, core.Options{}), "opencode", replies...)
	require.Len(t, reqs, 4)
	require.Nil(t, s.Err)
	require.Equal(t, "1. Plugins | opencode\nhttps://opencode.ai/docs/plugins/\npublished 2026-05-02\n\n"+
		"DeepSeek paused its turn 4 times and it was not continued further; the results above are those found so far.", s.Result.Search.Text())
	require.Equal(t, 4, s.Result.Search.Usage.Requests)

	// Paused without any search result: not grounded, and says so.
	pausedEmpty := okReply(`{"type":"message","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"q"}}],"stop_reason":"pause_turn"}`)
	s, _ = messagesSearch(t, messagesConfig(t, core.Options{}), "opencode", pausedEmpty, pausedEmpty, pausedEmpty, pausedEmpty)
	require.Equal(t, &core.Error{Code: core.CodeNotGrounded, Message: "DeepSeek Messages search failed: DeepSeek did not run a web search for this query (its turn paused 4 times without a search result)"}, s.Err)

	// max_tokens is reported too.
	cut := strings.Replace(fixture(t, "pause-2.json"), `"end_turn"`, `"max_tokens"`, 1)
	s, _ = messagesSearch(t, messagesConfig(t, core.Options{}), "opencode", okReply(cut))
	require.True(t, strings.HasSuffix(s.Result.Search.Text(), "\n\nDeepSeek stopped at messagesMaxTokens (4096) before finishing its turn; some results may be missing."))
}

// Retries, limits, cancellation and masking go through the same code as the
// Search API; these check that the Messages path reaches it.
func TestMessagesTransport(t *testing.T) {
	cfg := messagesConfig(t, core.Options{})
	ok := okReply(fixture(t, "empty.json"))

	s, reqs := messagesSearch(t, cfg, "q", statusReply(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), statusReply(429, "", core.HeaderField{"retry-after", "3"}), ok)
	require.Nil(t, s.Err)
	require.Equal(t, []int{1, 2, 3}, []int{reqs[0].Attempt, reqs[1].Attempt, reqs[2].Attempt})
	require.Equal(t, int64(3000), reqs[2].DelayMs)

	s, _ = messagesSearch(t, cfg, "q", statusReply(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+testKey+`"}}`))
	require.Equal(t, &core.Error{Code: core.CodeAPI, Status: 401, Message: "DeepSeek Messages search failed: HTTP 401: invalid x-api-key [redacted] (check the API key in DEEPSEEK_API_KEY)"}, s.Err)

	s, _ = messagesSearch(t, cfg, "q", statusReply(503, "down"), statusReply(503, "down"), statusReply(503, "still down"))
	require.Equal(t, "DeepSeek Messages search failed: HTTP 503: still down (gave up after 3 attempts)", s.Err.Message)

	s, _ = messagesSearch(t, cfg, "q", core.Reply{Kind: core.ReplyTooLarge})
	require.Equal(t, "DeepSeek Messages search failed: the response is larger than 5 MiB (5242880 bytes) and was not read", s.Err.Message)
	s, _ = messagesSearch(t, cfg, "q", core.Reply{Kind: core.ReplyResponse, Status: 200, Body: make([]byte, core.MaxResponseBytes+1)})
	require.Equal(t, core.CodeTooLarge, s.Err.Code)

	s, _ = messagesSearch(t, cfg, "q", core.Reply{Kind: core.ReplyTimeout})
	require.Equal(t, "DeepSeek Messages search failed: timed out after 60000 ms", s.Err.Message)

	s, _ = messagesSearch(t, cfg, "q", statusReply(302, ""))
	require.Equal(t, core.CodeRedirect, s.Err.Code)

	s, _ = messagesSearch(t, cfg, "q", okReply(`<html>bad gateway</html>`))
	require.Equal(t, "DeepSeek Messages search failed: DeepSeek returned a response that is not JSON (first bytes: <html>bad gateway</html>)", s.Err.Message)
	s, _ = messagesSearch(t, cfg, "q", okReply(`{"content":[{"type":"text"`))
	require.Equal(t, "DeepSeek Messages search failed: DeepSeek returned JSON that breaks off after 26 bytes (the response was cut short; try again) (first bytes: {\"content\":[{\"type\":\"text\")", s.Err.Message)
	s, _ = messagesSearch(t, cfg, "q", okReply(`{"content":{"type":"text"}}`))
	require.Equal(t, "DeepSeek Messages search failed: DeepSeek returned a Messages response whose \"content\" is not a list (first bytes: {\"content\":{\"type\":\"text\"}})", s.Err.Message)
	s, _ = messagesSearch(t, cfg, "q", okReply(`{"type":"error","error":{"type":"api_error","message":"boom for `+testKey+`"}}`))
	require.Equal(t, &core.Error{Code: core.CodeAPI, Message: "DeepSeek Messages search failed: DeepSeek answered with an error: boom for [redacted]"}, s.Err)

	// Cancelling a pending continuation.
	e := core.NewEngine(testEnv())
	st := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey})
	st = e.Resume(st.Handle, okReply(fixture(t, "pause-1.json")))
	require.False(t, st.Done)
	require.Equal(t, &core.Error{Code: core.CodeCancelled, Message: "DeepSeek Messages search cancelled"}, e.Resume(st.Handle, core.Reply{Kind: core.ReplyCancelled}).Err)
	require.Zero(t, e.InFlight())

	// No key, a query holding the key: no request.
	st = core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg})
	require.Equal(t, core.CodeMissingKey, st.Err.Code)
	st = core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "why " + testKey, Config: cfg, APIKey: testKey})
	require.Equal(t, &core.Error{Code: core.CodeInvalidInput, Message: "DeepSeek Messages search: the query contains the API key; it was not sent"}, st.Err)
	st = core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: strings.Repeat("x", 129), Config: cfg, APIKey: testKey})
	require.Equal(t, core.CodeInvalidInput, st.Err.Code)
}

// The key goes in exactly two headers of requests to the configured
// endpoint, never in a URL or body, and is masked wherever a response
// echoes it.
func TestMessagesKeyOnlyInHeaders(t *testing.T) {
	cfg := messagesConfig(t, core.Options{MessagesOptions: core.MessagesOptions{MessagesBaseURL: "https://gw.example.com/anthropic/v1"}})
	echo := strings.ReplaceAll(fixture(t, "pause-1.json"), "Plugins | opencode", "Plugins "+testKey)
	final := strings.ReplaceAll(fixture(t, "pause-2.json"), "ctx.websearch.transform", testKey)
	final = strings.ReplaceAll(final, "https://github.com/anomalyco/opencode", "https://github.com/"+testKey)
	s, reqs := messagesSearch(t, cfg, "q", okReply(echo), okReply(final))
	require.Nil(t, s.Err)
	for _, r := range reqs {
		require.True(t, strings.HasPrefix(r.URL, "https://gw.example.com/anthropic/v1/messages"))
		require.NotContains(t, r.URL, testKey)
		n := 0
		for _, h := range r.Header {
			switch h.Name {
			case "x-api-key":
				require.Equal(t, testKey, h.Value)
				n++
			case "Authorization":
				require.Equal(t, "Bearer "+testKey, h.Value)
				n++
			default:
				require.NotContains(t, h.Value, testKey)
			}
		}
		require.Equal(t, 2, n)
	}
	// The continuation hands DeepSeek its own content back, masked.
	for _, r := range reqs {
		require.NotContains(t, string(r.Body), testKey)
	}
	require.Contains(t, string(reqs[1].Body), "Plugins [redacted]")
	text := s.Result.Search.Text()
	require.NotContains(t, text, testKey)
	require.Contains(t, text, "[redacted]")
	b, err := json.Marshal(s.Result.Search)
	require.NoError(t, err)
	require.NotContains(t, string(b), testKey)
}
