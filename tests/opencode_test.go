package tests

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

var tiers = []string{"off", "optional", "preferred", "forced"}

func (e *env) plan(host string, opts json.RawMessage) (*opencode.Plan, abi.Step) {
	e.t.Helper()
	steps := e.run(e.start(abi.KindPlan, abi.PlanInput{Host: host}, opts))
	require.Len(e.t, steps, 1, "a plan is done at once")
	s := steps[0].Step
	if s.Error != nil {
		return nil, s
	}
	p := result[opencode.Plan](e.t, s)
	return &p, s
}

func toolNamed(p *opencode.Plan, name string) *opencode.Tool {
	for i := range p.Tools {
		if p.Tools[i].Name == name {
			return &p.Tools[i]
		}
	}
	return nil
}

// SPEC §5 tiers, for every combination on both hosts.
func TestPlanTiers(t *testing.T) {
	e := newEnv(t, reply(500, ``))
	for _, host := range []string{"opencode2", "opencode1"} {
		for _, search := range tiers {
			for _, fetch := range tiers {
				t.Run(host+"/search="+search+"/fetch="+fetch, func(t *testing.T) {
					e.t = t
					p, _ := e.plan(host, json.RawMessage(`{"search":"`+search+`","fetch":"`+fetch+`"}`))
					require.Equal(t, host, p.Host)
					require.Equal(t, "DEEPSEEK_API_KEY", p.KeyEnv)
					checkPlan(t, p, host, search, fetch)
				})
			}
		}
	}
	require.Empty(t, e.srv.requests())
}

