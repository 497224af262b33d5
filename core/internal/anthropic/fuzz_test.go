package anthropic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzDecode checks that any body decodes or fails without panicking, that
// a failure yields no response, and that every kept block's raw JSON is
// valid (it is sent back to continue a paused turn).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"content":null}`, `{"content":{}}`,
		`{"content":[{"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}}]}`,
		`{"content":[{"type":"text","text":"a","citations":[{"type":"web_search_result_location","url":"https://x.org/","cited_text":"c"}]}],"stop_reason":"pause_turn"}`,
		`{"type":"error","error":{"message":"m"}}`,
		`{"usage":{"input_tokens":1e300,"output_tokens":"2","server_tool_use":{"web_search_requests":-1}}}`,
		"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "messages", "*.json"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.GreaterOrEqual(t, r.Usage.InputTokens, int64(0))
		require.GreaterOrEqual(t, r.Usage.OutputTokens, int64(0))
		require.GreaterOrEqual(t, r.Usage.WebSearchRequests, int64(0))
		for _, b := range r.Blocks {
			require.True(t, json.Valid(b.Raw), "raw block %q", b.Raw)
			require.True(t, b.Raw[0] == '{')
			if b.Type == TypeText {
				require.True(t, utf8.ValidString(b.Text))
			}
			if b.ErrorCode != "" {
				require.Empty(t, b.Results)
			}
		}
	})
}
