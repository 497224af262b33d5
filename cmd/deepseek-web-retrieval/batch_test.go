package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// Several queries or pages in one MCP call: one request each, one merged
// list (each result marked with its query), the pages in order with a
// refused one's reason in its place.
func TestMCPBatchCalls(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	s := startMCP(t, baseEnv(t), "--base-url", m.URL)
	s.initialize("2025-06-18")

	text, isErr := callTool(t, s, 1, "deepseek_search", map[string]any{"queries": []string{"go idioms", "effective go"}})
	require.False(t, isErr, text)
	require.Equal(t, 2, countPaths(m, "/v1/tools/search"))
	// Both queries found the same two pages: listed once each, by the first query.
	require.Equal(t, "1. Effective Go\nhttps://go.dev/doc/effective_go\n[rerank 2.4 · authority 4 · Go Documentation] · published 2024-01-15\n"+
		"found by \"go idioms\"\nEffective Go gives tips for writing clear, idiomatic Go code.\n\n"+
		"2. https://example.com/go-tips\nhttps://example.com/go-tips\n[authority unknown]\nfound by \"go idioms\"\nSome Go tips.", text)

	text, isErr = callTool(t, s, 2, "deepseek_fetch", map[string]any{"urls": []string{"https://go.dev/doc/effective_go", "http://127.0.0.1/admin", "https://go.dev/blog/"}})
	require.False(t, isErr, text)
	require.Equal(t, 2, countPaths(m, "/v1/tools/fetch"), "the private address is refused before any request")
	page := strings.TrimSuffix(fetchText, "\n")
	require.True(t, strings.HasPrefix(text, "=== Page 1 of 3: https://go.dev/doc/effective_go ===\n\n"+page+"\n\n=== Page 2 of 3: http://127.0.0.1/admin ===\n\n"), text)
	require.True(t, strings.HasSuffix(text, "\n\n=== Page 3 of 3: https://go.dev/blog/ ===\n\n"+page), text)

	text, isErr = callTool(t, s, 3, "deepseek_fetch", map[string]any{"urls": []string{"https://go.dev/"}, "offset": 10})
	require.True(t, isErr)
	require.Equal(t, `deepseek_fetch: "offset" works with one "url", not with "urls"`, text)
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
}
