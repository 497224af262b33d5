package main

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"

	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// Exit codes of search and fetch.
const (
	exitMissingKey  = 3   // no API key in the environment
	exitAPI         = 4   // DeepSeek or the network failed
	exitInterrupted = 130 // Ctrl-C
)

// retrieveFlags starts the flags section of search's and fetch's usage.
func retrieveFlags() string {
	return `Flags (the plugin options of the README, in kebab-case):
  --json                      print the structured result as JSON
` + optionUsage("apiKeyEnv", "baseURL", "timeoutMs", "maxRetries")
}

func searchUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: deepseek-web-retrieval search [flags] QUERY

Searches the web with DeepSeek Search and prints what a model would see: per
result its title, URL, quality marker, date and summary.

Example:
  export DEEPSEEK_API_KEY=sk-...
  deepseek-web-retrieval search --max-results 5 --blocked-domains pinterest.com "wasi preview 2 status"

`+retrieveFlags()+`  --question TEXT             the user's original question (sent as ori_question)
`+optionUsage("maxResults", "maxSummaryChars", "minRerank", "minAuthority", "allowUnknownAuthority", "includeDomains", "blockedDomains", "language", "localization")+`
Backend (README, "The Messages backend"): with --search-backend messages a search is one
DeepSeek model turn on the Anthropic-compatible Messages endpoint that runs the server-side
web_search tool (billed as tokens plus searches; --json shows the usage); results carry
the passages DeepSeek cited. Defaults there: --max-results 8, --timeout-ms 60000. Unset
flags fall back to DEEPSEEK_SEARCH_BASE_URL, DEEPSEEK_SEARCH_MODEL,
DEEPSEEK_SEARCH_MAX_TOKENS, DEEPSEEK_SEARCH_MAX_USES and DEEPSEEK_SEARCH_API_VERSION.
`+optionUsage("searchBackend", "messagesBaseURL", "messagesModel", "messagesMaxTokens", "messagesMaxUses", "anthropicVersion", "messagesSummary", "messagesMaxRequestMB")+`
Exit status: 0 success, 1 daily budget spent, 2 usage or input error, 3 missing key, 4 DeepSeek or network error, 130 interrupted.
`)
}

func fetchUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: deepseek-web-retrieval fetch [flags] URL

Fetches one public web page with DeepSeek Fetch and prints it as Markdown,
titled and cut to --fetch-max-chars. A longer page ends with a line naming
the offset of the next part; --offset reads from there. Each run takes the
page from the cache every process on this machine shares while it is fresh
(--disk-page-ttl), else from DeepSeek (one billed request). Local and
private addresses are refused before anything is sent.

Example:
  export DEEPSEEK_API_KEY=sk-...
  deepseek-web-retrieval fetch https://go.dev/doc/go1.26
  deepseek-web-retrieval fetch --offset 15893 https://go.dev/doc/go1.26

`+retrieveFlags()+`  --format markdown           the only format DeepSeek Fetch has
  --offset N                  start at code point N of the page (default 0)
`+optionUsage("fetchMaxChars", "allowedDomains", "blockedDomains")+`
Exit status: 0 success, 1 daily budget spent, 2 usage or input error, 3 missing key, 4 DeepSeek or network error, 130 interrupted.
`)
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var question string
	return retrieve(ctx, "search", args, searchUsage, stdout, stderr,
		func(fl *flag.FlagSet) { fl.StringVar(&question, "question", "", "") },
		func(arg string) core.Operation {
			return core.Operation{Kind: core.KindSearch, Query: arg, OriQuestion: question}
		})
}

func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var format string
	var offset int
	return retrieve(ctx, "fetch", args, fetchUsage, stdout, stderr,
		func(fl *flag.FlagSet) {
			fl.StringVar(&format, "format", "", "")
			fl.Var(decimalFlag{&offset}, "offset", "")
		},
		func(arg string) core.Operation {
			return core.Operation{Kind: core.KindFetch, URL: arg, Format: format, Offset: offset, ContinueHint: cliContinueHint}
		})
}

// cliContinueHint ends the continue line of a part printed by the CLI.
const cliContinueHint = "run again with --offset {offset} for more"

