package opencode_test

import (
	"encoding/json"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
	"github.com/stretchr/testify/require"
)

// config resolves an options object as the module does.
func config(t *testing.T, options string) (*core.Config, []string) {
	t.Helper()
	o, warnings, err := core.ParseOptions([]byte(options))
	require.NoError(t, err)
	cfg, more, err := core.NewConfig(o)
	require.NoError(t, err)
	return cfg, append(warnings, more...)
}

func toolNames(tools []opencode.Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func TestNewPlan(t *testing.T) {
	const (
		search = opencode.SearchTool
		fetch  = opencode.FetchTool
	)
	tests := []struct {
		name, host, options string
		keyEnv              string
		provider            *opencode.Provider
		tools               []string
		fallback            []string // NoWebsearchAPI's tools; nil for none
		remove              []string
		edits               int
		notExclusive        []string
		warnings            []string
	}{
		{name: "2.x defaults", host: opencode.V2, options: `{}`, keyEnv: core.DefaultAPIKeyEnv,
			provider: &opencode.Provider{ID: "deepseek", Name: "DeepSeek", Default: true}, tools: []string{fetch}, fallback: []string{search}},
		{name: "2.x optional search is not the default provider", host: opencode.V2, options: `{"search":"optional","fetch":"off"}`, keyEnv: core.DefaultAPIKeyEnv,
			provider: &opencode.Provider{ID: "deepseek", Name: "DeepSeek"}, tools: []string{}, fallback: []string{search}},
		{name: "2.x forced both", host: opencode.V2, options: `{"search":"forced","fetch":"forced"}`, keyEnv: core.DefaultAPIKeyEnv,
			provider: &opencode.Provider{ID: "deepseek", Name: "DeepSeek", Default: true}, tools: []string{search, fetch}, fallback: []string{},
			remove: []string{"websearch", "webfetch"}, notExclusive: []string{"webfetch", "websearch"}},
		{name: "2.x search off", host: opencode.V2, options: `{"search":"off","apiKeyEnv":"MY_KEY"}`, keyEnv: "MY_KEY", tools: []string{fetch}},
		{name: "2.x everything off", host: opencode.V2, options: `{"search":"off","fetch":"off"}`, keyEnv: core.DefaultAPIKeyEnv, tools: []string{}},
		{name: "1.x defaults", host: opencode.V1, options: `{}`, keyEnv: core.DefaultAPIKeyEnv, tools: []string{search, fetch}},
		{name: "1.x forced fetch", host: opencode.V1, options: `{"fetch":"forced"}`, keyEnv: core.DefaultAPIKeyEnv, tools: []string{search, fetch},
			edits: 3, notExclusive: []string{"webfetch"}},
		{name: "literal key: no variable to read", host: opencode.V1, options: `{"apiKey":"sk-0123456789abcdef0123456789abcdef","search":"off","fetch":"optional"}`,
			tools: []string{fetch}},
		{name: "warnings are passed on", host: opencode.V1, options: `{"bogus":true}`, keyEnv: core.DefaultAPIKeyEnv, tools: []string{search, fetch},
			warnings: []string{`unknown option "bogus" ignored`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, warnings := config(t, tt.options)
			if tt.warnings != nil {
				require.Equal(t, tt.warnings, warnings)
			}
			p, err := opencode.NewPlan(tt.host, cfg, warnings)
			require.NoError(t, err)
			require.Equal(t, tt.host, p.Host)
			require.Equal(t, tt.keyEnv, p.KeyEnv)
			require.Equal(t, tt.provider, p.Websearch)
			require.Equal(t, tt.tools, toolNames(p.Tools))
			if tt.fallback == nil {
				require.Nil(t, p.NoWebsearchAPI)
			} else {
				require.Equal(t, tt.fallback, toolNames(p.NoWebsearchAPI.Tools))
				require.Contains(t, p.NoWebsearchAPI.Warning, "this OpenCode has no websearch provider API")
			}
			require.Equal(t, tt.remove, p.RemoveTools)
			require.Len(t, p.ConfigEdits, tt.edits)
			var notExclusive []string
			for k, msg := range p.NotExclusive {
				notExclusive = append(notExclusive, k)
				require.Contains(t, msg, "does not let a plugin remove its built-in "+k+" tool")
			}
			require.ElementsMatch(t, tt.notExclusive, notExclusive)
			require.Equal(t, warnings, p.Warnings)

			for _, tool := range append(p.Tools, fallbackTools(p)...) {
				require.NotEmpty(t, tool.Description, tool.Name)
				if tt.host == opencode.V2 {
					require.True(t, json.Valid(tool.Input), tool.Name)
					require.Nil(t, tool.Args, "2.x takes an input schema, not 1.x args")
					require.Equal(t, map[string]any{"codemode": false}, tool.Options)
				} else {
					require.True(t, json.Valid(tool.Args), tool.Name)
					require.Nil(t, tool.Input)
				}
			}

			// The module's plan and the one encoding/json writes are the same
			// bytes, and read back into the same plan.
			b := p.AppendJSON(nil)
			std, err := json.Marshal(p)
			require.NoError(t, err)
			require.Equal(t, string(std), string(b))
			var back opencode.Plan
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, *p, back)
		})
	}
}

