package anthropic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecode(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "messages", "multi.json"))
	require.NoError(t, err)
	r, err := Decode(body)
	require.NoError(t, err)
	require.Equal(t, "message", r.Type)
	require.Equal(t, "end_turn", r.StopReason)
	require.Equal(t, Usage{InputTokens: 10817, OutputTokens: 412, WebSearchRequests: 2}, r.Usage)
	require.Len(t, r.Blocks, 9)
	require.Equal(t, "WASI preview 2 status", r.Blocks[1].Query)
	require.True(t, r.Blocks[2].Searched)
	require.Equal(t, Result{URL: "https://bytecodealliance.org/articles/WASI-0.2", Title: "WASI 0.2 Launched", PageAge: "January 25, 2024"}, r.Blocks[2].Results[0])
	require.Equal(t, "", r.Blocks[2].Results[1].PageAge, "null page_age")
	require.Len(t, r.Blocks[4].Results, 4)
	require.Len(t, r.Blocks[7].Citations, 2, "the char_location citation is left out")
	require.True(t, json.Valid(r.Blocks[7].Raw))
}

func TestDecodeLenient(t *testing.T) {
	tests := []struct {
		name, body string
		wantErr    string
		check      func(t *testing.T, r *Response)
	}{
		{"not JSON", `<html>`, "not a JSON object", nil},
		{"an array", `[]`, "not a JSON object", nil},
		{"content an object", `{"content":{}}`, `"content" is not a list`, nil},
		{"empty object", `{}`, "", func(t *testing.T, r *Response) { require.Empty(t, r.Blocks) }},
		{"null content and usage", `{"content":null,"usage":null,"stop_reason":null}`, "", func(t *testing.T, r *Response) {
			require.Empty(t, r.Blocks)
			require.Equal(t, Usage{}, r.Usage)
		}},
		{"ill-typed fields", `{"content":[1,"x",null,{"type":7},{"type":"text","text":5,"citations":{}},
			{"type":"web_search_tool_result","content":"oops"},
			{"type":"web_search_tool_result","content":[1,{"type":"web_search_result","url":9,"title":null,"page_age":{}}]}],
			"usage":{"input_tokens":"12","output_tokens":-3,"server_tool_use":{"web_search_requests":2.5}}}`, "", func(t *testing.T, r *Response) {
			require.Len(t, r.Blocks, 4)
			require.Equal(t, "", r.Blocks[1].Text)
			require.Equal(t, "unknown", r.Blocks[2].ErrorCode)
			require.Equal(t, []Result{{}}, r.Blocks[3].Results)
			require.Equal(t, Usage{}, r.Usage)
		}},
		{"error object with a 2xx", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", func(t *testing.T, r *Response) {
			require.Equal(t, "error", r.Type)
			require.Equal(t, "Overloaded", r.ErrorMessage)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.Nil(t, r)
				return
			}
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
}
