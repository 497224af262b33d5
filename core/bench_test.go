package core_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// BenchmarkSearch50 processes a 50-result response through the engine:
// Start (query, request) and Resume (decode, filter, format).
func BenchmarkSearch50(b *testing.B) {
	items := make([]map[string]any, 50)
	for i := range items {
		items[i] = map[string]any{
			"url":          fmt.Sprintf("https://site%d.example.com/path/to/page-%d?q=go#frag", i%40, i),
			"title":        fmt.Sprintf("Result number %d about Go generics", i),
			"snippet":      strings.Repeat("snippet text ", 20),
			"summary":      strings.Repeat("A summary sentence with  some   white space.\n", 40),
			"content":      strings.Repeat("full page content that must be ignored ", 200),
			"rerank_score": 1 + float64(i%20)/10,
			"authority":    i%6 - 1,
			"date":         "2024-05-01T10:20:30Z",
			"site_name":    fmt.Sprintf("Site %d", i),
			"site_icon":    "https://example.com/icon.png",
		}
	}
	body, err := json.Marshal(map[string]any{"results": items})
	if err != nil {
		b.Fatal(err)
	}
	cfg := mustConfig(b, core.Options{MaxResults: 50, BlockedDomains: []string{"site3.example.com"}, MinAuthority: 1})
	e := core.NewEngine(testEnv())
	reply := okReply(string(body))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	// Every query is new, so none is answered from the cache.
	for i := 0; b.Loop(); i++ {
		s := e.Start(core.Operation{Kind: core.KindSearch, Query: "go generics " + strconv.Itoa(i), Config: cfg, APIKey: testKey})
		s = e.Resume(s.Handle, reply)
		if s.Err != nil || len(s.Result.Search.Hits) == 0 {
			b.Fatalf("unexpected %+v", s)
		}
	}
}

// BenchmarkFormatFetch5MiB formats a 5 MiB page with the default limit.
func BenchmarkFormatFetch5MiB(b *testing.B) {
	line := "Go is an open source programming language — 简单、可靠、高效. 😀\n"
	content := strings.Repeat(line, core.MaxResponseBytes/len(line))
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		r := core.FormatFetch("The Go Programming Language", content, 0)
		if !r.Truncated || r.Chars != core.DefaultFetchMaxChars {
			b.Fatalf("unexpected %d %v", r.Chars, r.Truncated)
		}
	}
}

// BenchmarkCachedPart serves a 16,000-code-point part of a cached 1 MiB
// page: the engine's work for a later part (no request).
func BenchmarkCachedPart(b *testing.B) {
	e := core.NewEngine(testEnv())
	cfg := mustConfig(b, core.Options{})
	body := okReply(fetchBodyJSON(b, "Big", strings.Repeat("0123456789abcdef", 1<<16)))
	s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://example.com/", Config: cfg, APIKey: testKey})
	e.Resume(s.Handle, body)
	for i := 0; b.Loop(); i++ {
		s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://example.com/", Offset: i % 60 * 16000, Config: cfg, APIKey: testKey})
		if !s.Done || s.Err != nil || !s.Result.Fetch.Cached {
			b.Fatalf("not from the cache: %+v", s)
		}
	}
}
