package opencode

// The encoding/json and fmt implementations this package had before it
// wrote and read JSON by hand (jsonlite), kept as the reference the
// equivalence tests in encode_test.go compare with.

import (
	"encoding/json"
	"fmt"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

func refMustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func refFetchInput() json.RawMessage {
	return refMustJSON(map[string]any{
		"type": "object",
		"properties": map[string]json.RawMessage{
			"url":    json.RawMessage(tool.URLProperty),
			"format": json.RawMessage(tool.FormatProperty),
			"offset": json.RawMessage(tool.OffsetProperty),
		},
		"required":             []string{"url"},
		"additionalProperties": false,
	})
}

func refFetchArgs() json.RawMessage {
	return refMustJSON(map[string]json.RawMessage{"url": json.RawMessage(tool.URLProperty), "offset": json.RawMessage(tool.OffsetProperty), "urls": json.RawMessage(v1URLs)})
}

func refSearchInput(cfg *core.Config) json.RawMessage {
	return refMustJSON(map[string]any{
		"type":                 "object",
		"properties":           map[string]json.RawMessage{"query": json.RawMessage(tool.SearchQueryProperty(cfg))},
		"required":             []string{"query"},
		"additionalProperties": false,
	})
}

func refSearchArgs(cfg *core.Config) json.RawMessage {
	return refMustJSON(map[string]json.RawMessage{"query": json.RawMessage(tool.SearchQueryProperty(cfg)), "queries": json.RawMessage(v1Queries)})
}

func refUnknownHost(host string) error {
	return fmt.Errorf("opencode: unknown host %q (want %q or %q)", host, V2, V1)
}

// WebsearchResult is the provider's answer, for json.Marshal.
type WebsearchResult struct {
	Results []ProviderResult `json:"results"`
}

// ProviderResults is the reference AppendWebsearchJSON is held to: the
// provider results of r, built one by one. The
// search's notes (results withheld, a search that failed, a paused turn)
// end the last result's content, after a blank line each: OpenCode shows
// the model a provider's results and nothing else, and renders the last
// result's content last. With no result left there is nowhere to put them;
// OpenCode then says it found nothing.
func ProviderResults(r *core.SearchResult) []ProviderResult {
	out := make([]ProviderResult, 0, len(r.Hits))
	for _, h := range r.Hits {
		pr := ProviderResult{URL: h.URL, Title: h.Title, Content: h.ProviderContent()}
		if ms, ok := h.PublishedMs(); ok {
			pr.Time.Published = &ms
		}
		out = append(out, pr)
	}
	if notes := providerNotes(r); len(out) > 0 && notes != "" {
		last := &out[len(out)-1]
		if last.Content == "" {
			last.Content = notes
		} else {
			last.Content += "\n\n" + notes
		}
	}
	return out
}
