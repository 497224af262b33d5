package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// longDoc is a page of 40,000 code points of content (40,008 with its
// title heading), mixing ASCII, CJK and astral code points.
var longDoc = strings.Repeat("Line of text 语言 😀 for the reader.\n", 1250)

type toolOut struct {
	Content  string `json:"content"`
	Metadata struct {
		URL              string `json:"url"`
		Chars            int    `json:"chars"`
		ContentTruncated bool   `json:"contentTruncated"`
		Offset           int    `json:"offset"`
		NextOffset       *int   `json:"nextOffset"`
		TotalChars       int    `json:"totalChars"`
		Cached           bool   `json:"cached"`
	} `json:"metadata"`
}

// Paging through the module: a long page read in three
// deepseek_fetch calls costs one DeepSeek request.
func TestPagingThroughTheTool(t *testing.T) {
	e := newEnv(t, reply(200, fetchJSON(t, "Guide", longDoc)))
	const page = "https://docs.example.com/guide"
	call := func(args string) abi.Step {
		steps := e.run(e.start(abi.KindTool, abi.ToolInput{Tool: "deepseek_fetch", Args: json.RawMessage(args)}, nil))
		return steps[len(steps)-1].Step
	}
	total := len([]rune(longDoc)) - 1 + len("# Guide\n\n") // the trailing newline is trimmed
	require.Equal(t, 42508, total)

	var parts []toolOut
	offset := 0
	for i := 0; i < 3; i++ {
		args := fmt.Sprintf(`{"url":%q,"offset":%d}`, page, offset)
		if i == 0 {
			args = fmt.Sprintf(`{"url":%q}`, page)
		}
		if i == 2 {
			args = fmt.Sprintf(`{"url":%q,"offset":"%d"}`, page, offset) // a quoted number is read too
		}
		r := result[toolOut](t, call(args))
		parts = append(parts, r)
		require.Equal(t, offset, r.Metadata.Offset)
		require.Equal(t, total, r.Metadata.TotalChars)
		require.Equal(t, i > 0, r.Metadata.Cached, "part %d", i)
		require.Equal(t, len([]rune(r.Content)), r.Metadata.Chars)
		require.LessOrEqual(t, r.Metadata.Chars, 16000)
		if r.Metadata.NextOffset != nil {
			offset = *r.Metadata.NextOffset
		}
	}
	require.Len(t, e.srv.requests(), 1, "one DeepSeek request for three parts")

	require.True(t, strings.HasPrefix(parts[0].Content, "# Guide\n\nLine of text"))
	require.True(t, strings.HasSuffix(parts[0].Content, "\n[content truncated: showing 0–15,893 of 42,508 characters; call deepseek_fetch with offset 15893 for more]"), parts[0].Content[len(parts[0].Content)-200:])
	require.False(t, strings.HasPrefix(parts[1].Content, "# Guide"))
	require.True(t, strings.HasSuffix(parts[1].Content, "\n[content truncated: showing 15,893–31,781 of 42,508 characters; call deepseek_fetch with offset 31781 for more]"), parts[1].Content[len(parts[1].Content)-200:])
	require.NotContains(t, parts[2].Content, "[content truncated")
	require.True(t, strings.HasSuffix(parts[2].Content, "for the reader."))
	require.Nil(t, parts[2].Metadata.NextOffset, "no nextOffset at the end")
	require.False(t, parts[2].Metadata.ContentTruncated)

	// Reading on from the end, or past it: a clear error, still no request.
	failure(t, call(fmt.Sprintf(`{"url":%q,"offset":42508}`, page)), "invalid_input",
		"DeepSeek Fetch: offset 42508 is the end of the page: it has 42,508 characters and nothing follows")
	failure(t, call(fmt.Sprintf(`{"url":%q,"offset":50000}`, page)), "invalid_input",
		"DeepSeek Fetch: offset 50000 is past the end of the page: it has 42,508 characters (the last offset is 42507)")
	require.Len(t, e.srv.requests(), 1)

	for _, tt := range []struct{ args, msg string }{
		{`{"url":"https://a.example/","offset":-1}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got -1`},
		{`{"url":"https://a.example/","offset":1.5}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got 1.5`},
		{`{"url":"https://a.example/","offset":"next"}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got "next"`},
		{`{"url":"https://a.example/","offset":[1]}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got [1]`},
		// Decimal only: a quoted hex float was read as 16.
		{`{"url":"https://a.example/","offset":"0x1p4"}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got "0x1p4"`},
		{`{"url":"https://a.example/","offset":"0x10"}`, `deepseek_fetch: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got "0x10"`},
	} {
		failure(t, call(tt.args), "invalid_input", tt.msg)
	}
	require.Len(t, e.srv.requests(), 1, "a bad offset sends nothing")
}

