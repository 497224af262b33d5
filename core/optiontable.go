package core

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// OptionKind is the type of an option's value.
type OptionKind string

// The kinds of option values.
const (
	KindTier   OptionKind = "tier"   // off, optional, preferred or forced
	KindString OptionKind = "string" // text
	KindInt    OptionKind = "int"    // a whole number in [Min, Max]
	KindNumber OptionKind = "number" // a number in [Min, Max]
	KindBool   OptionKind = "bool"   // true or false
	KindList   OptionKind = "list"   // strings; a flag or variable takes them comma-separated
)

// OptionSpec declares one option of SPEC §5. [OptionSpecs] returns them
// all, and everything that names an option derives from it: the names
// ParseOptions knows (and its unknown-name warnings), the ranges it
// checks, the CLI's flags and their DEEPSEEK_WEB_RETRIEVAL_ variables,
// the flags' usage text and the installer's option list; a test checks
// option tables of docs/options.md and docs/messages.md against it.
type OptionSpec struct {
	// Name is the option's name in an options object: "maxResults".
	Name string
	Kind OptionKind
	// Min and Max bound a KindInt or KindNumber value.
	Min, Max float64
	// Default is the default as usage shows it ("" for none).
	Default string
	// Arg names a flag's value in usage: "N", "URL".
	Arg string
	// Usage says what the option does, in a few words.
	Usage string
	// NoFlag marks an option that is no flag and no variable: apiKey,
	// whose value may be a literal key.
	NoFlag bool
	// Messages marks the options of the Messages search backend
	// (messages.go), which docs/messages.md describes in their own section.
	Messages bool
}

// OptionSpecs returns the options in SPEC order (a copy: the table is the
// core's).
func OptionSpecs() []OptionSpec { return slices.Clone(optionTable) }

