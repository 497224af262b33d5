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
