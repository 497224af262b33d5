package opencode

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
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
	for _, host := range []string{HostV2, HostV1} {
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
						for _, tool := range tools {
							switch {
							case tool.Name == FetchTool && host == HostV2:
								require.Equal(t, string(refFetchInput()), string(tool.Input))
							case tool.Name == FetchTool:
								require.Equal(t, string(refFetchArgs()), string(tool.Args))
							case host == HostV2:
								require.Equal(t, string(refSearchInput(cfg)), string(tool.Input))
							default:
								require.Equal(t, string(refSearchArgs(cfg)), string(tool.Args))
							}
							if tool.Name == FetchTool {
								require.Equal(t, refFetchDescription(cfg, BuiltinFetch), tool.Description)
							} else {
								require.Equal(t, refSearchDescription(cfg, BuiltinSearch), tool.Description)
							}
						}
					})
				}
			}
		}
	}
	require.Equal(t, string(refFetchInput()), string(FetchInput()))
}

func FuzzPlanJSON(f *testing.F) {
	f.Add("opencode2", "DEEPSEEK_API_KEY", "deepseek", "DeepSeek", "unknown option \"x\"", "search", "<forced> & \u2028 \xff", true)
	f.Add("", "", "", "", "", "", "", false)
	cfg := config(f, `{}`)
	f.Fuzz(func(t *testing.T, host, keyEnv, id, name, warning, key, message string, full bool) {
		_, err := NewPlan(host, cfg, nil)
		if host != HostV2 && host != HostV1 {
			require.EqualError(t, err, refUnknownHost(host).Error())
		}
		tool := Tool{Name: name, Description: message, Input: FetchInput(), Options: map[string]any{"codemode": false, key: warning, id: full}}
		p := Plan{Host: host, KeyEnv: keyEnv}
		if full {
			p.Websearch = &Provider{ID: id, Name: name, Default: len(key)%2 == 0}
			p.Tools = []Tool{tool, {Name: key, Description: warning, Args: []byte(`{"query":` + QueryProperty + `}`)}}
			p.NoWebsearchAPI = &Fallback{Tools: []Tool{tool}, Warning: message}
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

func FuzzToolResultJSON(f *testing.F) {
	f.Add("# page <&>\n\u2028", "deepseek_fetch example.com", "https://e.x/?a&b", "Title", 16000, 32000, int64(7), 0)
	f.Add("", "", "", "", 0, 0, int64(0), 3)
	f.Fuzz(func(t *testing.T, content, title, url, pageTitle string, chars, next int, tokens int64, shape int) {
		r := ToolResult{Content: content, Title: title}
		switch shape % 4 {
		case 1, -1:
			r.Metadata = FetchMetadata{URL: url, Title: pageTitle, Chars: chars, ContentTruncated: next > 0, Offset: chars - next, NextOffset: next, TotalChars: chars + next, Cached: tokens%2 == 0}
		case 2, -2:
			r.Metadata = SearchMetadata{Query: url, Results: chars, Cached: next%2 == 0}
		case 3, -3:
			r.Metadata = SearchMetadata{Query: pageTitle, Results: next, Usage: &core.Usage{InputTokens: tokens, OutputTokens: int64(chars), Requests: next}}
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.AppendJSON(nil)))
	})
}

func FuzzToolCall(f *testing.F) {
	for _, args := range []string{
		`{"url":"https://e.x/"}`, ` {"url":"https://e.x/","format":"markdown","offset":32000} `, `{"url":"u","offset":"16000"}`,
		`{"url":"u","offset":" 1e3 "}`, `{"url":"u","offset":1.5}`, `{"url":"u","offset":-1}`, `{"url":"u","offset":null}`,
		`{"url":"u","offset":"abc"}`, `{"url":"u","offset":[1]}`, `{"url":"u","offset":"` + strconv.Itoa(1<<31) + `"}`,
		`{"url":1}`, `{"url":null}`, `{}`, `[]`, `null`, ``, `{"query":"q","query":"r"}`, `{"query":"a\u00e9\ud800"}`,
		`{"Query":"q"}`, "{\"query\":\"\xff\"}", `{"query":"q"} x`, `{"query":"q",}`, `{"url":"u","format":7}`, `{"url":"u","offset":"\u0031"}`,
		`{"url":"u","offset":"0x1p4"}`, `{"url":"u","offset":"0x1_0p0"}`, `{"url":"u","offset":"010"}`,
	} {
		f.Add(uint8(0), []byte(args))
		f.Add(uint8(1), []byte(args))
	}
	f.Add(uint8(2), []byte(`{}`))
	cfg := &core.Config{}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := []string{FetchTool, SearchTool, "deepseek_other"}[int(which)%3]
		want, wantErr := refToolCall(tool, args, cfg)
		got, err := ToolCall(tool, args, cfg)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%q", args)
			return
		}
		require.NoError(t, err, "%q", args)
		require.Equal(t, want, got, "%q", args)
	})
}

// FuzzAppendWebsearchJSON holds the module's direct writer of a search's
// provider results to encoding/json's bytes for the results
// ProviderResults maps, hit by hit: with and without a marker, a text, a
// date, and site names and texts that need escaping.
func FuzzAppendWebsearchJSON(f *testing.F) {
	f.Add("https://go.dev/<x>", "Go & you", "text\u2029\x00\xff\"\\", "Site <&>\n", 2.15, 3.0, int64(1705276800000), uint8(0xff))
	f.Add("", "", "", "", 0.0, -1.0, int64(0), uint8(0))
	f.Add("u", "t", "", "", 1e21, -1.0, int64(-5), uint8(0x0e))
	f.Fuzz(func(t *testing.T, url, title, text, site string, rerank, authority float64, ms int64, mask uint8) {
		h := core.Hit{URL: url, Title: title, Text: text, Published: ms, HasPublished: mask&1 != 0}
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
		want, err := json.Marshal(WebsearchResult{Results: ProviderResults(r)})
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendWebsearchJSON(nil, r)))
	})
}