// optionTable is the table of SPEC §5's options.
var optionTable = []OptionSpec{
	{Name: "search", Kind: KindTier, Default: string(TierPreferred), Arg: "TIER", Usage: "deepseek_search: off, optional, preferred or forced"},
	{Name: "fetch", Kind: KindTier, Default: string(TierOptional), Arg: "TIER", Usage: "deepseek_fetch: off, optional, preferred or forced"},
	{Name: "apiKeyEnv", Kind: KindString, Default: DefaultAPIKeyEnv, Arg: "NAME", Usage: "variable holding the key, read at each call"},
	{Name: "apiKey", Kind: KindString, NoFlag: true, Usage: "a {env:VAR} or ${VAR} reference to the key"},
	{Name: "baseURL", Kind: KindString, Default: DefaultBaseURL, Arg: "URL", Usage: "DeepSeek origin; https unless loopback"},
	{Name: "maxResults", Kind: KindInt, Min: 1, Max: maxMaxResults, Default: strconv.Itoa(DefaultMaxResults), Arg: "N", Usage: "results per search"},
	{Name: "maxSummaryChars", Kind: KindInt, Min: minSummaryChars, Max: maxSummaryChars, Default: strconv.Itoa(DefaultMaxSummaryChars), Arg: "N", Usage: "per-result summary cap, in code points"},
	{Name: "minRerank", Kind: KindNumber, Min: 0, Max: 3, Default: "0", Arg: "X", Usage: "drop results with a lower rerank score"},
	{Name: "minAuthority", Kind: KindNumber, Min: 0, Max: 4, Default: "0", Arg: "X", Usage: "drop results of a lower authority"},
	{Name: "allowUnknownAuthority", Kind: KindBool, Default: "true", Arg: "BOOL", Usage: "let unknown authority pass --min-authority"},
	{Name: "includeDomains", Kind: KindList, Arg: "a,b", Usage: "search only these domains (site:)"},
	{Name: "allowedDomains", Kind: KindList, Arg: "a,b", Usage: "fetch only these domains and their subdomains"},
	{Name: "blockedDomains", Kind: KindList, Arg: "a,b", Usage: "never search or fetch these"},
	{Name: "language", Kind: KindString, Arg: "zh,en", Usage: "lang: operator"},
	{Name: "localization", Kind: KindString, Arg: "IP", Usage: "prefer results local to this address"},
	{Name: "fetchMaxChars", Kind: KindInt, Min: minFetchMaxChars, Max: maxFetchMaxChars, Default: strconv.Itoa(DefaultFetchMaxChars), Arg: "N", Usage: "fetched page cap in code points, title included"},
	{Name: "timeoutMs", Kind: KindInt, Min: minTimeoutMs, Max: maxTimeoutMs, Default: strconv.Itoa(DefaultTimeoutMs), Arg: "N", Usage: "per attempt, body included"},
	{Name: "maxRetries", Kind: KindInt, Min: 0, Max: maxMaxRetries, Default: strconv.Itoa(DefaultMaxRetries), Arg: "N", Usage: "retries on 408, 425, 429 and 5xx"},
	{Name: "cacheTTL", Kind: KindInt, Min: 0, Max: MaxCacheTTLMinutes, Default: strconv.Itoa(DefaultCacheTTLMinutes), Arg: "MIN", Usage: "minutes a page stays cached after its last use (0: no page or search cache)"},
	{Name: "cacheMaxMB", Kind: KindInt, Min: 0, Max: MaxCacheMB, Default: strconv.Itoa(MaxCacheMB), Arg: "N", Usage: "MiB of memory the cache may hold (0: no page or search cache)"},
	{Name: "maxCalls", Kind: KindInt, Min: 1, Max: maxMaxCalls, Default: strconv.Itoa(DefaultMaxCalls), Arg: "N", Usage: "calls running at once (more wait)"},
	{Name: "maxHeldMB", Kind: KindInt, Min: minMaxHeldMB, Max: maxMaxHeldMB, Default: strconv.Itoa(DefaultMaxHeldMB), Arg: "N", Usage: "MiB the running calls may hold (more wait, at most --timeout-ms)"},
	{Name: "messagesMaxRequestMB", Kind: KindInt, Min: 1, Max: maxMessagesMaxRequestMB, Default: strconv.Itoa(DefaultMessagesMaxRequestMB), Arg: "N", Usage: "cap on one Messages request, in MiB"},
	{Name: "diskCacheMaxMB", Kind: KindInt, Min: 0, Max: maxDiskCacheMB, Default: strconv.Itoa(DefaultDiskCacheMB), Arg: "N", Usage: "MiB the cache shared by every process on this machine may hold on disk (0: none)"},
	{Name: "diskPageTTL", Kind: KindInt, Min: 0, Max: maxDiskPageTTL, Default: strconv.Itoa(DefaultDiskPageTTL), Arg: "MIN", Usage: "minutes a fetched page stays in the shared cache (0: pages are not kept)"},
	{Name: "diskSearchTTL", Kind: KindInt, Min: 0, Max: maxDiskSearchTTL, Default: strconv.Itoa(DefaultDiskSearchTTL), Arg: "MIN", Usage: "minutes a search answer stays in the shared cache (0: searches are not kept)"},
	{Name: "dailyBudget", Kind: KindInt, Min: 0, Max: maxDailyBudget, Default: "0", Arg: "N", Usage: "billed DeepSeek requests per day on this machine, every process together (0: no limit)"},
	{Name: "searchBackend", Kind: KindString, Default: string(BackendSearch), Arg: "NAME", Usage: "search (the Search API) or messages", Messages: true},
	{Name: "messagesBaseURL", Kind: KindString, Default: DefaultMessagesBaseURL, Arg: "URL", Usage: "Anthropic-compatible base of the Messages backend", Messages: true},
	{Name: "messagesModel", Kind: KindString, Default: DefaultMessagesModel, Arg: "NAME", Usage: "the model that runs a Messages search", Messages: true},
	{Name: "messagesMaxTokens", Kind: KindInt, Min: minMessagesMaxTokens, Max: maxMessagesMaxTokens, Default: strconv.Itoa(DefaultMessagesMaxTokens), Arg: "N", Usage: "max_tokens of a Messages request", Messages: true},
	{Name: "messagesMaxUses", Kind: KindInt, Min: minMessagesMaxUses, Max: maxMessagesMaxUses, Default: strconv.Itoa(DefaultMessagesMaxUses), Arg: "N", Usage: "web searches one Messages search may run", Messages: true},
	{Name: "anthropicVersion", Kind: KindString, Default: DefaultAnthropicVersion, Arg: "DATE", Usage: "anthropic-version header of a Messages request", Messages: true},
	{Name: "messagesSummary", Kind: KindBool, Default: "false", Arg: "BOOL", Usage: "return the model's summary of a Messages search too", Messages: true},
}

// LookupOption returns the option named name.
func LookupOption(name string) (OptionSpec, bool) {
	for _, s := range optionTable {
		if s.Name == name {
			return s, true
		}
	}
	return OptionSpec{}, false
}

// FlagName is the option's CLI flag, its name in kebab-case:
// maxResults → max-results, baseURL → base-url, cacheMaxMB → cache-max-mb.
func (s OptionSpec) FlagName() string {
	r := []rune(s.Name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			// A capital starts a word, unless it continues a run of
			// capitals that is not followed by a lower-case letter.
			prevUpper := i > 0 && unicode.IsUpper(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if i > 0 && (!prevUpper || nextLower) {
				b.WriteByte('-')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// OptionEnvPrefix starts the environment variables that set options, for
// hosts whose config can only set the environment.
const OptionEnvPrefix = "DEEPSEEK_WEB_RETRIEVAL_"

// EnvName is the option's environment variable: maxResults →
// DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS.
func (s OptionSpec) EnvName() string {
	return OptionEnvPrefix + strings.ToUpper(strings.ReplaceAll(s.FlagName(), "-", "_"))
}

// Range says the option's range as usage and errors show it ("1-50"),
// "" for an option without one.
func (s OptionSpec) Range() string {
	if s.Kind != KindInt && s.Kind != KindNumber {
		return ""
	}
	return strconv.FormatFloat(s.Min, 'f', -1, 64) + "-" + strconv.FormatFloat(s.Max, 'f', -1, 64)
}

// intRange returns the range of a whole-number option.
func intRange(name string) (lo, hi int, ok bool) {
	s, ok := LookupOption(name)
	if !ok || s.Kind != KindInt {
		return 0, 0, false
	}
	return int(s.Min), int(s.Max), true
}
