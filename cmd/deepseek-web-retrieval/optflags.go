package main

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"

	"flag"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// bindOptionFlags registers one flag per plugin option (SPEC §5), in
// kebab-case, filling o. A flag left out leaves its field unset, so the
// option's default applies. There is no flag for a literal API key.
func bindOptionFlags(fl *flag.FlagSet, o *install.Options) {
	fl.StringVar(&o.Search, "search", "", "")
	fl.StringVar(&o.Fetch, "fetch", "", "")
	fl.StringVar(&o.APIKeyEnv, "api-key-env", "", "")
	fl.StringVar(&o.BaseURL, "base-url", "", "")
	fl.Var(intFlag{&o.MaxResults}, "max-results", "")
	fl.Var(intFlag{&o.MaxSummaryChars}, "max-summary-chars", "")
	fl.Var(floatFlag{&o.MinRerank}, "min-rerank", "")
	fl.Var(floatFlag{&o.MinAuthority}, "min-authority", "")
	fl.Var(boolFlag{&o.AllowUnknownAuthority}, "allow-unknown-authority", "")
	fl.Var(listFlag{&o.IncludeDomains}, "include-domains", "")
	fl.Var(listFlag{&o.AllowedDomains}, "allowed-domains", "")
	fl.Var(listFlag{&o.BlockedDomains}, "blocked-domains", "")
	fl.StringVar(&o.Language, "language", "", "")
	fl.StringVar(&o.Localization, "localization", "", "")
	fl.Var(intFlag{&o.FetchMaxChars}, "fetch-max-chars", "")
	fl.Var(intFlag{&o.TimeoutMs}, "timeout-ms", "")
	fl.Var(intFlag{&o.MaxRetries}, "max-retries", "")
	fl.Var(intFlag{&o.CacheTTL}, "cache-ttl", "")
	fl.Var(intFlag{&o.CacheMaxMB}, "cache-max-mb", "")
	fl.Var(intFlag{&o.MaxCalls}, "max-calls", "")
	fl.Var(intFlag{&o.MaxHeldMB}, "max-held-mb", "")
	fl.Var(intFlag{&o.MessagesMaxRequestMB}, "messages-max-request-mb", "")
	fl.StringVar(&o.SearchBackend, "search-backend", "", "")
	fl.StringVar(&o.MessagesBaseURL, "messages-base-url", "", "")
	fl.StringVar(&o.MessagesModel, "messages-model", "", "")
	fl.Var(intFlag{&o.MessagesMaxTokens}, "messages-max-tokens", "")
	fl.Var(intFlag{&o.MessagesMaxUses}, "messages-max-uses", "")
	fl.StringVar(&o.AnthropicVersion, "anthropic-version", "", "")
	fl.Var(boolFlag{&o.MessagesSummary}, "messages-summary", "")
}

// applyMessagesEnv fills the Messages backend's options that flags left
// unset from the seed servers' DEEPSEEK_SEARCH_* environment variables
// (core.ApplyMessagesEnv), when the backend is "messages". Every native
// host (search, the MCP server) calls it on the options it parsed.
func applyMessagesEnv(o *core.Options, getenv func(string) string) error {
	return core.ApplyMessagesEnv(o, getenv)
}