func checkPlan(t *testing.T, p *opencode.Plan, host, search, fetch string) {
	preferred := func(tier string) bool { return tier == "preferred" || tier == "forced" }

	// Fetch: a deepseek_fetch tool unless off; preferred says so to the
	// model; forced also removes (2.x) or disables (1.x) webfetch.
	ft := toolNamed(p, "deepseek_fetch")
	if fetch == "off" {
		require.Nil(t, ft)
	} else {
		require.NotNil(t, ft)
		require.Equal(t, preferred(fetch), strings.Contains(ft.Description, "Prefer this tool over webfetch"), ft.Description)
		if host == "opencode2" {
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			require.NoError(t, json.Unmarshal(ft.Input, &schema))
			require.Equal(t, "object", schema.Type)
			require.Equal(t, []string{"url"}, schema.Required)
			require.Contains(t, schema.Properties, "url")
			require.Contains(t, schema.Properties, "format")
			require.JSONEq(t, `{"type":"integer","minimum":0,"description":"Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on."}`, string(schema.Properties["offset"]))
			require.Empty(t, ft.Args)
		} else {
			var args map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(ft.Args, &args))
			// Every 1.x field is required, so format is left out; offset
			// stays, since reading on needs it (the model sends 0 first).
			require.Equal(t, []string{"offset", "url", "urls"}, keys(args))
			require.Empty(t, ft.Input)
		}
	}
	_, fetchNotExclusive := p.NotExclusive["webfetch"]
	require.Equal(t, fetch == "forced", fetchNotExclusive)

	// Search: 2.x gets a websearch provider (and, forced, a deepseek_search
	// tool with the built-in websearch tool removed), 1.x a deepseek_search tool.
	st := toolNamed(p, "deepseek_search")
	if host == "opencode2" {
		native := map[string]any{"codemode": false}
		if ft != nil {
			require.Equal(t, native, ft.Options, "on the model's native tool list, not behind Code Mode")
		}
		if search == "off" {
			require.Nil(t, p.Websearch)
			require.Nil(t, st)
		} else {
			require.NotNil(t, p.Websearch)
			require.Equal(t, "deepseek", p.Websearch.ID)
			require.Equal(t, "DeepSeek", p.Websearch.Name)
			require.Equal(t, preferred(search), p.Websearch.Default)
			// Without the websearch provider API, search is a tool: the
			// plan's own (forced) or the one the fallback adds.
			require.NotNil(t, p.NoWebsearchAPI, "what to register when the host has no websearch provider API")
			fb := st
			if search != "forced" {
				require.Len(t, p.NoWebsearchAPI.Tools, 1)
				fb = &p.NoWebsearchAPI.Tools[0]
			} else {
				require.Empty(t, p.NoWebsearchAPI.Tools, "forced search is a tool already")
			}
			require.NotNil(t, fb, "deepseek_search registered without the provider API")
			require.Equal(t, "deepseek_search", fb.Name)
			require.Equal(t, native, fb.Options)
			require.JSONEq(t, `{"type":"object","properties":{"query":{"type":"string","description":"What to search for, with optional operators."}},"required":["query"],"additionalProperties":false}`, string(fb.Input))
			require.Empty(t, fb.Args)
			if search == "forced" {
				require.Equal(t, fb, st)
			} else {
				require.Nil(t, st, "optional and preferred search through the provider")
			}
		}
		var want []string
		if search == "forced" {
			want = append(want, "websearch")
		}
		if fetch == "forced" {
			want = append(want, "webfetch")
		}
		require.Equal(t, want, p.RemoveTools)
		require.Empty(t, p.ConfigEdits)
	} else {
		require.Nil(t, p.Websearch, "1.x has no websearch provider API")
		if ft != nil {
			require.Empty(t, ft.Options)
		}
		if search == "off" {
			require.Nil(t, st)
		} else {
			require.NotNil(t, st)
			require.Equal(t, preferred(search), strings.Contains(st.Description, "Prefer this tool over websearch"), st.Description)
			require.Empty(t, st.Options)
			var args map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(st.Args, &args))
			require.Equal(t, []string{"queries", "query"}, keys(args))
		}
		var want []string
		if search == "forced" {
			want = append(want, "websearch")
		}
		if fetch == "forced" {
			want = append(want, "webfetch")
		}
		if want == nil {
			require.Empty(t, p.ConfigEdits)
		} else {
			require.Len(t, p.ConfigEdits, 3)
			for _, e := range p.ConfigEdits {
				require.Len(t, e.Set, len(want))
				for _, name := range want {
					require.Contains(t, e.Set, name)
				}
			}
		}
		require.Empty(t, p.RemoveTools)
	}
	_, searchNotExclusive := p.NotExclusive["websearch"]
	require.Equal(t, search == "forced", searchNotExclusive)
	for _, msg := range p.NotExclusive {
		require.True(t, strings.HasPrefix(msg, "deepseek-web-retrieval: "), msg)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for name := range m {
		k = append(k, name)
	}
	slices.Sort(k)
	return k
}

func TestPlanOptions(t *testing.T) {
	e := newEnv(t, reply(500, ``))
	t.Run("apiKey reference", func(t *testing.T) {
		for _, ref := range []string{"{env:MY_KEY}", "${MY_KEY}"} {
			p, _ := e.plan("opencode2", json.RawMessage(`{"apiKey":"`+ref+`"}`))
			require.Equal(t, "MY_KEY", p.KeyEnv)
		}
		p, _ := e.plan("opencode2", json.RawMessage(`{"apiKeyEnv":"OTHER_KEY"}`))
		require.Equal(t, "OTHER_KEY", p.KeyEnv)
	})
	t.Run("literal apiKey", func(t *testing.T) {
		p, s := e.plan("opencode1", json.RawMessage(`{"apiKey":"sk-literal-123"}`))
		require.Empty(t, p.KeyEnv, "the host reads no variable")
		require.Len(t, p.Warnings, 1)
		require.Contains(t, p.Warnings[0], "literal key")
		require.NotContains(t, string(s.Result), "sk-literal-123")
	})
	t.Run("unknown option", func(t *testing.T) {
		p, _ := e.plan("opencode2", json.RawMessage(`{"MaxResults":5,"colour":"blue"}`))
		require.Equal(t, []string{
			`unknown option "MaxResults" ignored (did you mean "maxResults"?)`,
			`unknown option "colour" ignored`,
		}, p.Warnings)
	})
	t.Run("invalid option", func(t *testing.T) {
		_, s := e.plan("opencode2", json.RawMessage(`{"search":"always"}`))
		failure(t, s, "invalid_input", `deepseek-web-retrieval: option "search": want off, optional, preferred or forced, got "always"`)
		_, s = e.plan("opencode2", json.RawMessage(`{"maxRetries":"two"}`))
		failure(t, s, "invalid_input", "")
		require.Contains(t, s.Error.Message, `option "maxRetries"`)
	})
	t.Run("unknown host", func(t *testing.T) {
		_, s := e.plan("vscode", nil)
		failure(t, s, "invalid_input", `opencode: unknown host "vscode" (want "opencode2" or "opencode1")`)
	})
	t.Run("fetchMaxChars in the description", func(t *testing.T) {
		p, _ := e.plan("opencode2", json.RawMessage(`{"fetchMaxChars":5000}`))
		require.Contains(t, toolNamed(p, "deepseek_fetch").Description, "at most 5000 characters")
	})
}

