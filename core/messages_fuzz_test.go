package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzMessagesResponse runs any 2xx body through the Messages backend's
// mapping: it ends in a result or a typed error, never panics, never shows
// the key, keeps at most maxResults hits with absolute http(s) URLs, and
// continues a pause_turn only with a valid request.
func FuzzMessagesResponse(f *testing.F) {
	matches, _ := filepath.Glob(filepath.Join("testdata", "messages", "*.json"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	f.Add([]byte(`{"content":[{"type":"web_search_tool_result","content":[{"url":"https://`+testKey+`.example/"}]}]}`), true)
	f.Add([]byte(`{"stop_reason":"pause_turn","content":[{"type":"web_search_tool_result","content":[]}]}`), false)
	cfg := mustConfig(f, Options{MaxResults: 3, MaxSummaryChars: 50, MessagesOptions: MessagesOptions{SearchBackend: BackendMessages}})
	withSummary := mustConfig(f, Options{MaxResults: 3, MessagesOptions: MessagesOptions{SearchBackend: BackendMessages, MessagesSummary: true}})
	f.Fuzz(func(t *testing.T, body []byte, summary bool) {
		c := cfg
		if summary {
			c = withSummary
		}
		e := NewEngine(testEnv())
		s := e.Start(Operation{Kind: KindSearch, Query: "q", Config: c, APIKey: testKey})
		for i := 0; !s.Done; i++ {
			require.Less(t, i, MaxPauseContinuations+1)
			require.NotContains(t, string(s.Request.Body), testKey)
			s = e.Resume(s.Handle, okReply(string(body)))
		}
		require.Zero(t, e.InFlight())
		if s.Err != nil {
			require.Nil(t, s.Result)
			require.NotContains(t, s.Err.Message, testKey)
			require.Contains(t, []Code{CodeMalformed, CodeNotGrounded, CodeSearchError, CodeAPI}, s.Err.Code)
			return
		}
		r := s.Result.Search
		require.LessOrEqual(t, len(r.Hits), 3)
		require.NotNil(t, r.Usage)
		text := r.Text()
		require.NotContains(t, text, testKey)
		for _, h := range r.Hits {
			require.True(t, strings.HasPrefix(h.URL, "http://") || strings.HasPrefix(h.URL, "https://") ||
				strings.HasPrefix(strings.ToLower(h.URL), "http"), h.URL)
			require.LessOrEqual(t, runeCount(h.Text), c.MaxSummaryChars)
			require.Equal(t, "", h.Marker())
		}
	})
}
