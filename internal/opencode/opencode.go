// Package opencode maps the tools of package tool onto OpenCode's plugin
// APIs: what to register for a set of options on a host (the plan, with
// OpenCode's own registration fields: 2.x input schemas and options, 1.x
// argument schemas, the built-in tools to remove or disable), the
// websearch provider's result shape, and the tool calls of the module's
// "opencode.tool" kind. It is compiled into the WebAssembly module, so the
// JavaScript shim in plugin/ only registers what the plan says and moves
// bytes.
package opencode

import (
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// Hosts the plan knows.
const (
	// V2 is OpenCode 2.x: a websearch provider API and tool editors.
	V2 = "opencode2"
	// V1 is OpenCode 1.x (opencode-ai): tools from a server() hook only.
	V1 = "opencode1"
)

// Names registered with OpenCode.
const (
	ProviderID   = "deepseek"
	ProviderName = "DeepSeek"
	SearchTool   = tool.SearchName
	FetchTool    = tool.FetchName
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
	case V2:
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
	case V1:
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
		return nil, errors.New("opencode: unknown host " + strconv.Quote(host) + " (want " + strconv.Quote(V2) + " or " + strconv.Quote(V1) + ")")
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
	t := Tool{Name: FetchTool, Description: tool.FetchDescription(cfg, BuiltinFetch)}
	if host == V1 {
		t.Args = jsonlite.Raw(`{"offset":` + tool.OffsetProperty + `,"url":` + tool.URLProperty + `,"urls":` + v1URLs + `}`)
		return t
	}
	t.Options = nativeTool()
	t.Input = tool.FetchSchema()
	return t
}

func searchTool(cfg *core.Config, host string) Tool {
	t := Tool{Name: SearchTool, Description: tool.SearchDescription(cfg, BuiltinSearch)}
	if host == V1 {
		t.Args = jsonlite.Raw(`{"queries":` + v1Queries + `,"query":` + tool.SearchQueryProperty(cfg) + `}`)
		return t
	}
	t.Options = nativeTool()
	t.Input = tool.SearchSchema(cfg)
	return t
}

// v1Queries and v1URLs are the several-at-once arguments of the 1.x tools.
// 1.x marks every argument required, so each says what to give for the form
// not used: [] beside one query or URL, "" (and offset 0) beside a list
// (tool.ParseBatch reads those as absent). 2.x tools keep the one-at-a-time
// schema of its websearch provider, which the host calls with one query.
const (
	v1Queries = `{"type":"array","items":{"type":"string"},"maxItems":4,"description":"Up to 4 queries to run at once, results merged, with query \"\"; [] when you give query."}`
	v1URLs    = `{"type":"array","items":{"type":"string"},"maxItems":5,"description":"Up to 5 URLs to read at once, with url \"\" and offset 0; [] when you give url."}`
)

// nativeTool is the 2.x registration option that keeps a tool on the
// model's native tool list (Code Mode hides every other plugin tool behind
// its execute tool).
func nativeTool() map[string]any { return map[string]any{"codemode": false} }

// ToolCall is [tool.ParseBatch] for the module's "opencode.tool" kind: it
// validates a call's raw input (OpenCode does not validate raw JSON Schema
// input), returns one operation per query or page, and names a tool that is
// not one of ours as this adapter always has.
func ToolCall(name string, args []byte, cfg *core.Config) ([]core.Operation, error) {
	if name != SearchTool && name != FetchTool {
		return nil, errors.New("opencode: unknown tool " + strconv.Quote(name))
	}
	return tool.ParseBatch(name, args, cfg)
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

// providerNotes is what ProviderResults adds to the last result's content:
// the search's notes, a blank line between them.
func providerNotes(r *core.SearchResult) string { return strings.Join(r.Notes, "\n\n") }
