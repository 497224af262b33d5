package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Options are the plugin options init writes into every host's config entry
// (OpenCode's plugin options, an MCP entry's arguments), under their SPEC §5
// names, and the options the CLI's flags fill in. Search and Fetch are always written (so the tiers are
// visible in the config); every other field is written only when set: a
// zero string, nil pointer or nil slice is left out and the plugin's default
// applies. There is deliberately no field for a literal API key.
type Options struct {
	// Search is the search tier: off, optional, preferred or forced.
	// Empty means preferred.
	Search string `json:"search"`
	// Fetch is the fetch tier: off, optional, preferred or forced.
	// Empty means optional.
	Fetch string `json:"fetch"`
	// APIKeyEnv names the environment variable holding the key.
	// Empty means DEEPSEEK_API_KEY.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// BaseURL is the DeepSeek origin; https, except loopback hosts.
	BaseURL string `json:"baseURL,omitempty"`
	// MaxResults is the number of results asked for, 1–50.
	MaxResults *int `json:"maxResults,omitempty"`
	// MaxSummaryChars caps each result's text, in code points (≥ 1).
	MaxSummaryChars *int `json:"maxSummaryChars,omitempty"`
	// MinRerank drops results whose rerank score is lower (0–3).
	MinRerank *float64 `json:"minRerank,omitempty"`
	// MinAuthority drops results whose authority is lower (0–4).
	MinAuthority *float64 `json:"minAuthority,omitempty"`
	// AllowUnknownAuthority lets results of unknown authority pass MinAuthority.
	AllowUnknownAuthority *bool `json:"allowUnknownAuthority,omitempty"`
	// IncludeDomains restricts search to these domains.
	IncludeDomains []string `json:"includeDomains,omitempty"`
	// AllowedDomains restricts fetch to these domains and their subdomains.
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	// BlockedDomains are refused by search and fetch, subdomains included.
	BlockedDomains []string `json:"blockedDomains,omitempty"`
	// Language is the lang: operator's value, e.g. "zh,en".
	Language string `json:"language,omitempty"`
	// Localization is an IPv4 or IPv6 address sent to DeepSeek as the
	// searcher's location.
	Localization string `json:"localization,omitempty"`
	// FetchMaxChars caps fetched text, in code points (≥ 1).
	FetchMaxChars *int `json:"fetchMaxChars,omitempty"`
	// TimeoutMs is the per-attempt timeout in milliseconds, 1000–120000.
	TimeoutMs *int `json:"timeoutMs,omitempty"`
	// MaxRetries is the number of retries, 0–5.
	MaxRetries *int `json:"maxRetries,omitempty"`
	// CacheTTL is how long a cached page lives after its last use, in
	// minutes (0–60, 0 turns the page and search caches off).
	CacheTTL *int `json:"cacheTTL,omitempty"`
	// CacheMaxMB caps the cache's memory, in MiB (0–64, 0 turns the caches
	// off).
	CacheMaxMB *int `json:"cacheMaxMB,omitempty"`
	// MaxCalls, MaxHeldMB and MessagesMaxRequestMB bound the work one
	// process holds at once (core.Limits): calls in flight (1–256), MiB of
	// requests and responses they hold (16–1024), MiB of one Messages
	// request (1–64).
	MaxCalls             *int `json:"maxCalls,omitempty"`
	MaxHeldMB            *int `json:"maxHeldMB,omitempty"`
	MessagesMaxRequestMB *int `json:"messagesMaxRequestMB,omitempty"`
	// DiskCacheMaxMB, DiskPageTTL and DiskSearchTTL bound the cache every
	// process of the machine shares (MiB, minutes, minutes; 0 turns that
	// part off); DailyBudget caps the billed requests a day (0: none).
	DiskCacheMaxMB *int `json:"diskCacheMaxMB,omitempty"`
	DiskPageTTL    *int `json:"diskPageTTL,omitempty"`
	DiskSearchTTL  *int `json:"diskSearchTTL,omitempty"`
	DailyBudget    *int `json:"dailyBudget,omitempty"`
	// SearchBackend is "search" (the Search API, default) or "messages"
	// (DeepSeek's web search through the Messages endpoint); the Messages*
	// and AnthropicVersion fields configure the latter (core.MessagesOptions).
	SearchBackend     string `json:"searchBackend,omitempty"`
	MessagesBaseURL   string `json:"messagesBaseURL,omitempty"`
	MessagesModel     string `json:"messagesModel,omitempty"`
	MessagesMaxTokens *int   `json:"messagesMaxTokens,omitempty"`
	MessagesMaxUses   *int   `json:"messagesMaxUses,omitempty"`
	AnthropicVersion  string `json:"anthropicVersion,omitempty"`
	MessagesSummary   *bool  `json:"messagesSummary,omitempty"`
}