// The full default plans, as the shim receives them.
func TestPlanGolden(t *testing.T) {
	e := newEnv(t, reply(500, ``))
	_, v2 := e.plan("opencode2", nil)
	_, v1 := e.plan("opencode1", nil)
	_, forced := e.plan("opencode2", json.RawMessage(`{"search":"forced","fetch":"forced"}`))
	_, forced1 := e.plan("opencode1", json.RawMessage(`{"search":"forced","fetch":"forced"}`))
	golden(t, "plan", "Plans through the module (opencode_test.go): defaults on both hosts, and forced on both.", [][2]string{
		{"opencode2.json", indent(t, v2.Result)},
		{"opencode1.json", indent(t, v1.Result)},
		{"opencode2-forced.json", indent(t, forced.Result)},
		{"opencode1-forced.json", indent(t, forced1.Result)},
	})
}

// providerResults is what an opencode.websearch call returns.
type providerResults struct {
	Results []struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
		Time    *struct {
			Published *int64 `json:"published"`
		} `json:"time"`
	} `json:"results"`
}

// The OpenCode 2.x websearch provider call (SPEC §6).
func TestWebsearch(t *testing.T) {
	e := newEnv(t, reply(200, searchBody))
	steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "golang"}, e.opts("maxResults", 4)))
	s := steps[len(steps)-1].Step
	res := result[providerResults](t, s)
	require.Len(t, res.Results, 4)
	first := res.Results[0]
	require.Equal(t, "https://go.dev/doc/effective_go", first.URL)
	require.Equal(t, "Effective Go", first.Title)
	require.Equal(t, "[rerank 2.1 · authority 3 · Go]\nTips for writing clear, idiomatic Go code.", first.Content)
	require.NotNil(t, first.Time, "time is required by OpenCode")
	require.Equal(t, int64(1714557600000), *first.Time.Published)
	require.Equal(t, "[rerank 1.2 · authority unknown]\nOnly a snippet.", res.Results[1].Content)
	for _, r := range res.Results[1:] {
		require.NotNil(t, r.Time)
		require.Nil(t, r.Time.Published)
	}
	// The provider path never sends ori_question.
	require.JSONEq(t, `{"query":"golang","count":4,"need_content":false}`, string(e.srv.requests()[0].Body))
	golden(t, "websearch", "An opencode.websearch call through the module (opencode_test.go).", [][2]string{{"result.json", indent(t, s.Result)}})

	t.Run("error", func(t *testing.T) {
		e := newEnv(t, reply(402, `{"error":{"message":"Insufficient Balance"}}`))
		steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "golang"}, nil))
		failure(t, steps[len(steps)-1].Step, "api", "DeepSeek Search failed: HTTP 402: Insufficient Balance")
	})
	t.Run("empty", func(t *testing.T) {
		e := newEnv(t, reply(200, `{"results":null}`))
		steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "golang"}, nil))
		require.JSONEq(t, `{"results":[]}`, string(steps[len(steps)-1].Result))
	})
}