func fallbackTools(p *opencode.Plan) []opencode.Tool {
	if p.NoWebsearchAPI == nil {
		return nil
	}
	return p.NoWebsearchAPI.Tools
}

func TestNewPlanUnknownHost(t *testing.T) {
	cfg, _ := config(t, `{}`)
	for _, host := range []string{"", "opencode", "opencode3", "OPENCODE2"} {
		t.Run(host, func(t *testing.T) {
			p, err := opencode.NewPlan(host, cfg, nil)
			require.Nil(t, p)
			require.EqualError(t, err, `opencode: unknown host "`+host+`" (want "opencode2" or "opencode1")`)
		})
	}
}

func TestPlanAppendJSONAppends(t *testing.T) {
	cfg, _ := config(t, `{"search":"off","fetch":"off"}`)
	p, err := opencode.NewPlan(opencode.V1, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, `x{"host":"opencode1","keyEnv":"DEEPSEEK_API_KEY","tools":[]}`, string(p.AppendJSON([]byte("x"))))
}

func TestToolCallOperations(t *testing.T) {
	type op struct {
		Kind   core.Kind
		Query  string
		URL    string
		Format string
		Offset int
	}
	tests := []struct {
		name, tool, args string
		want             []op
		wantErr          string
	}{
		{"one query", opencode.SearchTool, `{"query":"go wasm"}`, []op{{Kind: core.KindSearch, Query: "go wasm"}}, ""},
		{"several queries", opencode.SearchTool, `{"queries":["a","b"]}`, []op{{Kind: core.KindSearch, Query: "a"}, {Kind: core.KindSearch, Query: "b"}}, ""},
		{"one page", opencode.FetchTool, `{"url":"https://go.dev/","offset":100}`, []op{{Kind: core.KindFetch, URL: "https://go.dev/", Offset: 100}}, ""},
		{"several pages", opencode.FetchTool, `{"urls":["https://a.example/","https://b.example/"]}`,
			[]op{{Kind: core.KindFetch, URL: "https://a.example/"}, {Kind: core.KindFetch, URL: "https://b.example/"}}, ""},
		{"search without a query", opencode.SearchTool, `{"url":"https://go.dev/"}`, nil, `deepseek_search: the input needs "query" (a string)`},
		{"fetch without a url", opencode.FetchTool, `{}`, nil, `deepseek_fetch: the input needs "url" (a string)`},
		{"input not an object", opencode.FetchTool, `["https://go.dev/"]`, nil, "deepseek_fetch: the input must be a JSON object"},
		{"built-in tool", "webfetch", `{"url":"https://go.dev/"}`, nil, `opencode: unknown tool "webfetch"`},
		{"empty name", "", `{}`, nil, `opencode: unknown tool ""`},
	}
	cfg, _ := config(t, `{}`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := opencode.ToolCall(tt.tool, []byte(tt.args), cfg)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.Empty(t, ops)
				return
			}
			require.NoError(t, err)
			var got []op
			for _, o := range ops {
				require.Same(t, cfg, o.Config)
				got = append(got, op{Kind: o.Kind, Query: o.Query, URL: o.URL, Format: o.Format, Offset: o.Offset})
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestAppendWebsearchJSON(t *testing.T) {
	rerank, authority := 2.5, 3.0
	a := core.Hit{URL: "https://a.example/x?a=1&b=2", Title: "A <b>", Text: "text a", Site: "A", Date: "2024-01-02", Published: 1704153600000}
	b := core.Hit{URL: "https://b.example/", Text: "text b"}
	c := core.Hit{URL: "https://c.example/", Title: "C", Rerank: &rerank, Authority: &authority, Site: "C"}
	tests := []struct {
		name   string
		result core.SearchResult
		want   string
	}{
		{"no hits", core.SearchResult{Query: "q"}, `{"results":[]}`},
		{"no hits: notes have nowhere to go", core.SearchResult{Notes: []string{"a search failed"}}, `{"results":[]}`},
		{"hits", core.SearchResult{Hits: []core.Hit{a, b}},
			`{"results":[{"url":"https://a.example/x?a=1\u0026b=2","title":"A \u003cb\u003e","content":"[A]\ntext a","time":{"published":1704153600000}},` +
				`{"url":"https://b.example/","content":"text b","time":{}}]}`},
		{"notes end the last result's content", core.SearchResult{Hits: []core.Hit{a, b}, Notes: []string{"note 1", "note 2"}},
			`{"results":[{"url":"https://a.example/x?a=1\u0026b=2","title":"A \u003cb\u003e","content":"[A]\ntext a","time":{"published":1704153600000}},` +
				`{"url":"https://b.example/","content":"text b\n\nnote 1\n\nnote 2","time":{}}]}`},
		{"scores in the marker", core.SearchResult{Hits: []core.Hit{c}},
			`{"results":[{"url":"https://c.example/","title":"C","content":"[rerank 2.5 · authority 3 · C]","time":{}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := opencode.AppendWebsearchJSON([]byte("="), &tt.result)
			require.Equal(t, "="+tt.want, string(got))

			// The same bytes as encoding/json writes for the results.
			var parsed struct {
				Results []opencode.ProviderResult `json:"results"`
			}
			require.NoError(t, json.Unmarshal(got[1:], &parsed))
			std, err := json.Marshal(parsed)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(std))
			require.Len(t, parsed.Results, len(tt.result.Hits))
		})
	}
}
