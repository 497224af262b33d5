package main

import (
	"flag"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/opencode/install"
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
}
