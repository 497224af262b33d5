// Package opencode maps the core onto OpenCode's plugin APIs: what to
// register for a set of options on a host (the plan), the tools' schemas and
// descriptions, validation of tool input, and the shapes OpenCode expects
// back. It is compiled into the WebAssembly module, so the JavaScript shim in
// plugin/ only registers what the plan says and moves bytes.
package opencode

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
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
	// NoWebsearchAPI replaces Websearch and Tools on a 2.x host without the
	// websearch provider API; nil when there is no provider to replace.
	NoWebsearchAPI *Fallback `json:"noWebsearchAPI,omitempty"`
	// RemoveTools are built-in tools to remove with the tool editor (2.x,
	// forced tiers). Setup must fail with NotExclusive when one stays.
	RemoveTools []string `json:"removeTools,omitempty"`
	// ConfigEdits switch built-in tools off in the host's config (1.x,
	// forced), in order: see disableBuiltins.
	ConfigEdits []ConfigEdit `json:"configEdits,omitempty"`
	// NotExclusive maps a built-in tool of RemoveTools ("websearch",
	// "webfetch") to the message setup fails with when it stays.
	NotExclusive map[string]string `json:"notExclusive,omitempty"`
	// Warnings are for the user's log: unknown options, dropped values.
	Warnings []string `json:"warnings,omitempty"`
}

// Provider is a websearch provider registration.
type Provider struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Default asks for default.set(ID). A "websearch" setting in the user's
	// OpenCode config is applied after every plugin and wins over it.
	Default bool `json:"default"`
}

// Tool is a tool registration.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Input is the JSON Schema of the input object (2.x).
	Input jsonlite.Raw `json:"input,omitempty"`
	// Options are the 2.x registration options: {"codemode": false} puts
	// the tool on the model's native tool list instead of behind Code
	// Mode's execute tool. Its values are bools or strings.
	Options map[string]any `json:"options,omitempty"`
	// Args are the 1.x argument property schemas (every one is required).
	Args jsonlite.Raw `json:"args,omitempty"`
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
		// Forced search cannot rest on the websearch default: the user's
		// "websearch" config setting is applied after every plugin. So the
		// model gets deepseek_search as a tool and the built-in websearch
		// tool is removed, which the tool editor proves at once.
		if cfg.Search != core.TierOff {
			p.Websearch = &Provider{
				ID:      ProviderID,
				Name:    ProviderName,
				Default: cfg.Search == core.TierPreferred || cfg.Search == core.TierForced,
			}
		}
		if cfg.Search == core.TierForced {
			p.Tools = append(p.Tools, searchTool(cfg, host))
			p.RemoveTools = append(p.RemoveTools, BuiltinSearch)
		}
		if cfg.Fetch != core.TierOff {
			p.Tools = append(p.Tools, fetchTool(cfg, host))
		}
		if cfg.Fetch == core.TierForced {
			p.RemoveTools = append(p.RemoveTools, BuiltinFetch)
		}
		if p.Websearch != nil {
			p.NoWebsearchAPI = noWebsearchAPI(p.Tools, searchTool(cfg, host))
		}
	case HostV1:
		if cfg.Search != core.TierOff {
			p.Tools = append(p.Tools, searchTool(cfg, host))
		}
		if cfg.Fetch != core.TierOff {
			p.Tools = append(p.Tools, fetchTool(cfg, host))
		}
		var disable []string
		if cfg.Search == core.TierForced {
			disable = append(disable, BuiltinSearch)
		}
		if cfg.Fetch == core.TierForced {
			disable = append(disable, BuiltinFetch)
		}
		p.ConfigEdits = disableBuiltins(disable)
	default:
		return nil, errors.New("opencode: unknown host " + strconv.Quote(host) + " (want " + strconv.Quote(HostV2) + " or " + strconv.Quote(HostV1) + ")")
	}
	if cfg.Search == core.TierForced || cfg.Fetch == core.TierForced {
		p.NotExclusive = map[string]string{}
	}
	if cfg.Search == core.TierForced {
		p.NotExclusive[BuiltinSearch] = `deepseek-web-retrieval: search is "forced", but this OpenCode does not let a plugin remove its built-in websearch tool. Set search to "preferred" to run beside it, or disable websearch in the OpenCode config.`
	}
	if cfg.Fetch == core.TierForced {
		p.NotExclusive[BuiltinFetch] = `deepseek-web-retrieval: fetch is "forced", but this OpenCode does not let a plugin remove its built-in webfetch tool. Set fetch to "preferred" to run beside it, or disable webfetch in the OpenCode config.`
	}
	return p, nil
}

