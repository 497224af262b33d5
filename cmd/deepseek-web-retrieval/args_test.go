package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// The docs' shell examples put flags after the argument; they must work as written.
func TestCLIReadmeExamples(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)

	r := runBin(t, baseEnv(t), "search", "wasi preview 2 status", "--max-results", "5", "--base-url", m.URL)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, searchText, r.stdout)
	require.Equal(t, map[string]any{"query": "wasi preview 2 status", "count": float64(5), "need_content": false}, m.Requests()[0].Body)

	r = runBin(t, baseEnv(t), "fetch", "https://go.dev/doc/go1.26", "--json", "--base-url", m.URL)
	require.Equal(t, 0, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "https://go.dev/doc/go1.26", got["url"])
	require.Equal(t, map[string]any{"url": "https://go.dev/doc/go1.26"}, m.Requests()[1].Body)
}

func TestCLIFlagsAnywhere(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	tests := []struct {
		name  string
		args  []string
		query string
		count float64
	}{
		{"flags first", []string{"--max-results", "3", "go idioms"}, "go idioms", 3},
		{"flags last", []string{"go idioms", "--max-results", "3"}, "go idioms", 3},
		{"flags around", []string{"--max-results=4", "go idioms", "--language", "en"}, "go idioms lang:en", 4},
		{"double dash ends flags", []string{"--max-results", "2", "--", "-site:pinterest.com cats"}, "-site:pinterest.com cats", 2},
		{"double dash after the query", []string{"cats", "--"}, "cats", 10},
		{"double dash as a flag value", []string{"--question", "--", "cats"}, "cats", 10},
		{"a lone dash is an argument", []string{"-"}, "-", 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(m.Requests())
			r := runBin(t, baseEnv(t), append([]string{"search", "--base-url", m.URL}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			seen := m.Requests()
			require.Len(t, seen, before+1)
			require.Equal(t, tc.query, seen[before].Body["query"])
			require.Equal(t, tc.count, seen[before].Body["count"])
		})
	}
}

func TestCLIUnquotedQuery(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"search", "wasi", "preview", "2", "status", "--max-results", "5"},
			"deepseek-web-retrieval search: want one QUERY, got 4 arguments (\"wasi\" \"preview\" \"2\" \"status\"); quote a query of several words: deepseek-web-retrieval search \"wasi preview 2 status\"\n"},
		{[]string{"fetch", "https://go.dev/", "https://go.dev/doc/"},
			"deepseek-web-retrieval fetch: want one URL, got 2 arguments (\"https://go.dev/\" \"https://go.dev/doc/\")\n"},
		{[]string{"search", "--", "a", "b"},
			"deepseek-web-retrieval search: want one QUERY, got 2 arguments (\"a\" \"b\")"},
		{[]string{"search", "cats", "--nope"}, "deepseek-web-retrieval search: flag provided but not defined: --nope\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runBin(t, baseEnv(t), tc.args...)
			require.Equal(t, exitUsage, r.code)
			require.Empty(t, r.stdout)
			require.True(t, strings.HasPrefix(r.stderr, tc.stderr), "stderr:\n%s", r.stderr)
		})
	}
}