// retrieve is search and fetch: parse flags into options, run the operation
// with net/http, print the result.
func retrieve(ctx context.Context, name string, args []string, usage func(io.Writer), stdout, stderr io.Writer,
	extra func(*flag.FlagSet), operation func(arg string) core.Operation) int {
	// Until the key is resolved, mask the default variable's key: usage
	// errors quote flag values, and a key pasted into a flag is the likely
	// one.
	early := httpdriver.NewMaskingWriter(stderr, os.Getenv(core.DefaultAPIKeyEnv))
	defer early.Flush()
	stderr = early
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		asJSON bool
		o      install.Options
	)
	fl.BoolVar(&asJSON, "json", false, "")
	bindOptionFlags(fl, &o)
	extra(fl)
	positional, code, done := parseInterspersed(fl, args, usage, stdout, stderr)
	if done {
		return code
	}
	if len(positional) != 1 {
		return usageErr(stderr, name, wantOneArgument(name, positional))
	}
	if err := optionEnv(fl, os.Getenv); err != nil {
		return usageErr(stderr, name, err.Error())
	}
	cfg, warnings, err := configFrom(o)
	if err != nil {
		return usageErr(stderr, name, err.Error())
	}
	op := operation(positional[0])
	op.Config, op.APIKey = cfg, cfg.ResolveKey(os.Getenv)
	// From here on every byte printed, by us or by a library through the
	// standard logger, has the key masked. The logger stays routed: net/http
	// may log from its own goroutines after this returns.
	maskedOut, maskedErr := httpdriver.NewMaskingWriter(stdout, op.APIKey), httpdriver.NewMaskingWriter(stderr, op.APIKey)
	defer maskedOut.Flush()
	defer maskedErr.Flush()
	stdout, stderr = maskedOut, maskedErr
	httpdriver.RouteStandardLogger(maskedErr)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "deepseek-web-retrieval: warning: "+w)
	}

	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }, Random: rand.Float64})
	sh := openShared(op.Config, name, stderr)
	defer sh.db.Close()
	d := &httpdriver.Driver{Engine: eng, Client: httpdriver.NewClient(), Shared: sh.cache, Ledger: sh.ledger}
	step := d.Run(ledger.WithHost(ctx, "cli"), op, nil)
	if step.Err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %s\n", name, step.Err.Message)
		return exitCode(step.Err)
	}
	if asJSON {
		var structured any = step.Result.Fetch
		if r := step.Result.Search; r != nil {
			structured = r
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(structured); err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", name, err)
			return exitFailed
		}
		return exitOK
	}
	fmt.Fprintln(stdout, tool.Text(step.Result))
	return exitOK
}

// configFrom validates flag-given options with the core, the same way the
// plugin validates its options object. It returns the core's warnings.
func configFrom(o install.Options) (*core.Config, []string, error) {
	cfg, warnings, err := newConfig(o)
	if err != nil {
		return nil, nil, flagError(err)
	}
	return cfg, warnings, nil
}

// newConfig is configFrom with the core's own *core.OptionError, for callers
// that name options their own way (mcp names environment variables). The
// seed variables of the Messages backend apply (flags win).
func newConfig(o install.Options) (*core.Config, []string, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return nil, nil, err
	}
	parsed, _, err := core.ParseOptions(data)
	if err != nil {
		return nil, nil, err
	}
	if err := applyMessagesEnv(&parsed, os.Getenv); err != nil {
		return nil, nil, err
	}
	return core.NewConfig(parsed)
}

// flagError names an invalid option by its flag.
func flagError(err error) error {
	var oe *core.OptionError
	if errors.As(err, &oe) {
		if s, ok := core.LookupOption(oe.Option); ok && !s.NoFlag {
			return fmt.Errorf("--%s: %s", s.FlagName(), oe.Reason)
		}
	}
	return err
}

func exitCode(e *core.Error) int {
	switch e.Code {
	case core.CodeInvalidInput, core.CodeURLRefused:
		return exitUsage
	case core.CodeMissingKey:
		return exitMissingKey
	case core.CodeCancelled:
		return exitInterrupted
	case core.CodeBudget:
		return exitFailed
	}
	return exitAPI
}