func fetchTool(cfg *core.Config, host string) Tool {
	t := Tool{Name: FetchTool, Description: FetchDescription(cfg, BuiltinFetch)}
	if host == HostV1 {
		t.Args = jsonlite.Raw(`{"offset":` + OffsetProperty + `,"url":` + URLProperty + `}`)
		return t
	}
	t.Options = nativeTool()
	t.Input = FetchInput()
	return t
}

// FetchDescription is deepseek_fetch's description for cfg. builtin names the
// host's own fetch tool, which the preferred and forced tiers tell the model
// to avoid (BuiltinFetch on OpenCode).
func FetchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	b.WriteString("Fetch one public web page through DeepSeek's Fetch API and return its content as Markdown, at most " + strconv.Itoa(cfg.FetchMaxChars) + " characters per call. ")
	b.WriteString(pagingHelp(cfg))
	b.WriteString("Use it to read a page whose URL you know, for example a search result. ")
	b.WriteString("Only absolute http:// and https:// URLs on the public internet: localhost, private and local-network addresses are refused before anything is sent. ")
	b.WriteString("JavaScript is not run and private or binary files are not supported.")
	if cfg.Fetch == core.TierPreferred || cfg.Fetch == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for reading web pages.")
	}
	return b.String()
}

// Property schemas of the tools' inputs, shared with other hosts' adapters.
const (
	URLProperty    = `{"type":"string","description":"The absolute http:// or https:// URL of the page to fetch."}`
	FormatProperty = `{"type":"string","enum":["markdown"],"description":"Output format. Only \"markdown\" is available; leave it out."}`
	// QueryProperty is the query of the Search API backend; see
	// [SearchQueryProperty] for the one that fits the configured backend.
	QueryProperty = `{"type":"string","description":"What to search for, with optional operators."}`
	// OffsetProperty is deepseek_fetch's offset: where to start reading.
	OffsetProperty = `{"type":"integer","minimum":0,"description":"Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on."}`
)

// FetchInput is the JSON Schema of deepseek_fetch's input object (its keys
// sorted, as json.Marshal wrote it from a map).
func FetchInput() jsonlite.Raw {
	return jsonlite.Raw(`{"additionalProperties":false,"properties":{"format":` + FormatProperty + `,"offset":` + OffsetProperty + `,"url":` + URLProperty + `},"required":["url"],"type":"object"}`)
}

func searchTool(cfg *core.Config, host string) Tool {
	query := SearchQueryProperty(cfg)
	t := Tool{Name: SearchTool, Description: SearchDescription(cfg, BuiltinSearch)}
	if host == HostV1 {
		t.Args = jsonlite.Raw(`{"query":` + query + `}`)
		return t
	}
	t.Options = nativeTool()
	t.Input = jsonlite.Raw(`{"additionalProperties":false,"properties":{"query":` + query + `},"required":["query"],"type":"object"}`)
	return t
}

// SearchQueryProperty is the schema of deepseek_search's query for the
// configured backend (the Messages backend takes no query operators).
func SearchQueryProperty(cfg *core.Config) string {
	if cfg.Messages.Backend == core.BackendMessages {
		return messagesQueryProperty
	}
	return QueryProperty
}

// SearchDescription is deepseek_search's description for cfg. builtin names
// the host's own search tool, which the preferred and forced tiers tell the
// model to avoid (BuiltinSearch on OpenCode).
func SearchDescription(cfg *core.Config, builtin string) string {
	if cfg.Messages.Backend == core.BackendMessages {
		return messagesSearchDescription(cfg, builtin)
	}
	var b strings.Builder
	b.WriteString("Search the web with DeepSeek's Search API. Returns up to " + strconv.Itoa(cfg.MaxResults) + " results, each with its title, URL, a quality marker ")
	b.WriteString("[rerank 0–3 · authority 0–4 · site] (rerank ≥ 1.5 is high quality, authority ≥ 3 highly authoritative), the publication date when known, and a summary. ")
	b.WriteString("The query may use the operators site:example.com, -site:example.com, lang:zh,en, after:2025-01-01 and before:2026; at most 128 characters in all. ")
	b.WriteString("Read a result in full with " + FetchTool + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for searching the web.")
	}
	return b.String()
}