func TestPagingThroughFetch(t *testing.T) {
	e := newEnv(t, reply(200, fetchJSON(t, "", strings.Repeat("𝔸", 500))))
	opts := e.opts("fetchMaxChars", 200)
	steps := e.run(e.start(abi.KindFetch, abi.FetchInput{URL: "https://a.example/", Offset: 150}, opts))
	r := result[core.FetchResult](t, steps[len(steps)-1].Step)
	require.Equal(t, core.FetchResult{URL: "https://a.example/",
		Text:  strings.Repeat("𝔸", 99) + "\n[content truncated: showing 150–249 of 500 characters; call deepseek_fetch with offset 249 for more]",
		Chars: 200, Truncated: true, Offset: 150, NextOffset: 249, TotalChars: 500}, r)
	steps = e.run(e.start(abi.KindFetch, abi.FetchInput{URL: "https://A.EXAMPLE/#x", Offset: 249}, opts))
	require.Len(t, steps, 1, "answered at start, from the cache")
	r = result[core.FetchResult](t, steps[0].Step)
	require.Equal(t, core.FetchResult{URL: "https://A.EXAMPLE/#x",
		Text:  strings.Repeat("𝔸", 99) + "\n[content truncated: showing 249–348 of 500 characters; call deepseek_fetch with offset 348 for more]",
		Chars: 200, Truncated: true, Offset: 249, NextOffset: 348, TotalChars: 500, Cached: true}, r)
	require.Len(t, e.srv.requests(), 1)
}

func TestPagingSearchCache(t *testing.T) {
	e := newEnv(t, reply(200, searchBody))
	first := result[searchJSON](t, e.search("golang", nil))
	require.False(t, first.Cached)
	again := result[searchJSON](t, e.search("  golang ", nil))
	require.True(t, again.Cached)
	again.Cached = false
	require.Equal(t, first, again)
	// The 2.x websearch provider shares the cache: same final query, same options.
	steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "golang"}, nil))
	require.Len(t, steps, 1)
	require.Len(t, e.srv.requests(), 1)
	// Other options that change the answer ask DeepSeek again.
	result[searchJSON](t, e.search("golang", e.opts("maxResults", 3)))
	require.Len(t, e.srv.requests(), 2)
}

func TestPagingCacheOptions(t *testing.T) {
	e := newEnv(t, reply(200, fetchJSON(t, "T", "body")))
	for i := 0; i < 2; i++ {
		e.fetch("https://a.example/", e.opts("cacheTTL", 0))
		e.fetch("https://b.example/", e.opts("cacheMaxMB", 0))
	}
	require.Len(t, e.srv.requests(), 4, "0 turns the cache off")
	failure(t, e.fetch("https://a.example/", e.opts("cacheMaxMB", 65)), "invalid_input",
		`deepseek-web-retrieval: option "cacheMaxMB": want a whole number from 0 to 64, got 65`)
	failure(t, e.fetch("https://a.example/", e.opts("cacheTTL", "15m")), "invalid_input",
		`deepseek-web-retrieval: option "cacheTTL": want a whole number, got "15m"`)
}

// fillCache fetches pages of 1 MiB of content until the module's 64 MiB
// cache is full, and returns the linear memory size.
func fillCache(tb testing.TB, m *Module, pages int) uint32 {
	ctx := context.Background()
	body := []byte(`{"title":"Big","content":"` + strings.Repeat("0123456789abcdef", 1<<16) + `"}`)
	for i := 0; i < pages; i++ {
		r, err := m.Start(ctx, abi.Start{V: 1, Kind: abi.KindFetch, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1"}`), APIKey: testKey,
			Input: json.RawMessage(fmt.Sprintf(`{"url":"https://example.com/%d"}`, i))})
		require.NoError(tb, err)
		require.Equal(tb, abi.StepHTTP, r.Step.Step)
		r, err = m.Resume(ctx, r.Handle, abi.Reply{Kind: "response", Status: 200}, body)
		require.NoError(tb, err)
		require.Nil(tb, r.Error)
	}
	return m.MemorySize()
}

// BenchmarkPagingMemory reports linear memory with the page cache at its
// 64 MiB bound (70 pages of 1 MiB fetched; about 63 stay).
func BenchmarkPagingMemory(b *testing.B) {
	for b.Loop() {
		m, err := Instantiate(context.Background(), rt, compiled)
		require.NoError(b, err)
		initial := m.MemorySize()
		full := fillCache(b, m, 70)
		more := fillCache(b, m, 140)
		b.ReportMetric(float64(initial), "mem-initial-bytes")
		b.ReportMetric(float64(full), "mem-full-cache-bytes")
		b.ReportMetric(float64(more), "mem-after-140-more-bytes")
		m.Close(context.Background())
	}
}

// BenchmarkPagingCachedPart serves a 16,000-character part of a cached
// 1 MiB page through the tool kind, as the plugin does.
func BenchmarkPagingCachedPart(b *testing.B) {
	ctx := context.Background()
	m, err := Instantiate(ctx, rt, compiled)
	require.NoError(b, err)
	defer m.Close(ctx)
	fillCache(b, m, 1)
	for i := 0; b.Loop(); i++ {
		in := json.RawMessage(fmt.Sprintf(`{"tool":"deepseek_fetch","args":{"url":"https://example.com/0","offset":%d}}`, i%60*16000))
		r, err := m.Start(ctx, abi.Start{V: 1, Kind: abi.KindTool, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1"}`), APIKey: testKey, Input: in})
		if err != nil || r.Error != nil || r.Step.Step != abi.StepDone {
			b.Fatalf("not served from the cache: %v %+v", err, r.Step)
		}
	}
}
