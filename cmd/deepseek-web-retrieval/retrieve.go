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

// retrieveExit is the exit status line of search's and fetch's help.
const retrieveExit = "0 success, 1 daily budget spent, 2 usage or input error, 3 missing key, 4 DeepSeek or network error, 130 interrupted."

// retrieveEnv ends the about text of search and fetch.
const retrieveEnv = `Each option flag not given is read from its DEEPSEEK_WEB_RETRIEVAL_
variable, as mcp reads it (DEEPSEEK_WEB_RETRIEVAL_DAILY_BUDGET=200).`

// otherOptions is the section of the options search or fetch takes as
// mcp does but does not single out.
var otherOptions = flagGroup{"Other options (as for mcp):", nil}

var searchHelp = helpText{
	usage: "deepseek-web-retrieval search [flags] QUERY",
	about: `Searches the web with DeepSeek Search and prints what a model would see: per
result its title, URL, quality marker, date and summary.

With --search-backend messages (docs/messages.md) a search is one DeepSeek
model turn on the Anthropic-compatible Messages endpoint that runs the
server-side web_search tool (billed as tokens plus searches; --json shows
the usage); results carry the passages DeepSeek cited. Defaults there:
--max-results 8, --timeout-ms 60000. Unset flags fall back to
DEEPSEEK_SEARCH_BASE_URL, DEEPSEEK_SEARCH_MODEL, DEEPSEEK_SEARCH_MAX_TOKENS,
DEEPSEEK_SEARCH_MAX_USES and DEEPSEEK_SEARCH_API_VERSION.

` + retrieveEnv,
	examples: []string{
		"export DEEPSEEK_API_KEY=sk-...",
		`deepseek-web-retrieval search --max-results 5 --blocked-domains pinterest.com "wasi preview 2 status"`,
	},
	groups: []flagGroup{
		{"Flags (the options of docs/options.md, in kebab-case):", append([]string{"json", "question"},
			optionFlags("apiKeyEnv", "baseURL", "timeoutMs", "maxRetries", "maxResults", "maxSummaryChars", "minRerank", "minAuthority", "allowUnknownAuthority", "includeDomains", "blockedDomains", "language", "localization")...)},
		{"Backend:", append(messagesFlags(), optionFlags("messagesMaxRequestMB")...)},
		otherOptions,
	},
	exit: retrieveExit,
}

var fetchHelp = helpText{
	usage: "deepseek-web-retrieval fetch [flags] URL",
	about: `Fetches one public web page with DeepSeek Fetch and prints it as Markdown,
titled and cut to --fetch-max-chars. A longer page ends with a line naming
the offset of the next part; --offset reads from there. Each run takes the
page from the cache every process on this machine shares while it is fresh
(--disk-page-ttl), else from DeepSeek (one billed request). Local and
private addresses are refused before anything is sent.

` + retrieveEnv,
	examples: []string{
		"export DEEPSEEK_API_KEY=sk-...",
		"deepseek-web-retrieval fetch https://go.dev/doc/go1.26",
		"deepseek-web-retrieval fetch --offset 15893 https://go.dev/doc/go1.26",
	},
	groups: []flagGroup{
		{"Flags (the options of docs/options.md, in kebab-case):", append([]string{"json", "format", "offset"},
			optionFlags("apiKeyEnv", "baseURL", "timeoutMs", "maxRetries", "fetchMaxChars", "allowedDomains", "blockedDomains")...)},
		otherOptions,
	},
	exit: retrieveExit,
}

// retrieveFlags is the command line of search or fetch.
type retrieveFlags struct {
	asJSON  bool
	options install.Options
	// question is search's --question.
	question string
	// format and offset are fetch's.
	format string
	offset int
}

// newRetrieveFlags returns the FlagSet of search or fetch (name), filling
// f.
func newRetrieveFlags(name string, f *retrieveFlags) *flag.FlagSet {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.BoolVar(&f.asJSON, "json", false, "print the structured result as JSON")
	bindOptionFlags(fl, &f.options)
	switch name {
	case "search":
		fl.StringVar(&f.question, "question", "", "`TEXT` the user's original question (sent as ori_question)")
	case "fetch":
		fl.StringVar(&f.format, "format", "", "`markdown` the only format DeepSeek Fetch has")
		fl.Var(decimalFlag{&f.offset}, "offset", "`N` start at code point N of the page")
	}
	return fl
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return retrieve(ctx, "search", args, searchHelp, stdout, stderr, func(f *retrieveFlags, arg string) core.Operation {
		return core.Operation{Kind: core.KindSearch, Query: arg, OriQuestion: f.question}
	})
}

