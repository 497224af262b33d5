package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

// messagesFixture is a recorded-shape Messages response from core's testdata.
func messagesFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "core", "testdata", "messages", name))
	require.NoError(t, err)
	return string(b)
}

// messagesOpts are plugin options selecting the Messages backend at the
// mock, with extra options merged in.
func (e *env) messagesOpts(kv ...any) json.RawMessage {
	return e.opts(append([]any{"searchBackend", "messages", "messagesBaseURL", e.srv.URL + "/anthropic"}, kv...)...)
}

// maskedRequest renders a request as the mock received it, with the key
// masked, for a golden file.
func maskedRequest(t testing.TB, r received) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(r.Method + " " + r.Path + "\n")
	names := make([]string, 0, len(r.Header))
	for n := range r.Header {
		if n != "Accept-Encoding" && n != "Content-Length" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(n + ": " + strings.ReplaceAll(r.Header.Get(n), testKey, "sk-…") + "\n")
	}
	b.WriteString("\n" + indent(t, r.Body))
	return b.String()
}

func TestMessagesSearchThroughModule(t *testing.T) {
	e := newEnv(t, reply(200, messagesFixture(t, "multi.json")))
	s := e.search("  WASI preview 2 status ", e.messagesOpts())
	res := result[searchJSON](t, s)

	require.Equal(t, "WASI preview 2 status", res.Query)
	require.Len(t, res.Results, 4)
	require.Equal(t, int64(10817), res.Usage.InputTokens)
	require.Equal(t, int64(2), res.Usage.ServerToolUse.WebSearchRequests)
	for _, h := range res.Results {
		require.Empty(t, h.Marker)
		require.NotContains(t, h.URL, "prose-only")
	}

	reqs := e.srv.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "POST", r.Method)
	require.Equal(t, "/anthropic/v1/messages", r.Path)
	require.Equal(t, testKey, r.Header.Get("x-api-key"))
	require.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	require.Equal(t, "2023-06-01", r.Header.Get("anthropic-version"))

	golden(t, "messages", "A search on the Messages backend through the module: the request the mock received (key masked), the done step's result, and its text (messages_test.go).",
		[][2]string{{"request", maskedRequest(t, r)}, {"result.json", indent(t, s.Result)}, {"text", res.Text}})
}

func TestMessagesProviderAndTool(t *testing.T) {
	e := newEnv(t, reply(200, messagesFixture(t, "multi.json")))

	// OpenCode 2.x: content is the cited passages, time.published from page_age.
	steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "wasi"}, e.messagesOpts("maxResults", 3)))
	got := result[struct {
		Results []opencode.ProviderResult `json:"results"`
	}](t, steps[len(steps)-1].Step)
	require.Len(t, got.Results, 3)
	first := got.Results[0]
	require.Equal(t, "https://bytecodealliance.org/articles/WASI-0.2", first.URL)
	require.Equal(t, "The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.\nWASI 0.2 is built on the Component Model.", first.Content)
	require.NotNil(t, first.Time.Published)
	require.Equal(t, int64(1706140800000), *first.Time.Published)
	require.Equal(t, "", got.Results[1].Content, "an uncited result has no content")
	require.Nil(t, got.Results[2].Time.Published, "a relative page_age has no date")

	// OpenCode 1.x: deepseek_search's text, and the usage in its metadata.
	steps = e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_search", Args: json.RawMessage(`{"query":"wasi"}`)}, e.messagesOpts("maxResults", 1)))
	tr := result[struct {
		Content  string `json:"content"`
		Metadata struct {
			Query   string         `json:"query"`
			Results int            `json:"results"`
			Usage   map[string]any `json:"usage"`
		} `json:"metadata"`
	}](t, steps[len(steps)-1].Step)
	require.Equal(t, "1. WASI 0.2 Launched\nhttps://bytecodealliance.org/articles/WASI-0.2\npublished 2024-01-25\n"+
		"The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.\nWASI 0.2 is built on the Component Model.\n\n"+
		"(3 more results not shown: maxResults is 1.)", tr.Content)
	require.Equal(t, 1, tr.Metadata.Results)
	require.Equal(t, map[string]any{"input_tokens": float64(10817), "output_tokens": float64(412),
		"server_tool_use": map[string]any{"web_search_requests": float64(2)}, "requests": float64(1)}, tr.Metadata.Usage)

	// The 1.x tool describes this backend.
	p, _ := e.plan("opencode1", e.messagesOpts())
	st := toolNamed(p, "deepseek_search")
	require.NotNil(t, st)
	require.Contains(t, st.Description, "DeepSeek's native web search (one DeepSeek model turn that runs up to 5 searches). Returns up to 8 results")
	require.NotContains(t, st.Description, "rerank")
}

func TestMessagesPauseAndRetryThroughModule(t *testing.T) {
	e := newEnv(t, sequence(
		reply(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Retry-After", "0"),
		reply(200, messagesFixture(t, "pause-1.json")),
		reply(200, messagesFixture(t, "pause-2.json")),
	))
	s := e.search("opencode websearch", e.messagesOpts())
	res := result[searchJSON](t, s)
	require.Equal(t, 2, res.Usage.Requests)
	require.Equal(t, []string{"https://opencode.ai/docs/plugins/", "https://github.com/anomalyco/opencode"},
		[]string{res.Results[0].URL, res.Results[1].URL})
	reqs := e.srv.requests()
	require.Len(t, reqs, 3)
	require.Equal(t, string(reqs[0].Body), string(reqs[1].Body), "a retry repeats the request")
	var cont struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(reqs[2].Body, &cont))
	require.Len(t, cont.Messages, 2, "the paused turn is continued with the assistant's content")
	require.Equal(t, "assistant", cont.Messages[1].Role)
}

func TestMessagesFailuresThroughModule(t *testing.T) {
	tests := []struct {
		name string
		h    handler
		code string
		msg  string
	}{
		{"strict grounding", reply(200, messagesFixture(t, "text-only.json")), "not_grounded",
			"DeepSeek Messages search failed: DeepSeek did not run a web search for this query"},
		{"search tool error", reply(200, `{"content":[{"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error","error_code":"query_too_long"}}]}`), "search_error",
			"DeepSeek Messages search failed: DeepSeek's web search returned an error: query_too_long (the search query is too long; shorten it)"},
		{"key echoed in an error", reply(401, `{"type":"error","error":{"message":"bad key `+testKey+`"}}`), "api",
			"DeepSeek Messages search failed: HTTP 401: bad key [redacted] (check the API key in DEEPSEEK_API_KEY)"},
		{"too large", func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.WriteHeader(200)
			w.Write(make([]byte, 5<<20+10))
		}, "too_large", "DeepSeek Messages search failed: the response is larger than 5 MiB (5242880 bytes) and was not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.h)
			failure(t, e.search("wasi", e.messagesOpts()), tt.code, tt.msg)
		})
	}
	e := newEnv(t, reply(200, "{}"))
	failure(t, e.search("wasi", e.messagesOpts("includeDomains", []string{"go.dev"}, "blockedDomains", []string{"x.com"})), "invalid_input",
		`deepseek-web-retrieval: option "blockedDomains": cannot be combined with includeDomains when searchBackend is "messages": DeepSeek's web_search tool takes allowed_domains or blocked_domains, not both`)
	require.Empty(t, e.srv.requests())
}
