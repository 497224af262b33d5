package main

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// envPrefix starts the environment variables that set the MCP server's
// options, for hosts whose config can only set the environment:
// DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=5 is --max-results 5.
const envPrefix = core.OptionEnvPrefix

var mcpHelp = helpText{
	usage: "deepseek-web-retrieval mcp [--search TIER] [--fetch TIER] [--api-key-env NAME] [option flags]",
	about: `Serves DeepSeek Search and Fetch as the MCP tools deepseek_search and
deepseek_fetch over stdio (newline-delimited JSON-RPC on stdin and stdout;
diagnostics on stderr). MCP hosts start it themselves: see "Use it from any
MCP host" in docs/hosts.md. It runs until stdin closes or it gets SIGINT/SIGTERM.

The key is read from DEEPSEEK_API_KEY (or --api-key-env) at every call, so the
server starts and lists its tools without it; a call without it fails with a
message naming the variable.

Every flag can also be set as an environment variable named DEEPSEEK_WEB_RETRIEVAL_
and the flag in upper case with underscores (DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=5,
DEEPSEEK_WEB_RETRIEVAL_FETCH=preferred); a flag wins over its variable.`,
	examples: []string{
		"claude mcp add deepseek -e DEEPSEEK_API_KEY=sk-... -- deepseek-web-retrieval mcp --fetch preferred",
	},
	groups: []flagGroup{
		{"Flags (the options of docs/options.md, in kebab-case):", optionFlags()},
	},
	exit: "0 stdin closed or a signal, 2 invalid options (reported on stderr).",
}

// newMCPFlags returns mcp's FlagSet, filling o: the options' flags.
func newMCPFlags(o *install.Options) *flag.FlagSet {
	fl := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	bindOptionFlags(fl, o)
	return fl
}

// runMCP is the mcp command: options from flags and the environment, then
// the server on stdin/stdout until EOF or a signal.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Until the key is resolved, mask the default variable's key: usage
	// errors quote flag and variable values.
	early := httpdriver.NewMaskingWriter(stderr, os.Getenv(core.DefaultAPIKeyEnv))
	defer early.Flush()
	stderr = early
	var o install.Options
	fl := newMCPFlags(&o)
	positional, code, done := parseInterspersed(fl, args, mcpHelp, stdout, stderr)
	if done {
		return code
	}
	if len(positional) > 0 {
		return usageErr(stderr, "mcp", fmt.Sprintf("takes no arguments, got %q (options are flags, e.g. --max-results 5)", positional[0]))
	}
	fromEnv, err := optionsFromEnv(fl, os.Environ(), stderr)
	if err != nil {
		return usageErr(stderr, "mcp", err.Error())
	}
	cfg, warnings, err := newConfig(o)
	if err != nil {
		var oe *core.OptionError
		if errors.As(err, &oe) && fromEnv[strings.TrimPrefix(optionFlag(oe.Option), "--")] {
			err = fmt.Errorf("%s: %s", envName(strings.TrimPrefix(optionFlag(oe.Option), "--")), oe.Reason)
		} else {
			err = flagError(err)
		}
		return usageErr(stderr, "mcp", err.Error())
	}

	// From here on every byte on stderr, ours or a library's through the
	// standard logger (net/http quotes a server's stray bytes there), has
	// the key masked. Tool results are masked by the core; stdout carries
	// only JSON-RPC.
	masked := httpdriver.NewMaskingWriter(stderr, cfg.ResolveKey(os.Getenv))
	defer masked.Flush()
	stderr = masked
	httpdriver.RouteStandardLogger(masked)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "deepseek-web-retrieval mcp: warning: "+w)
	}
	for _, t := range []struct {
		tier       core.Tier
		flag, tool string
	}{{cfg.Search, "search", "web search"}, {cfg.Fetch, "fetch", "web fetch"}} {
		if t.tier == core.TierForced {
			fmt.Fprintf(stderr, "deepseek-web-retrieval mcp: note: --%s forced works like preferred: an MCP server cannot switch off the host's own %s tool; switch it off in the host's config (see docs/hosts.md)\n", t.flag, t.tool)
		}
	}
	setMemoryLimit(cfg, os.Getenv)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stderr, "deepseek-web-retrieval mcp: serving %s on stdio; the key is read from $%s at each call\n", describe(cfg), cfg.APIKeyEnv)
	sh := openShared(cfg, "mcp", stderr)
	defer sh.db.Close()
	err = mcp.Serve(ctx, mcp.Options{Config: cfg, Version: versionString(), Shared: sh.cache, Ledger: sh.ledger}, &mcp.StdioTransport{Reader: os.Stdin, Writer: stdout})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "deepseek-web-retrieval mcp: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// setMemoryLimit tells Go's collector how much the server means to hold:
// the cache, the calls admitted under maxHeldMB with room for their
// garbage, and the program itself (cacheMaxMB + 1.5 × maxHeldMB + 32 MiB;
// 192 MiB by default). It is a soft limit: under load the collector runs
// more often instead of letting the heap double. GOMEMLIMIT, when set,
// wins.
func setMemoryLimit(cfg *core.Config, getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	limit := cfg.CacheMaxBytes + cfg.Limits.MaxHeldBytes*3/2 + 32<<20
	debug.SetMemoryLimit(limit)
	return limit
}

// optionsFromEnv sets every flag not given on the command line from its
// DEEPSEEK_WEB_RETRIEVAL_ variable (optionEnv), reports which it set, and
// warns about variables with the prefix that name no flag.
func optionsFromEnv(fl *flag.FlagSet, environ []string, stderr io.Writer) (map[string]bool, error) {
	known := map[string]bool{}
	fl.VisitAll(func(f *flag.Flag) { known[envName(f.Name)] = true })
	env := map[string]string{}
	var unknown []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case !strings.HasPrefix(name, envPrefix):
		case known[name]:
			env[name] = value
		default:
			unknown = append(unknown, name)
		}
	}
	fromEnv, err := optionEnv(fl, func(name string) string { return env[name] })
	if err != nil {
		return nil, err
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		fmt.Fprintf(stderr, "deepseek-web-retrieval mcp: warning: %s is not an option variable; ignored\n", name)
	}
	return fromEnv, nil
}

// envName is the variable of a flag: max-results → DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// describe says what the server offers, for its start line on stderr.
func describe(cfg *core.Config) string {
	var parts []string
	for _, t := range mcp.Tools(cfg) {
		tier := cfg.Search
		if t.Name == mcp.FetchTool {
			tier = cfg.Fetch
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", t.Name, tier))
	}
	if len(parts) == 0 {
		return "no tools (--search and --fetch are both off)"
	}
	return strings.Join(parts, " and ")
}
