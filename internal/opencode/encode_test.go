package opencode

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

func config(t testing.TB, options string) *core.Config {
	o, warnings, err := core.ParseOptions([]byte(options))
	require.NoError(t, err, options)
	cfg, more, err := core.NewConfig(o)
	require.NoError(t, err, options)
	_ = append(warnings, more...)
	return cfg
}

// Every plan the module can answer is written as json.Marshal writes it,
// with the schemas and descriptions the encoding/json and fmt code wrote.
func TestPlanJSON(t *testing.T) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	extras := []string{``, `,"cacheTTL":0`, `,"maxResults":5,"fetchMaxChars":5000,"cacheTTL":7`, `,"apiKey":"sk-literal-1"`,
		`,"searchBackend":"messages","messagesMaxUses":3`, `,"searchBackend":"messages","apiKeyEnv":"OTHER_KEY"`}
	for _, host := range []string{V2, V1} {
		for _, search := range tiers {
			for _, fetch := range tiers {
				for _, extra := range extras {
					options := `{"search":"` + search + `","fetch":"` + fetch + `"` + extra + `}`
					t.Run(host+options, func(t *testing.T) {
						cfg := config(t, options)
						plan, err := NewPlan(host, cfg, []string{"unknown option \"<colour>\" & more\u2028"})
						require.NoError(t, err)
						want, err := json.Marshal(plan)
						require.NoError(t, err)
						require.Equal(t, string(want), string(plan.AppendJSON(nil)))
						tools := plan.Tools
						if plan.NoWebsearchAPI != nil {
							tools = append(tools, plan.NoWebsearchAPI.Tools...)
						}
						for _, reg := range tools {
							switch {
							case reg.Name == FetchTool && host == V2:
								require.Equal(t, string(refFetchInput()), string(reg.Input))
							case reg.Name == FetchTool:
								require.Equal(t, string(refFetchArgs()), string(reg.Args))
							case host == V2:
								require.Equal(t, string(refSearchInput(cfg)), string(reg.Input))
							default:
								require.Equal(t, string(refSearchArgs(cfg)), string(reg.Args))
							}
							if reg.Name == FetchTool {
								require.Equal(t, tool.FetchDescription(cfg, BuiltinFetch), reg.Description)
							} else {
								require.Equal(t, tool.SearchDescription(cfg, BuiltinSearch), reg.Description)
							}
						}
					})
				}
			}
		}
	}
}

func FuzzPlanJSON(f *testing.F) {
	f.Add("opencode2", "DEEPSEEK_API_KEY", "deepseek", "DeepSeek", "unknown option \"x\"", "search", "<forced> & \u2028 \xff", true)
	f.Add("", "", "", "", "", "", "", false)
	cfg := config(f, `{}`)
	f.Fuzz(func(t *testing.T, host, keyEnv, id, name, warning, key, message string, full bool) {
		_, err := NewPlan(host, cfg, nil)
		if host != V2 && host != V1 {
			require.EqualError(t, err, refUnknownHost(host).Error())
		}
		reg := Tool{Name: name, Description: message, Input: tool.FetchSchema(), Options: map[string]any{"codemode": false, key: warning, id: full}}
		p := Plan{Host: host, KeyEnv: keyEnv}
		if full {
			p.Websearch = &Provider{ID: id, Name: name, Default: len(key)%2 == 0}
			p.Tools = []Tool{reg, {Name: key, Description: warning, Args: []byte(`{"query":` + tool.QueryProperty + `}`)}}
			p.NoWebsearchAPI = &Fallback{Tools: []Tool{reg}, Warning: message}
			p.RemoveTools = []string{key, id}
			p.ConfigEdits = []ConfigEdit{{Path: []string{key, "*", id}, Set: map[string]any{key: false, id: warning}, Scalar: name, Existing: true}, {Path: []string{}, Set: map[string]any{}}}
			p.NotExclusive = map[string]string{key: message, id: name, "search": warning}
			p.Warnings = []string{warning, message}
		} else if len(key)%2 == 0 {
			p.Tools = []Tool{}
			p.Websearch = &Provider{ID: id, Name: name}
			p.NoWebsearchAPI = &Fallback{}
			p.ConfigEdits = []ConfigEdit{{}}
			p.NotExclusive = map[string]string{}
			p.Warnings = []string{}
		}
		want, err := json.Marshal(&p)
		require.NoError(t, err)
		require.Equal(t, string(want), string(p.AppendJSON(nil)))
	})
}

