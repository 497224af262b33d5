package opencode

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// BenchmarkWebsearchResultJSON writes the provider results of a 10-result
// search (the shape of the module's search step) with encoding/json, as
// the module once did, and with AppendWebsearchJSON, as it does now.
func BenchmarkWebsearchResultJSON(b *testing.B) {
	rerank, authority := 2.4, 3.0
	r := &core.SearchResult{Hits: make([]core.Hit, 10)}
	for i := range r.Hits {
		r.Hits[i] = core.Hit{URL: "https://example.com/article/" + strconv.Itoa(i), Title: "Result number " + strconv.Itoa(i) + " about effective Go",
			Text:   strings.Repeat("Effective Go gives tips for writing clear, idiomatic Go code & explains the conventions of the language. ", 3),
			Rerank: &rerank, Authority: &authority, Site: "example.com", Published: 1705276800000}
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(WebsearchResult{Results: ProviderResults(r)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendWebsearchJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			AppendWebsearchJSON(nil, r)
		}
	})
	b.Run("AppendWebsearchJSON-reused", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = AppendWebsearchJSON(buf[:0], r)
		}
	})
}
