package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestParseArgs(t *testing.T) {
	cfg, _, err := core.NewConfig(core.Options{})
	require.NoError(t, err)
	tests := []struct {
		name, tool, args string
		want             core.Operation
		err              string
	}{
		{"search", SearchTool, `{"query":"go"}`, core.Operation{Kind: core.KindSearch, Query: "go"}, ""},
		{"search with question", SearchTool, `{"query":"go","question":"why go?"}`, core.Operation{Kind: core.KindSearch, Query: "go", OriQuestion: "why go?"}, ""},
		{"null question", SearchTool, `{"query":"go","question":null}`, core.Operation{Kind: core.KindSearch, Query: "go"}, ""},
		{"unknown fields ignored", SearchTool, `{"query":"go","count":3}`, core.Operation{Kind: core.KindSearch, Query: "go"}, ""},
		{"fetch", FetchTool, `{"url":"https://go.dev/","format":"markdown"}`, core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Format: "markdown"}, ""},
		{"fetch ignores question", FetchTool, `{"url":"https://go.dev/","question":1}`, core.Operation{Kind: core.KindFetch, URL: "https://go.dev/"}, ""},
		{"no arguments", FetchTool, ``, core.Operation{}, `deepseek_fetch: the input needs "url" (a string)`},
		{"null arguments", SearchTool, `null`, core.Operation{}, `deepseek_search: the input needs "query" (a string)`},
		{"array", SearchTool, `["go"]`, core.Operation{}, `deepseek_search: the input must be a JSON object`},
		{"question a number", SearchTool, `{"query":"go","question":7}`, core.Operation{}, `deepseek_search: "question" must be a string`},
		{"format a number", FetchTool, `{"url":"https://go.dev/","format":1}`, core.Operation{}, `deepseek_fetch: "format" must be a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op, err := parseArgs(tc.tool, json.RawMessage(tc.args), cfg)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.want.Config = cfg
			require.Equal(t, tc.want, op)
		})
	}
}

// FuzzParseArgs feeds arbitrary arguments to both tools: decoding never panics, a failure is
// one of the validation sentences, and a success carries exactly the strings of the input.
func FuzzParseArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query":"go"}`, `{"query":"go","question":"q"}`, `{"url":"https://go.dev/","format":"markdown"}`,
		``, `null`, `[]`, `{"query":1}`, `{"query":"\u0000","question":{"a":1}}`, `{"url":null}`, `{`, `"s"`,
		`{"query":"a","query":"b"}`, `{"QUERY":"go"}`, " \t{\"url\":\"x\"} ",
	} {
		f.Add(SearchTool, seed)
		f.Add(FetchTool, seed)
	}
	cfg, _, err := core.NewConfig(core.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		if tool != SearchTool && tool != FetchTool {
			tool = SearchTool
		}
		op, err := parseArgs(tool, json.RawMessage(args), cfg)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, tool+": ") {
				t.Fatalf("message %q does not name the tool", msg)
			}
			if len(msg) > 80 {
				t.Fatalf("message %q echoes the input", msg)
			}
			return
		}
		var fields map[string]any
		if err := json.Unmarshal([]byte(args), &fields); err != nil {
			t.Fatalf("accepted %q, which is not a JSON object", args)
		}
		if op.Config != cfg {
			t.Fatal("the operation lost its config")
		}
		switch tool {
		case SearchTool:
			if op.Kind != core.KindSearch || op.Query != fields["query"] {
				t.Fatalf("search %q decoded as %+v", args, op)
			}
			if q, ok := fields["question"].(string); ok && op.OriQuestion != q || !ok && op.OriQuestion != "" {
				t.Fatalf("question of %q decoded as %q", args, op.OriQuestion)
			}
		case FetchTool:
			if op.Kind != core.KindFetch || op.URL != fields["url"] {
				t.Fatalf("fetch %q decoded as %+v", args, op)
			}
			if f, _ := fields["format"].(string); op.Format != f {
				t.Fatalf("format of %q decoded as %q", args, op.Format)
			}
		}
	})
}
