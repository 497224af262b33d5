package opencode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlanConfigEdits(t *testing.T) {
	denyBoth := []ConfigEdit{
		{Path: []string{"tools"}, Set: map[string]any{"websearch": false, "webfetch": false}},
		{Path: []string{"permission"}, Set: map[string]any{"websearch": "deny", "webfetch": "deny"}, Scalar: "*"},
		{Path: []string{"agent", "*", "permission"}, Set: map[string]any{"websearch": "deny", "webfetch": "deny"}, Scalar: "*", Existing: true},
	}
	denyFetch := []ConfigEdit{
		{Path: []string{"tools"}, Set: map[string]any{"webfetch": false}},
		{Path: []string{"permission"}, Set: map[string]any{"webfetch": "deny"}, Scalar: "*"},
		{Path: []string{"agent", "*", "permission"}, Set: map[string]any{"webfetch": "deny"}, Scalar: "*", Existing: true},
	}
	for _, tc := range []struct {
		host, options string
		want          []ConfigEdit
	}{
		{V1, `{"search":"forced","fetch":"forced"}`, denyBoth},
		{V1, `{"search":"preferred","fetch":"forced"}`, denyFetch},
		{V1, `{"search":"forced","fetch":"off"}`, []ConfigEdit{
			{Path: []string{"tools"}, Set: map[string]any{"websearch": false}},
			{Path: []string{"permission"}, Set: map[string]any{"websearch": "deny"}, Scalar: "*"},
			{Path: []string{"agent", "*", "permission"}, Set: map[string]any{"websearch": "deny"}, Scalar: "*", Existing: true},
		}},
		{V1, `{"search":"preferred","fetch":"optional"}`, nil},
		{V1, `{}`, nil},
		// 2.x removes built-in tools with its tool editor instead.
		{V2, `{"search":"forced","fetch":"forced"}`, nil},
	} {
		p, err := NewPlan(tc.host, config(t, tc.options), nil)
		require.NoError(t, err, tc.options)
		require.Equal(t, tc.want, p.ConfigEdits, tc.host+" "+tc.options)
		if tc.want != nil {
			require.Contains(t, string(p.AppendJSON(nil)), `"configEdits":[{"path":["tools"],"set":{`)
		}
	}
}

func TestPlanNoWebsearchAPI(t *testing.T) {
	const warning = `this OpenCode has no websearch provider API, so DeepSeek search is offered to the model as the deepseek_search tool instead; update OpenCode to have DeepSeek behind its websearch tool, or set search to "off" to not offer it`
	for _, tc := range []struct {
		host, options string
		// tools are the names of Plan.Tools, fallback those of
		// NoWebsearchAPI.Tools (nil: no fallback).
		tools, fallback []string
	}{
		{V2, `{"search":"optional","fetch":"optional"}`, []string{FetchTool}, []string{SearchTool}},
		{V2, `{"search":"preferred","fetch":"off"}`, []string{}, []string{SearchTool}},
		// Forced search is a tool already: the fallback does not add it twice.
		{V2, `{"search":"forced","fetch":"forced"}`, []string{SearchTool, FetchTool}, []string{}},
		{V2, `{"search":"off","fetch":"optional"}`, []string{FetchTool}, nil},
		{V1, `{"search":"preferred","fetch":"optional"}`, []string{SearchTool, FetchTool}, nil},
	} {
		cfg := config(t, tc.options)
		p, err := NewPlan(tc.host, cfg, nil)
		require.NoError(t, err, tc.options)
		require.Equal(t, tc.tools, names(p.Tools), tc.options)
		if tc.fallback == nil {
			require.Nil(t, p.NoWebsearchAPI, tc.options)
			continue
		}
		require.NotNil(t, p.Websearch, tc.options)
		require.Equal(t, tc.fallback, names(p.NoWebsearchAPI.Tools), tc.options)
		require.Equal(t, warning, p.NoWebsearchAPI.Warning)
		for _, tool := range p.NoWebsearchAPI.Tools {
			if tool.Name == SearchTool {
				require.Equal(t, searchTool(cfg, tc.host), tool, "the 2.x search tool, on the native tool list")
			}
		}
	}
}

func TestPlanNotExclusiveNamesRemovedTools(t *testing.T) {
	for _, tc := range []struct {
		options string
		want    []string
	}{
		{`{"search":"forced","fetch":"forced"}`, []string{BuiltinSearch, BuiltinFetch}},
		{`{"search":"forced","fetch":"preferred"}`, []string{BuiltinSearch}},
		{`{"search":"optional","fetch":"forced"}`, []string{BuiltinFetch}},
		{`{"search":"preferred","fetch":"optional"}`, nil},
	} {
		p, err := NewPlan(V2, config(t, tc.options), nil)
		require.NoError(t, err)
		require.Equal(t, tc.want, p.RemoveTools, tc.options)
		require.Len(t, p.NotExclusive, len(tc.want), tc.options)
		for _, name := range tc.want {
			require.Contains(t, p.NotExclusive[name], "built-in "+name+" tool", tc.options)
		}
	}
}

func names(tools []Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func TestConfigEditPanicsOnOtherValues(t *testing.T) {
	e := ConfigEdit{Path: []string{"tools"}, Set: map[string]any{"x": 1}}
	require.PanicsWithValue(t, "opencode: ConfigEdit.Set holds a value that is not a bool or a string", func() { e.appendJSON(nil) })
}
