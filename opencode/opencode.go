// Package opencode maps the core onto OpenCode's plugin APIs: what to
// register for a set of options on a host (the plan), the tools' schemas and
// descriptions, validation of tool input, and the shapes OpenCode expects
// back. It is compiled into the WebAssembly module, so the JavaScript shim in
// plugin/ only registers what the plan says and moves bytes.
package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Hosts the plan knows.
const (
	// HostV2 is OpenCode 2.x: a websearch provider API and tool editors.
	HostV2 = "opencode2"
	// HostV1 is OpenCode 1.x (opencode-ai): tools from a server() hook only.
	HostV1 = "opencode1"
)

// Names registered with OpenCode.
const (
	ProviderID   = "deepseek"
	ProviderName = "DeepSeek"
	SearchTool   = "deepseek_search"
	FetchTool    = "deepseek_fetch"
	// BuiltinFetch and BuiltinSearch are OpenCode's own tools that the
	// preferred and forced tiers steer away from.
	BuiltinFetch  = "webfetch"
	BuiltinSearch = "websearch"
)

// Plan says what the shim registers on a host for one set of options.
type Plan struct {
	Host string `json:"host"`
	// KeyEnv names the environment variable to read at every call and hand
	// to the module; "" when the options hold a literal key.
	KeyEnv string `json:"keyEnv,omitempty"`
	// Websearch is the provider to add (OpenCode 2.x), nil for none.
	Websearch *Provider `json:"websearch,omitempty"`
	// Tools are the tools to add.
	Tools []Tool `json:"tools"`
	// RemoveTools are tools to remove with the tool editor (2.x, forced
	// fetch). Setup must fail with NotExclusive when removal is impossible.
	RemoveTools []string `json:"removeTools,omitempty"`
	// DisableTools are built-in tools to switch off in the host's config (1.x,
	// forced): the shim denies them, {"permission": {"webfetch": "deny"}}.
	DisableTools []string `json:"disableTools,omitempty"`
	// NotExclusive maps a forced capability ("search", "fetch") to the
	// message setup fails with when the host cannot make it exclusive.
	NotExclusive map[string]string `json:"notExclusive,omitempty"`
	// Warnings are for the user's log: unknown options, dropped values.
	Warnings []string `json:"warnings,omitempty"`
}

// Provider is a websearch provider registration.
type Provider struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Default asks for default.set(ID).
	Default bool `json:"default"`
	// Exclusive asks the shim to check that the default reads back as ID.
	Exclusive bool `json:"exclusive"`
}

// Tool is a tool registration.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Input is the JSON Schema of the input object (2.x).
	Input json.RawMessage `json:"input,omitempty"`
	// Args are the 1.x argument property schemas (every one is required).
	Args json.RawMessage `json:"args,omitempty"`
}

// NewPlan returns what to register on host for cfg. It fails for an unknown
// host; forced tiers that the host can never make exclusive fail too.
func NewPlan(host string, cfg *core.Config, warnings []string) (*Plan, error) {
	p := &Plan{Host: host, Tools: []Tool{}, Warnings: warnings}
	if !cfg.HasLiteralKey() {
		p.KeyEnv = cfg.APIKeyEnv
	}
	switch host {
	case HostV2:
		if cfg.Search != core.TierOff {
			p.Websearch = &Provider{
				ID:        ProviderID,
				Name:      ProviderName,
				Default:   cfg.Search == core.TierPreferred || cfg.Search == core.TierForced,
				Exclusive: cfg.Search == core.TierForced,
			}
		}
		if cfg.Fetch != core.TierOff {
			p.Tools = append(p.Tools, fetchTool(cfg, host))
		}
		if cfg.Fetch == core.TierForced {
			p.RemoveTools = []string{BuiltinFetch}
		}
	case HostV1:
		if cfg.Search != core.TierOff {
			p.Tools = append(p.Tools, searchTool(cfg))
		}
		if cfg.Fetch != core.TierOff {
			p.Tools = append(p.Tools, fetchTool(cfg, host))
		}
		if cfg.Search == core.TierForced {
			p.DisableTools = append(p.DisableTools, BuiltinSearch)
		}
		if cfg.Fetch == core.TierForced {
			p.DisableTools = append(p.DisableTools, BuiltinFetch)
		}
	default:
		return nil, fmt.Errorf("opencode: unknown host %q (want %q or %q)", host, HostV2, HostV1)
	}
	if cfg.Search == core.TierForced || cfg.Fetch == core.TierForced {
		p.NotExclusive = map[string]string{}
	}
	if cfg.Search == core.TierForced {
		p.NotExclusive["search"] = `deepseek-web-retrieval: search is "forced", but this OpenCode did not keep DeepSeek as its only web search (the websearch default did not read back as "deepseek"; another plugin or the "websearch" config may override it). Set search to "preferred" to run beside it, or remove the other provider.`
	}
	if cfg.Fetch == core.TierForced {
		p.NotExclusive["fetch"] = `deepseek-web-retrieval: fetch is "forced", but this OpenCode does not let a plugin remove its built-in webfetch tool. Set fetch to "preferred" to run beside it, or disable webfetch in the OpenCode config.`
	}
	return p, nil
}

