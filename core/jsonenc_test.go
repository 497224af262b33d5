package core

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// refMessagesBody and refMessagesEntry are the shapes json.Marshal wrote
// Messages requests from before jsonenc.go.
type refMessagesBody struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	Messages  []refMessagesEntry `json:"messages"`
	Tools     []webSearchTool    `json:"tools"`
}

type refMessagesEntry struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

func refMarshalMessages(b messagesBody) ([]byte, error) {
	r := refMessagesBody{
		Model:     b.Model,
		MaxTokens: b.MaxTokens,
		Messages:  []refMessagesEntry{{Role: "user", Content: b.Prompt}},
		Tools:     []webSearchTool{b.Tool},
	}
	if len(b.Blocks) > 0 {
		raw := make([]json.RawMessage, len(b.Blocks))
		for i, bl := range b.Blocks {
			raw[i] = bl
		}
		r.Messages = append(r.Messages, refMessagesEntry{Role: "assistant", Content: raw})
	}
	return json.Marshal(r)
}

// trickyBodyStrings are strings that json.Marshal escapes in each of its ways.
var trickyBodyStrings = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"line\u2028para\u2029end", "bad \xff utf-8 \xe2\x80", "\xe2\x80\xa8", "surrogate \xed\xa0\x80", "问题 😀 é",
	"/slash", "'apostrophe'",
}

func requireSameBodies(t *testing.T, a, b string, n int, blocks [][]byte) {
	t.Helper()
	s := searchBody{Query: a, Count: n, OriQuestion: b, Location: a + b}
	want, err := json.Marshal(s)
	require.NoError(t, err)
	require.Equal(t, string(want), string(s.appendJSON(nil)))
	s.OriQuestion, s.Location = "", ""
	want, _ = json.Marshal(s)
	require.Equal(t, string(want), string(s.appendJSON(nil)))

	fb := fetchBody{URL: a}
	want, _ = json.Marshal(fb)
	require.Equal(t, string(want), string(fb.appendJSON(nil)))

	for _, tool := range []webSearchTool{
		{Type: "web_search_20250305", Name: b, MaxUses: -n, AllowedDomains: []string{a, b}},
		{Type: a, Name: "web_search", MaxUses: n, BlockedDomains: []string{b}},
		{Type: b, Name: a, MaxUses: n, AllowedDomains: []string{}, BlockedDomains: []string{a, "", b}},
	} {
		for _, bl := range [][][]byte{nil, blocks} {
			m := messagesBody{Model: a, MaxTokens: n, Prompt: b, Blocks: bl, Tool: tool}
			want, werr := refMarshalMessages(m)
			got, gerr := m.appendJSON(nil)
			if werr != nil {
				require.EqualError(t, gerr, werr.Error(), "blocks %q", bl)
				continue
			}
			require.NoError(t, gerr)
			require.Equal(t, string(want), string(got))
		}
	}
}

func TestRequestBodiesMatchMarshal(t *testing.T) {
	blocks := [][]byte{
		[]byte(`{"type":"text","text":"a <b> & c"}`),
		[]byte(" {\n \"type\" : \"x\" ,\t\"v\": [1, 2.5e3, true, null, {}]\r}\n"),
		[]byte("{\"t\":\"line\u2028para\u2029 \\\" \\\\ \\u003c\"}"),
		[]byte("{\"bad\":\"\xff\"}"),
		nil,
	}
	for i, a := range trickyBodyStrings {
		for _, b := range trickyBodyStrings {
			requireSameBodies(t, a, b, i*1000-3, blocks[:i%(len(blocks)+1)])
		}
	}
	t.Run("a block that is not JSON", func(t *testing.T) {
		_, err := messagesBody{Blocks: [][]byte{[]byte(`{"a":}`)}}.appendJSON(nil)
		require.EqualError(t, err, "json: error calling MarshalJSON for type json.RawMessage: invalid character '}' looking for beginning of value")
	})
	t.Run("exact text", func(t *testing.T) {
		got, err := messagesBody{
			Model: "m", MaxTokens: 4096, Prompt: "q <&>",
			Blocks: [][]byte{[]byte(`{ "type": "text" }`)},
			Tool:   webSearchTool{Type: "web_search_20250305", Name: "web_search", MaxUses: 5, BlockedDomains: []string{"b.example"}},
		}.appendJSON(nil)
		require.NoError(t, err)
		require.Equal(t, `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"q \u003c\u0026\u003e"},{"role":"assistant","content":[{"type":"text"}]}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5,"blocked_domains":["b.example"]}]}`, string(got))
	})
}

// FuzzRequestBodies holds every request body to json.Marshal of the
// struct it replaced, byte for byte, for any strings, count and content
// block (valid JSON or not).
func FuzzRequestBodies(f *testing.F) {
	for i, s := range trickyBodyStrings {
		f.Add(s, trickyBodyStrings[len(trickyBodyStrings)-1-i], i, []byte(`{"type":"text","text":"`+s+`"}`))
	}
	f.Add("q", "", 10, []byte(" [1 , {\"a\" :\"<\u2028>\"} ] "))
	f.Add("q", "", 10, []byte(`{"a":`))
	f.Fuzz(func(t *testing.T, a, b string, n int, block []byte) {
		requireSameBodies(t, a, b, n, [][]byte{block, []byte(`{}`)})
	})
}

// BenchmarkSearchBody compares the search request body's writer with the
// json.Marshal it replaced.
func BenchmarkSearchBody(b *testing.B) {
	body := searchBody{Query: "effective go site:go.dev", Count: 10, OriQuestion: "How do I write idiomatic Go?"}
	b.Run("appendJSON", func(b *testing.B) {
		for b.Loop() {
			_ = body.appendJSON(nil)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(body)
		}
	})
}

// Usage.AppendJSON writes what json.Marshal writes.
func FuzzUsageJSON(f *testing.F) {
	f.Add(int64(1200), int64(300), int64(2), 1, false)
	f.Add(int64(-1), int64(math.MaxInt64), int64(math.MinInt64), -7, true)
	f.Fuzz(func(t *testing.T, in, out, searches int64, requests int, isNil bool) {
		u := &Usage{InputTokens: in, OutputTokens: out, ServerToolUse: ServerToolUse{WebSearchRequests: searches}, Requests: requests}
		if isNil {
			u = nil
		}
		want, err := json.Marshal(u)
		require.NoError(t, err)
		require.Equal(t, string(want), string(u.AppendJSON(nil)))
	})
}
