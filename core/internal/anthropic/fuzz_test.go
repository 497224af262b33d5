package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// FuzzDecodeReference checks Decode against the encoding/json decoder it
// replaced (reference_test.go): on any body encoding/json accepts, the same
// response or the same error; any body it rejects, Decode rejects as not
// JSON. (The reference trimmed Unicode white space around the body before
// encoding/json saw it, so it alone accepted e.g. a no-break space before
// the object: such bodies are not JSON, and Decode refuses them.)
func FuzzDecodeReference(f *testing.F) {
	for _, s := range referenceSeeds {
		f.Add([]byte(s))
	}
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "messages", "*.json"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkReference(t, body)
	})
}

// checkReference holds Decode equal to referenceDecode on body.
func checkReference(t *testing.T, body []byte) {
	got, err := Decode(body)
	want, wantErr := referenceDecode(body)
	if !json.Valid(body) {
		require.ErrorIs(t, err, ErrNotJSON, "%q", body)
		require.Nil(t, got)
		if !json.Valid(bytes.TrimSpace(body)) {
			require.Error(t, wantErr, "%q", body)
		}
		return
	}
	if wantErr != nil {
		require.Error(t, err, "%q", body)
		require.Nil(t, got)
		if errors.Is(wantErr, ErrNotJSON) {
			require.ErrorIs(t, err, ErrNotJSON, "%q", body)
		} else {
			require.Equal(t, wantErr.Error(), err.Error(), "%q", body)
			var wle, le *LimitError
			require.Equal(t, errors.As(wantErr, &wle), errors.As(err, &le))
		}
		return
	}
	require.NoError(t, err, "%q", body)
	require.Equal(t, want, got, "%q", body)
}

// referenceSeeds cover each member, its repeats and case variants, escapes,
// invalid UTF-8, and each limit.
var referenceSeeds = []string{
	``, ` `, `{}`, `null`, `[]`, `"x"`, `{"content":null}`, `{"content":{}}`, `{"content":"x"}`, `{"content":[]}`,
	`{"content":[1,"x",null,true,[],{}]}`, `{"content":[{}]} x`, `{"content":[{]}`, "\u00a0{}", "{}\u00a0",
	`{"CONTENT":[{"TYPE":"text","Text":"a"}],"Type":"message","STOP_REASON":"end_turn"}`,
	`{"content":[{"type":"text","text":"a"}],"content":null}`,
	`{"content":{},"content":[]}`, `{"content":[],"content":{}}`,
	`{"type":"message","type":"error","error":{"message":"a","Message":"b"}}`,
	`{"c\u006fntent":[{"\u0074ype":"server_tool_use","input":{"qu\u0065ry":"q\u00e9\ud83d\ude00\ud800x"}}]}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\\u00e9\",\"citations\":[{\"url\":\"\xc3\"}]}]}",
	`{"content":[{"type":"text","text":"a","citations":[1,{"type":"char_location","url":"u"},{"type":"web_search_result_location","url":"v","title":"t","cited_text":"c"},{"url":"w","url":"x"}]}]}`,
	`{"content":[{"citations":[{"url":"x"}],"type":"text"}]}`,
	`{"content":[{"type":"web_search_tool_result","content":[{"type":"web_search_result","url":"u","title":"t","page_age":"p"},{"type":"other"},{},7]}]}`,
	`{"content":[{"type":"web_search_tool_result","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}]}`,
	`{"content":[{"type":"web_search_tool_result","content":{"error_code":""}},{"type":"web_search_tool_result"},{"type":"web_search_tool_result","content":null}]}`,
	`{"usage":{"input_tokens":12,"output_tokens":1e3,"server_tool_use":{"web_search_requests":3}}}`,
	`{"usage":{"input_tokens":-0,"output_tokens":1e16,"server_tool_use":{"web_search_requests":1.5}},"usage":{"INPUT_TOKENS":7}}`,
	`{"usage":{"input_tokens":1e400,"output_tokens":true,"server_tool_use":[]}}`,
	"{\"\u212aey\":1,\"\u017ftop_reason\":\"x\",\"content\":[{\"type\":\"text\",\"text\":\"\u017f\"}]}",
	`{"content":[` + strings.Repeat(`{},`, MaxBlocks) + `{}]}`,
	`{"content":[` + strings.Repeat(`{},`, MaxBlocks) + `{}],"content":[]}`,
	`{"content":[` + strings.Repeat(`0,`, MaxBlocks-1) + `0]}`,
	`{"content":[{"type":"text","citations":[` + strings.Repeat(`{},`, MaxListEntries) + `{}]}]}`,
	`{"content":[{"type":"text","citations":[` + strings.Repeat(`{},`, MaxListEntries) + `{}]},` + strings.Repeat(`{},`, MaxBlocks) + `{}]}`,
	`{"content":[{"type":"text","citations":[` + strings.Repeat(`{},`, MaxListEntries) + `{}],"citations":[]}]}`,
	`{"content":[{"type":"web_search_tool_result","content":[` + strings.Repeat(`1,`, MaxListEntries) + `1]}]}`,
	`{"content":[` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `]}`,
	`{"content":[` + strings.Repeat(`[`, 9990) + strings.Repeat(`]`, 9990) + `]}`,
}

// The seeds hold on every run of go test, not only under -fuzz.
func TestDecodeReferenceSeeds(t *testing.T) {
	for _, s := range referenceSeeds {
		checkReference(t, []byte(s))
	}
}
