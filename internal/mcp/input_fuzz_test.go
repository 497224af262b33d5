package mcp

import (
	"encoding/json"
	"slices"
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
		{"query and queries", SearchTool, `{"query":"go","queries":["rust"]}`, core.Operation{}, `deepseek_search: give "query" or "queries", not both`},
		{"five queries", SearchTool, `{"queries":["a","b","c","d","e"]}`, core.Operation{}, `deepseek_search: "queries" must be a list of 1 to 4 strings`},
		{"empty queries", SearchTool, `{"queries":[]}`, core.Operation{}, `deepseek_search: "queries" must be a list of 1 to 4 strings`},
		{"a blank query", SearchTool, `{"queries":["go"," "]}`, core.Operation{}, `deepseek_search: "queries" must be a list of 1 to 4 strings`},
		{"queries a string", SearchTool, `{"queries":"go"}`, core.Operation{}, `deepseek_search: "queries" must be a list of 1 to 4 strings`},
		{"urls with an offset", FetchTool, `{"urls":["https://a.example/"],"offset":5}`, core.Operation{}, `deepseek_fetch: "offset" works with one "url", not with "urls"`},
		{"six urls", FetchTool, `{"urls":["1","2","3","4","5","6"]}`, core.Operation{}, `deepseek_fetch: "urls" must be a list of 1 to 5 strings`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := parseArgs(tc.tool, json.RawMessage(tc.args), cfg)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.want.Config = cfg
			require.Equal(t, []core.Operation{tc.want}, ops)
		})
	}

	// Several at once: one operation each, in order, a repeat dropped; the
	// question goes with every query; each page gets its share of the cap.
	ops, err := parseArgs(SearchTool, json.RawMessage(`{"queries":["go generics"," go errors ","go generics"],"question":"how?"}`), cfg)
	require.NoError(t, err)
	require.Equal(t, []core.Operation{
		{Kind: core.KindSearch, Query: "go generics", OriQuestion: "how?", Config: cfg},
		{Kind: core.KindSearch, Query: "go errors", OriQuestion: "how?", Config: cfg},
	}, ops)
	ops, err = parseArgs(FetchTool, json.RawMessage(`{"urls":["https://a.example/","https://b.example/","https://c.example/","https://d.example/","https://e.example/"]}`), cfg)
	require.NoError(t, err)
	require.Len(t, ops, 5)
	for _, op := range ops {
		require.Equal(t, 12000, op.Config.FetchMaxChars, "60000 code points shared by five pages")
	}
	ops, err = parseArgs(FetchTool, json.RawMessage(`{"urls":["https://a.example/","https://b.example/"]}`), cfg)
	require.NoError(t, err)
	require.Same(t, cfg, ops[1].Config, "two pages fit fetchMaxChars each")
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
		ops, err := parseArgs(tool, json.RawMessage(args), cfg)
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
		many := map[string]string{SearchTool: "queries", FetchTool: "urls"}[tool]
		list, isList := fields[many].([]any)
		if !isList && len(ops) != 1 || isList && (len(ops) < 1 || len(ops) > len(list)) {
			t.Fatalf("%q decoded as %d operations", args, len(ops))
		}
		for _, op := range ops {
			if tool == SearchTool && op.Config != cfg {
				t.Fatal("the operation lost its config")
			}
			want := func(got string, one string) {
				if !isList && got != fields[one] {
					t.Fatalf("%q decoded as %+v", args, op)
				}
				if isList && (got == "" || got != strings.TrimSpace(got) || !slices.ContainsFunc(list, func(v any) bool { s, _ := v.(string); return strings.TrimSpace(s) == got })) {
					t.Fatalf("%q decoded as %+v", args, op)
				}
			}
			switch tool {
			case SearchTool:
				if op.Kind != core.KindSearch {
					t.Fatalf("search %q decoded as %+v", args, op)
				}
				want(op.Query, "query")
				if q, ok := fields["question"].(string); ok && op.OriQuestion != q || !ok && op.OriQuestion != "" {
					t.Fatalf("question of %q decoded as %q", args, op.OriQuestion)
				}
			case FetchTool:
				if op.Kind != core.KindFetch {
					t.Fatalf("fetch %q decoded as %+v", args, op)
				}
				want(op.URL, "url")
				if f, _ := fields["format"].(string); op.Format != f {
					t.Fatalf("format of %q decoded as %q", args, op.Format)
				}
			}
		}
	})
}
