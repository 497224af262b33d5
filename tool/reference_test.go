package tool

// The encoding/json and fmt implementations this package's code had before
// it wrote and read JSON by hand (jsonlite), kept as the reference the
// equivalence tests in encode_test.go compare with.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func refMustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func refFetchSchema() json.RawMessage {
	return refMustJSON(map[string]any{
		"type": "object",
		"properties": map[string]json.RawMessage{
			"url":    json.RawMessage(URLProperty),
			"format": json.RawMessage(FormatProperty),
			"offset": json.RawMessage(OffsetProperty),
		},
		"required":             []string{"url"},
		"additionalProperties": false,
	})
}

func refSearchSchema(cfg *core.Config) json.RawMessage {
	return refMustJSON(map[string]any{
		"type":                 "object",
		"properties":           map[string]json.RawMessage{"query": json.RawMessage(SearchQueryProperty(cfg))},
		"required":             []string{"query"},
		"additionalProperties": false,
	})
}

func refFetchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fetch one public web page through DeepSeek's Fetch API and return its content as Markdown, at most %d characters per call. ", cfg.FetchMaxChars)
	b.WriteString(refPagingHelp(cfg))
	b.WriteString("Use it to read a page whose URL you know, for example a search result. ")
	b.WriteString("Only absolute http:// and https:// URLs on the public internet: localhost, private and local-network addresses are refused before anything is sent. ")
	b.WriteString("JavaScript is not run and private or binary files are not supported.")
	if cfg.Fetch == core.TierPreferred || cfg.Fetch == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for reading web pages.")
	}
	return b.String()
}

func refSearchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	if cfg.Messages.Backend == core.BackendMessages {
		fmt.Fprintf(&b, "Search the web with DeepSeek's native web search (one DeepSeek model turn that runs up to %d searches). Returns up to %d results, each with its title, URL, the publication date when known, and the passages DeepSeek cited from it (a result nobody cited has no passage). ", cfg.Messages.MaxUses, cfg.MaxResults)
		b.WriteString("Write the query in plain words, at most 128 characters. ")
	} else {
		fmt.Fprintf(&b, "Search the web with DeepSeek's Search API. Returns up to %d results, each with its title, URL, a quality marker ", cfg.MaxResults)
		b.WriteString("[rerank 0–3 · authority 0–4 · site] (rerank ≥ 1.5 is high quality, authority ≥ 3 highly authoritative), the publication date when known, and a summary. ")
		b.WriteString("The query may use the operators site:example.com, -site:example.com, lang:zh,en, after:2025-01-01 and before:2026; at most 128 characters in all. ")
	}
	b.WriteString("Read a result in full with " + FetchName + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for searching the web.")
	}
	return b.String()
}

func refPagingHelp(cfg *core.Config) string {
	s := "A longer page ends with a line \"[content truncated: showing A–B of N characters; call deepseek_fetch with offset B for more]\": call again with the same url and that offset to read the next part"
	if cfg.CacheTTLMinutes > 0 {
		s += fmt.Sprintf(" (the page is kept for %d minutes after its last use, so later parts cost no new request)", cfg.CacheTTLMinutes)
	}
	return s + ". "
}

func refParse(tool string, args json.RawMessage, cfg *core.Config) (core.Operation, error) {
	var fields map[string]json.RawMessage
	if a := bytes.TrimSpace(args); len(a) == 0 || a[0] != '{' || json.Unmarshal(a, &fields) != nil {
		return core.Operation{}, fmt.Errorf("%s: the input must be a JSON object", tool)
	}
	str := func(name string, required bool) (string, error) {
		v, ok := fields[name]
		if !ok || string(v) == "null" {
			if required {
				return "", fmt.Errorf("%s: the input needs %q (a string)", tool, name)
			}
			return "", nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", fmt.Errorf("%s: %q must be a string", tool, name)
		}
		return s, nil
	}
	switch tool {
	case FetchName:
		u, err := str("url", true)
		if err != nil {
			return core.Operation{}, err
		}
		f, err := str("format", false)
		if err != nil {
			return core.Operation{}, err
		}
		off, err := refParseOffset(tool, fields["offset"])
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindFetch, URL: u, Format: f, Offset: off, Config: cfg}, nil
	case SearchName:
		q, err := str("query", true)
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindSearch, Query: q, Config: cfg}, nil
	}
	return core.Operation{}, fmt.Errorf("unknown tool %q", tool)
}

func refParseOffset(tool string, v json.RawMessage) (int, error) {
	raw := strings.TrimSpace(string(v))
	if raw == "" || raw == "null" {
		return 0, nil
	}
	bad := fmt.Errorf("%s: \"offset\" must be a whole number of characters, 0 or more (the number the last part's \"[content truncated: …]\" line names), got %s", tool, clip(raw))
	var s string
	if json.Unmarshal(v, &s) == nil {
		raw = strings.TrimSpace(s)
	}
	for _, r := range raw {
		if !strings.ContainsRune("0123456789.eE+-", r) {
			return 0, bad
		}
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, bad
	}
	return int(f), nil
}