// WithDefaults fills in the tiers, which are always written.
func (o Options) WithDefaults() Options {
	if o.Search == "" {
		o.Search = "preferred"
	}
	if o.Fetch == "" {
		o.Fetch = "optional"
	}
	return o
}

// APIKeyVar returns the environment variable the plugin will read the key from.
func (o Options) APIKeyVar() string {
	if o.APIKeyEnv != "" {
		return o.APIKeyEnv
	}
	return DefaultAPIKeyEnv
}

// OptionError reports an invalid option value. Option is the SPEC §5 name
// (e.g. "maxResults"); the CLI maps it back to its flag.
type OptionError struct {
	Option string
	Msg    string
}

func (e *OptionError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Option, e.Msg) }

// optionNames lists the options init writes (their SPEC §5 names), in
// SPEC order: core.OptionSpecs()'s but apiKey, which init never writes.
var optionNames = func() []string {
	var out []string
	for _, s := range core.OptionSpecs() {
		if !s.NoFlag {
			out = append(out, s.Name)
		}
	}
	return out
}()

// Validate checks every set option with the core's resolver
// (core.ParseOptions, then core.NewConfig), one option at a time so the
// error names the option, and returns the first problem as an *OptionError.
// A resolver warning (such as an address that would be dropped) is an error
// here: init writes only values the plugin will use.
func Validate(o Options) error {
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(Marshal(o, "", "", true), &raw); err != nil {
		return err
	}
	for _, k := range optionNames {
		v, ok := raw[k]
		if !ok {
			continue
		}
		one := []byte(`{"` + k + `":` + string(v) + `}`)
		co, warns, err := core.ParseOptions(one)
		if err == nil {
			var more []string
			_, more, err = core.NewConfig(co)
			warns = append(warns, more...)
		}
		var oe *core.OptionError
		switch {
		case errors.As(err, &oe):
			return &OptionError{Option: k, Msg: oe.Reason}
		case err != nil:
			return &OptionError{Option: k, Msg: err.Error()}
		case len(warns) > 0:
			// A warning is a sentence about this one option.
			return &OptionError{Option: k, Msg: strings.TrimPrefix(warns[0], fmt.Sprintf("option %q: ", k))}
		}
	}
	// Options that are valid alone may clash together (includeDomains and
	// blockedDomains on the Messages backend).
	if co, _, err := core.ParseOptions(Marshal(o, "", "", true)); err == nil {
		var oe *core.OptionError
		if _, _, err := core.NewConfig(co); errors.As(err, &oe) {
			return &OptionError{Option: oe.Option, Msg: oe.Reason}
		}
	}
	return nil
}

// Scope says which configuration of a host an install goes into.
type Scope string

const (
	// ScopeGlobal is the user's own configuration of the host.
	ScopeGlobal Scope = "global"
	// ScopeProject is a project directory's configuration.
	ScopeProject Scope = "project"
)

// ParseScope parses "global" or "project".
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeGlobal, ScopeProject:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q (want global or project)", s)
}

// OptionsValue returns o as a generic JSON value, for comparison with what a
// config holds.
func OptionsValue(o Options) any {
	var v any
	_ = json.Unmarshal(Marshal(o, "", "", true), &v)
	return v
}