// FuzzAppendWebsearchJSON holds the module's direct writer of a search's
// provider results to encoding/json's bytes for the results
// ProviderResults maps, hit by hit: with and without a marker, a text, a
// date, site names and texts that need escaping, and notes after the last
// hit (with a content and without).
func FuzzAppendWebsearchJSON(f *testing.F) {
	f.Add("https://go.dev/<x>", "Go & you", "text\u2029\x00\xff\"\\", "Site <&>\n", 2.15, 3.0, int64(1705276800000), uint8(0xff), "(1 result withheld: <x>)")
	f.Add("", "", "", "", 0.0, -1.0, int64(0), uint8(0), "")
	f.Add("u", "t", "", "", 1e21, -1.0, int64(-5), uint8(0x0e), "")
	f.Add("u", "t", "", "", 0.0, 0.0, int64(0), uint8(0xe0), "note\x00")
	f.Add("u", "t", "x", "", 0.0, 0.0, int64(0), uint8(0x60), "a note")
	f.Add("0", "0", "", "0", 1e20, -67.0, int64(74), uint8(0x60), "") // an empty note: no content
	f.Fuzz(func(t *testing.T, url, title, text, site string, rerank, authority float64, ms int64, mask uint8, note string) {
		h := core.Hit{URL: url, Title: title, Text: text}
		if mask&1 != 0 {
			h.Published = ms
		}
		if mask&2 != 0 {
			h.Rerank = &rerank
		}
		if mask&4 != 0 {
			h.Authority = &authority
		}
		if mask&8 != 0 {
			h.Site = site
		}
		r := &core.SearchResult{}
		switch mask >> 4 & 3 {
		case 1:
			r.Hits = []core.Hit{}
		case 2:
			r.Hits = []core.Hit{h}
		case 3:
			r.Hits = []core.Hit{h, {URL: title, Text: site}, h}
		}
		switch mask >> 6 {
		case 1:
			r.Notes = []string{note}
		case 2, 3:
			r.Notes = []string{note, "(2 results withheld: …)"}
		}
		want, err := json.Marshal(WebsearchResult{Results: ProviderResults(r)})
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendWebsearchJSON(nil, r)))
	})
}

// ToolCall is tool.ParseBatch for our two tools and names any other tool as
// OpenCode's adapter. The 1.x forms, where every argument is given, read as
// the one the model meant.
func TestToolCall(t *testing.T) {
	cfg := config(t, `{}`)
	for _, tt := range []struct {
		name, tool, args string
		want             []string // the queries or URLs of the operations
		err              string
	}{
		{"search", SearchTool, `{"query":"go"}`, []string{"go"}, ""},
		{"fetch", FetchTool, `{"url":"https://go.dev/","offset":"7"}`, []string{"https://go.dev/"}, ""},
		{"1.x search, one query", SearchTool, `{"query":"go","queries":[]}`, []string{"go"}, ""},
		{"1.x search, queries", SearchTool, `{"query":"","queries":["go","rust"]}`, []string{"go", "rust"}, ""},
		{"1.x fetch, one url", FetchTool, `{"url":"https://go.dev/","urls":[],"offset":5}`, []string{"https://go.dev/"}, ""},
		{"1.x fetch, urls", FetchTool, `{"url":"","urls":["https://go.dev/","https://example.com/"],"offset":0}`, []string{"https://go.dev/", "https://example.com/"}, ""},
		{"both forms", SearchTool, `{"query":"go","queries":["rust"]}`, nil, `deepseek_search: give "query" or "queries", not both`},
		{"urls and an offset", FetchTool, `{"url":"","urls":["https://go.dev/"],"offset":9}`, nil, `deepseek_fetch: "offset" works with one "url", not with "urls"`},
		{"bad input", FetchTool, `{"url":1}`, nil, `deepseek_fetch: "url" must be a string`},
		{"unknown tool", "webfetch", `{"url":"https://go.dev/"}`, nil, `opencode: unknown tool "webfetch"`},
		{"unknown tool, bad input", "deepseek_other", `[]`, nil, `opencode: unknown tool "deepseek_other"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToolCall(tt.tool, []byte(tt.args), cfg)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			var subjects []string
			for _, op := range got {
				subjects = append(subjects, op.Query+op.URL)
			}
			require.Equal(t, tt.want, subjects)
			if len(got) == 1 {
				want, err := tool.Parse(tt.tool, []byte(tt.args), cfg)
				require.NoError(t, err)
				require.Equal(t, want, got[0])
			}
		})
	}
}