func fetchTool(cfg *core.Config, host string) Tool {
	var b strings.Builder
	fmt.Fprintf(&b, "Fetch one public web page through DeepSeek's Fetch API and return its content as Markdown, at most %d characters per call. ", cfg.FetchMaxChars)
	b.WriteString(pagingHelp(cfg))
	b.WriteString("Use it to read a page whose URL you know, for example a search result. ")
	b.WriteString("Only absolute http:// and https:// URLs on the public internet: localhost, private and local-network addresses are refused before anything is sent. ")
	b.WriteString("JavaScript is not run and private or binary files are not supported.")
	if cfg.Fetch == core.TierPreferred || cfg.Fetch == core.TierForced {
		b.WriteString(" Prefer this tool over webfetch for reading web pages.")
	}
	url := json.RawMessage(`{"type":"string","description":"The absolute http:// or https:// URL of the page to fetch."}`)
	t := Tool{Name: FetchTool, Description: b.String()}
	if host == HostV1 {
		t.Args = mustJSON(map[string]json.RawMessage{"url": url, "offset": offsetSchema})
		return t
	}
	t.Input = mustJSON(map[string]any{
		"type": "object",
		"properties": map[string]json.RawMessage{
			"url":    url,
			"format": json.RawMessage(`{"type":"string","enum":["markdown"],"description":"Output format. Only \"markdown\" is available; leave it out."}`),
			"offset": offsetSchema,
		},
		"required":             []string{"url"},
		"additionalProperties": false,
	})
	return t
}

func searchTool(cfg *core.Config) Tool {
	var b strings.Builder
	fmt.Fprintf(&b, "Search the web with DeepSeek's Search API. Returns up to %d results, each with its title, URL, a quality marker ", cfg.MaxResults)
	b.WriteString("[rerank 0–3 · authority 0–4 · site] (rerank ≥ 1.5 is high quality, authority ≥ 3 highly authoritative), the publication date when known, and a summary. ")
	b.WriteString("The query may use the operators site:example.com, -site:example.com, lang:zh,en, after:2025-01-01 and before:2026; at most 128 characters in all. ")
	b.WriteString("Read a result in full with " + FetchTool + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over websearch for searching the web.")
	}
	return Tool{
		Name:        SearchTool,
		Description: b.String(),
		Args:        mustJSON(map[string]json.RawMessage{"query": json.RawMessage(`{"type":"string","description":"What to search for, with optional operators."}`)}),
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ToolCall turns a tool's raw input into the core operation it asks for,
// validating it (OpenCode does not validate raw JSON Schema input). Unknown
// fields are ignored.
func ToolCall(tool string, args json.RawMessage, cfg *core.Config) (core.Operation, error) {
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
	case FetchTool:
		u, err := str("url", true)
		if err != nil {
			return core.Operation{}, err
		}
		f, err := str("format", false)
		if err != nil {
			return core.Operation{}, err
		}
		off, err := offsetArg(tool, fields["offset"])
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindFetch, URL: u, Format: f, Offset: off, Config: cfg}, nil
	case SearchTool:
		q, err := str("query", true)
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindSearch, Query: q, Config: cfg}, nil
	}
	return core.Operation{}, fmt.Errorf("opencode: unknown tool %q", tool)
}

// ProviderResult is one OpenCode 2.x websearch provider result.
type ProviderResult struct {
	URL     string `json:"url"`
	Title   string `json:"title,omitempty"`
	Content string `json:"content,omitempty"`
	Time    Time   `json:"time"`
}

// Time is a provider result's time object; OpenCode requires it.
type Time struct {
	// Published is epoch milliseconds, omitted when unknown.
	Published *int64 `json:"published,omitempty"`
}

// ProviderResults maps search hits onto provider results (SPEC §6).
func ProviderResults(r *core.SearchResult) []ProviderResult {
	out := make([]ProviderResult, 0, len(r.Hits))
	for _, h := range r.Hits {
		pr := ProviderResult{URL: h.URL, Title: h.Title, Content: h.ProviderContent()}
		if ms, ok := h.PublishedMs(); ok {
			pr.Time.Published = &ms
		}
		out = append(out, pr)
	}
	return out
}

// ToolResult is what a tool's execute returns: text content for the model
// and metadata for the host.
type ToolResult struct {
	Content  string `json:"content"`
	Metadata any    `json:"metadata,omitempty"`
}

// FetchMetadata is deepseek_fetch's metadata.
type FetchMetadata struct {
	URL              string `json:"url"`
	Title            string `json:"title"`
	Chars            int    `json:"chars"`
	ContentTruncated bool   `json:"contentTruncated"`
	// Truncated tells OpenCode 2.x the tool already cut its output, so the
	// host's own 50 KiB cut does not apply; set only when it did.
	Truncated bool `json:"truncated,omitempty"`
	// Offset is where this part starts, NextOffset where the next one does
	// (absent for the last part), TotalChars the page's length; all in code
	// points.
	Offset     int `json:"offset"`
	NextOffset int `json:"nextOffset,omitempty"`
	TotalChars int `json:"totalChars"`
	// Cached is true when the page came from the cache, with no request.
	Cached bool `json:"cached"`
}

// SearchMetadata is deepseek_search's metadata.
type SearchMetadata struct {
	Query   string `json:"query"`
	Results int    `json:"results"`
	// Cached is true when the answer came from the cache, with no request.
	Cached bool `json:"cached"`
}

// ResultFor maps an operation's result onto the tool result.
func ResultFor(r *core.Result) ToolResult {
	if f := r.Fetch; f != nil {
		return ToolResult{Content: f.Text, Metadata: FetchMetadata{URL: f.URL, Title: f.Title, Chars: f.Chars, ContentTruncated: f.Truncated, Truncated: f.Truncated,
			Offset: f.Offset, NextOffset: f.NextOffset, TotalChars: f.TotalChars, Cached: f.Cached}}
	}
	s := r.Search
	return ToolResult{Content: s.Text(), Metadata: SearchMetadata{Query: s.Query, Results: len(s.Hits), Cached: s.Cached}}
}