// Tool calls end to end (SPEC §6): deepseek_fetch on both hosts,
// deepseek_search on 1.x.
func TestTool(t *testing.T) {
	type toolResult struct {
		Content  string          `json:"content"`
		Title    string          `json:"title"`
		Metadata json.RawMessage `json:"metadata"`
		Output   *string         `json:"output"`
	}
	t.Run("deepseek_fetch", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "Example Domain", "Hello.")))
		steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_fetch", Args: json.RawMessage(`{"url":"https://example.com/","format":"markdown"}`)}, nil))
		s := steps[len(steps)-1].Step
		res := result[toolResult](t, s)
		require.Equal(t, "# Example Domain\n\nHello.", res.Content)
		require.Equal(t, "deepseek_fetch example.com", res.Title)
		require.Nil(t, res.Output, "never output without an output schema")
		require.JSONEq(t, `{"url":"https://example.com/","title":"Example Domain","chars":24,"contentTruncated":false,"offset":0,"totalChars":24,"cached":false}`, string(res.Metadata))
		require.JSONEq(t, `{"url":"https://example.com/"}`, string(e.srv.requests()[0].Body))
	})
	t.Run("deepseek_fetch truncated", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "T", strings.Repeat("word ", 100))))
		steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_fetch", Args: json.RawMessage(`{"url":"https://example.com/"}`)}, e.opts("fetchMaxChars", 200)))
		res := result[toolResult](t, steps[len(steps)-1].Step)
		require.True(t, strings.HasSuffix(res.Content, "\n[content truncated: showing 0–101 of 504 characters; call deepseek_fetch with offset 101 for more]"), res.Content)
		// No "truncated" key: a defined one would switch off OpenCode 2.x's own bound.
		require.JSONEq(t, `{"url":"https://example.com/","title":"T","chars":`+strconv.Itoa(len([]rune(res.Content)))+`,"contentTruncated":true,"offset":0,"nextOffset":101,"totalChars":504,"cached":false}`, string(res.Metadata))
	})
	t.Run("deepseek_search", func(t *testing.T) {
		e := newEnv(t, reply(200, searchBody))
		steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_search", Args: json.RawMessage(`{"query":"golang"}`)}, e.opts("maxResults", 2)))
		res := result[toolResult](t, steps[len(steps)-1].Step)
		require.Equal(t, strings.Join([]string{
			"1. Effective Go",
			"https://go.dev/doc/effective_go",
			"[rerank 2.1 · authority 3 · Go] · published 2024-05-01",
			"Tips for writing clear, idiomatic Go code.",
			"",
			"2. A blog",
			"https://blog.example.org/post",
			"[rerank 1.2 · authority unknown]",
			"Only a snippet.",
		}, "\n"), res.Content)
		require.JSONEq(t, `{"query":"golang","results":2,"cached":false}`, string(res.Metadata))
		require.Equal(t, "deepseek_search golang", res.Title)
	})
	t.Run("tool failure", func(t *testing.T) {
		e := newEnv(t, reply(404, ``))
		steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_fetch", Args: json.RawMessage(`{"url":"https://example.com/gone"}`)}, nil))
		failure(t, steps[len(steps)-1].Step, "api", "DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page")
	})
	for _, tt := range []struct{ name, tool, args, msg string }{
		{"missing url", "deepseek_fetch", `{}`, `deepseek_fetch: the input needs "url" (a string)`},
		{"url not a string", "deepseek_fetch", `{"url":42}`, `deepseek_fetch: "url" must be a string`},
		{"args not an object", "deepseek_search", `"golang"`, `deepseek_search: the input must be a JSON object`},
		{"unknown tool", "webfetch", `{"url":"https://example.com/"}`, `opencode: unknown tool "webfetch"`},
		{"format text", "deepseek_fetch", `{"url":"https://example.com/","format":"text"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, okSearch))
			steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: tt.tool, Args: json.RawMessage(tt.args)}, nil))
			require.Len(t, steps, 1)
			failure(t, steps[0].Step, "invalid_input", tt.msg)
			require.Empty(t, e.srv.requests())
		})
	}
}
