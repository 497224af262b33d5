package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Search API results whose URLs point inside the network are withheld, and
// the model is told how many and why.
func TestSearchWithholdsInsideURLs(t *testing.T) {
	items := []item{{URL: "https://go.dev/doc/", Title: "Go", Summary: "Public."}}
	for _, u := range insideURLs {
		items = append(items, item{URL: u, Title: "Inside", Summary: "cited secret from " + u})
	}
	items = append(items, item{URL: "https://8.8.8.8/dns", Title: "Public address"})
	s := search(t, mustConfig(t, core.Options{MaxResults: 3}), "q", okReply(resultsBody(t, items...)))
	require.Nil(t, s.Err)
	r := s.Result.Search
	require.Equal(t, []string{"https://go.dev/doc/", "https://8.8.8.8/dns"}, hitURLs(r.Hits))
	require.Equal(t, "1. Go\nhttps://go.dev/doc/\nPublic.\n\n2. Public address\nhttps://8.8.8.8/dns\n\n"+
		"(14 results withheld: their URLs point at private or local addresses or carry a user name or password.)", r.Text())
	for _, bad := range []string{"user:pass@", "169.254", "secret", "token@"} {
		require.NotContains(t, r.Text(), bad)
	}

	one := search(t, mustConfig(t, core.Options{}), "q", okReply(resultsBody(t,
		item{URL: "http://169.254.169.254/"}, item{URL: "https://go.dev/", Title: "Go"})))
	require.Equal(t, "1. Go\nhttps://go.dev/\n\n(1 result withheld: its URL points at a private or local address or carries a user name or password.)",
		one.Result.Search.Text())

	none := search(t, mustConfig(t, core.Options{}), "q", okReply(resultsBody(t, item{URL: "http://[::1]/"})))
	require.Equal(t, "No results found for \"q\".\n\n(1 result withheld: its URL points at a private or local address or carries a user name or password.)",
		none.Result.Search.Text())
}

// Messages results pointing inside the network are withheld with the
// passages cited from them.
func TestMessagesWithholdsInsideURLs(t *testing.T) {
	type cite struct {
		Type      string `json:"type"`
		URL       string `json:"url"`
		Title     string `json:"title"`
		CitedText string `json:"cited_text"`
	}
	results := []map[string]any{{"type": "web_search_result", "url": "https://go.dev/doc/", "title": "Go", "encrypted_content": "x"}}
	var cites []cite
	cites = append(cites, cite{"web_search_result_location", "https://go.dev/doc/", "Go", "Go is public."})
	for _, u := range insideURLs {
		results = append(results, map[string]any{"type": "web_search_result", "url": u, "title": "Inside", "encrypted_content": "x"})
		cites = append(cites, cite{"web_search_result_location", u, "Inside", "internal passage " + u})
	}
	body, err := json.Marshal(map[string]any{
		"type": "message", "role": "assistant", "stop_reason": "end_turn",
		"content": []any{
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "q"}},
			map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
			map[string]any{"type": "text", "text": "See.", "citations": cites},
		},
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})
	require.NoError(t, err)
	s, _ := messagesSearch(t, messagesConfig(t, core.Options{}), "q", okReply(string(body)))
	require.Nil(t, s.Err)
	r := s.Result.Search
	require.Equal(t, "1. Go\nhttps://go.dev/doc/\nGo is public.\n\n"+
		"(14 results withheld: their URLs point at private or local addresses or carry a user name or password.)", r.Text())
	require.False(t, strings.Contains(r.Text(), "internal passage"))

	// DeepSeek's summary leaves out the prose that cites them.
	body, err = json.Marshal(map[string]any{
		"type": "message", "role": "assistant", "stop_reason": "end_turn",
		"content": []any{
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "q"}},
			map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
			map[string]any{"type": "text", "text": "Go is public.", "citations": cites[:1]},
			map[string]any{"type": "text", "text": " The metadata service says the role is admin.", "citations": cites[1:2]},
			map[string]any{"type": "text", "text": " Done."},
		},
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})
	require.NoError(t, err)
	s, _ = messagesSearch(t, messagesConfig(t, core.Options{MessagesOptions: core.MessagesOptions{MessagesSummary: true}}), "q", okReply(string(body)))
	require.Nil(t, s.Err)
	require.Equal(t, "Go is public. Done.", s.Result.Search.Summary)
}