// nativeTool is the 2.x registration option that keeps a tool on the
// model's native tool list (Code Mode hides every other plugin tool behind
// its execute tool).
func nativeTool() map[string]any { return map[string]any{"codemode": false} }

// ToolCall turns a tool's raw input into the core operation it asks for,
// validating it (OpenCode does not validate raw JSON Schema input). Unknown
// fields are ignored. args is JSON text.
func ToolCall(tool string, args []byte, cfg *core.Config) (core.Operation, error) {
	fields, ok := members(args)
	if !ok {
		return core.Operation{}, errors.New(tool + ": the input must be a JSON object")
	}
	str := func(arg int, required bool) (string, error) {
		name, v := argNames[arg], fields[arg]
		if v == nil || string(v) == "null" {
			if required {
				return "", errors.New(tool + ": the input needs " + strconv.Quote(name) + " (a string)")
			}
			return "", nil
		}
		s, ok := jsonlite.Unquote(v)
		if !ok {
			return "", errors.New(tool + ": " + strconv.Quote(name) + " must be a string")
		}
		return s, nil
	}
	switch tool {
	case FetchTool:
		u, err := str(argURL, true)
		if err != nil {
			return core.Operation{}, err
		}
		f, err := str(argFormat, false)
		if err != nil {
			return core.Operation{}, err
		}
		off, err := offsetArg(tool, fields[argOffset])
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindFetch, URL: u, Format: f, Offset: off, Config: cfg}, nil
	case SearchTool:
		q, err := str(argQuery, true)
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindSearch, Query: q, Config: cfg}, nil
	}
	return core.Operation{}, errors.New("opencode: unknown tool " + strconv.Quote(tool))
}

// argNames are the members ToolCall reads, indexed by the arg constants.
var argNames = [...]string{"url", "format", "offset", "query"}

const (
	argURL = iota
	argFormat
	argOffset
	argQuery
)

// members decodes args, which must be a JSON object, into the text of the
// members ToolCall reads (nil when absent), matched by exact name (the
// last of repeated names wins), as json.Unmarshal does into a
// map[string]json.RawMessage; FuzzToolArgs checks it against that map,
// which it replaced: the map and a string per name were a tenth of a fetch
// step's start in WebAssembly.
func members(args []byte) (fields [len(argNames)][]byte, ok bool) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || a[0] != '{' {
		return fields, false
	}
	d := jsonlite.NewDecoder(a)
	err := d.Members(func(name []byte) error {
		v, err := d.Raw()
		for i, n := range argNames {
			if string(name) == n {
				fields[i] = v
			}
		}
		return err
	})
	return fields, err == nil
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

// ToolResult is what a tool's execute returns: text content for the model,
// a title for the host's UI (OpenCode 1.x shows it; 2.x results have none)
// and metadata for the host.
type ToolResult struct {
	Content  string `json:"content"`
	Title    string `json:"title"`
	Metadata any    `json:"metadata,omitempty"`
}

// FetchMetadata is deepseek_fetch's metadata. It has no "truncated" key on
// purpose: OpenCode 2.x skips its own output bound whenever that key is
// defined, with any value, and the bound (with the full text saved to a
// file) is worth keeping; contentTruncated says whether we cut the page.
type FetchMetadata struct {
	URL              string `json:"url"`
	Title            string `json:"title"`
	Chars            int    `json:"chars"`
	ContentTruncated bool   `json:"contentTruncated"`
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
	// Usage is what a search on the Messages backend cost.
	Usage *core.Usage `json:"usage,omitempty"`
	// Cached is true when the answer came from the cache, with no request.
	Cached bool `json:"cached"`
}

// ResultFor maps an operation's result onto the tool result.
func ResultFor(r *core.Result) ToolResult {
	if f := r.Fetch; f != nil {
		return ToolResult{Content: f.Text, Title: ToolTitle(FetchTool, f.URL), Metadata: FetchMetadata{URL: f.URL, Title: f.Title, Chars: f.Chars, ContentTruncated: f.Truncated,
			Offset: f.Offset, NextOffset: f.NextOffset, TotalChars: f.TotalChars, Cached: f.Cached}}
	}
	s := r.Search
	return ToolResult{Content: s.Text(), Title: ToolTitle(SearchTool, s.Query), Metadata: SearchMetadata{Query: s.Query, Results: len(s.Hits), Usage: s.Usage, Cached: s.Cached}}
}
