package opencode

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkWebsearchResultJSON writes a 10-result websearch result (the
// shape of the module's search step) with encoding/json, as the module did,
// and with AppendJSON.
func BenchmarkWebsearchResultJSON(b *testing.B) {
	r := WebsearchResult{Results: make([]ProviderResult, 10)}
	for i := range r.Results {
		ms := int64(1705276800000)
		r.Results[i] = ProviderResult{URL: "https://example.com/article/" + strconv.Itoa(i), Title: "Result number " + strconv.Itoa(i) + " about effective Go",
			Content: strings.Repeat("Effective Go gives tips for writing clear, idiomatic Go code & explains the conventions of the language. ", 3), Time: Time{Published: &ms}}
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(map[string]any{"results": r.Results}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.AppendJSON(nil)
		}
	})
	b.Run("AppendJSON-reused", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = r.AppendJSON(buf[:0])
		}
	})
}