func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return retrieve(ctx, "fetch", args, fetchHelp, stdout, stderr, func(f *retrieveFlags, arg string) core.Operation {
		return core.Operation{Kind: core.KindFetch, URL: arg, Format: f.format, Offset: f.offset, ContinueHint: cliContinueHint}
	})
}

// cliContinueHint ends the continue line of a part printed by the CLI.
const cliContinueHint = "run again with --offset {offset} for more"

// retrieve is search and fetch: parseRetrieve reads the flags into an
// operation, run runs it with net/http, and print prints the result.
func retrieve(ctx context.Context, name string, args []string, help helpText, stdout, stderr io.Writer,
	operation func(f *retrieveFlags, arg string) core.Operation) int {
	// Until the key is resolved, mask the default variable's key: usage
	// errors quote flag values, and a key pasted into a flag is the likely
	// one.
	early := httpdriver.NewMaskingWriter(stderr, os.Getenv(core.DefaultAPIKeyEnv))
	defer early.Flush()
	stderr = early
	c, code, ok := parseRetrieve(name, args, help, operation, stdout, stderr)
	if !ok {
		return code
	}
	// From here on every byte printed, by us or by a library through the
	// standard logger, has the key masked. The logger stays routed: net/http
	// may log from its own goroutines after this returns.
	maskedOut, maskedErr := httpdriver.NewMaskingWriter(stdout, c.op.APIKey), httpdriver.NewMaskingWriter(stderr, c.op.APIKey)
	defer maskedOut.Flush()
	defer maskedErr.Flush()
	stdout, stderr = maskedOut, maskedErr
	httpdriver.RouteStandardLogger(maskedErr)
	for _, w := range c.warnings {
		fmt.Fprintln(stderr, "deepseek-web-retrieval: warning: "+w)
	}
	step := c.run(ctx, stderr)
	if step.Err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %s\n", name, step.Err.Message)
		return exitCode(step.Err)
	}
	return c.print(step.Result, stdout, stderr)
}

// retrieveCall is one search or fetch, its flags read and checked.
type retrieveCall struct {
	name     string // search or fetch
	op       core.Operation
	warnings []string // the core's, on the options
	asJSON   bool
}

// parseRetrieve reads the flags of search or fetch (name), and the
// DEEPSEEK_WEB_RETRIEVAL_ variables of the flags not given, into the
// operation to run; when ok is false the command ends with code (help or
// a usage error, already printed).
func parseRetrieve(name string, args []string, help helpText, operation func(f *retrieveFlags, arg string) core.Operation,
	stdout, stderr io.Writer) (c retrieveCall, code int, ok bool) {
	var f retrieveFlags
	fl := newRetrieveFlags(name, &f)
	positional, code, done := parseInterspersed(fl, args, help, stdout, stderr)
	if done {
		return c, code, false
	}
	if len(positional) != 1 {
		return c, usageErr(stderr, name, wantOneArgument(name, positional)), false
	}
	if _, err := optionEnv(fl, os.Getenv); err != nil {
		return c, usageErr(stderr, name, err.Error()), false
	}
	cfg, warnings, err := configFrom(f.options)
	if err != nil {
		return c, usageErr(stderr, name, err.Error()), false
	}
	c = retrieveCall{name: name, op: operation(&f, positional[0]), warnings: warnings, asJSON: f.asJSON}
	c.op.Config, c.op.APIKey = cfg, cfg.ResolveKey(os.Getenv)
	return c, exitOK, true
}

// run runs the call with net/http, the machine's shared cache and its
// ledger; warnings about them go to stderr.
func (c retrieveCall) run(ctx context.Context, stderr io.Writer) core.Step {
	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }, Random: rand.Float64})
	sh := openShared(c.op.Config, c.name, stderr)
	defer sh.db.Close()
	d := &httpdriver.Driver{Engine: eng, Client: httpdriver.NewClient(), Shared: sh.cache, Ledger: sh.ledger}
	return d.Run(ledger.WithHost(ctx, "cli"), c.op, nil)
}

// print prints a result as the model sees it, or with --json as JSON.
func (c retrieveCall) print(r *core.Result, stdout, stderr io.Writer) int {
	if !c.asJSON {
		fmt.Fprintln(stdout, tool.Text(r))
		return exitOK
	}
	var structured any = r.Fetch
	if r.Search != nil {
		structured = r.Search
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(structured); err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", c.name, err)
		return exitFailed
	}
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
