// Command deepseek-web-retrieval installs the DeepSeek Search/Fetch plugin
// into OpenCode (init, uninstall), runs DeepSeek searches and fetches
// from the shell (search, fetch) and serves them to MCP hosts (mcp).
//
// Usage:
//
//	deepseek-web-retrieval <command> [flags]
//
// Run `deepseek-web-retrieval help <command>` for a command's flags.
//
// Exit codes: 0 success (a plan printed or applied), 1 refused or failed,
// 2 usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Exit codes.
const (
	exitOK     = 0 // done: a plan printed or applied, a result printed
	exitFailed = 1 // refused or failed
	exitUsage  = 2 // bad command line
)

// command is one subcommand. run gets the arguments after the command name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// flags returns a new FlagSet of the command's flags, for its help and
	// tests; nil for a command without flags.
	flags func() *flag.FlagSet
	// help is the command's help but its flags; nil for a command whose
	// summary says it all.
	help *helpText
}

// printHelp prints the command's help, its flags from c.flags.
func (c command) printHelp(w io.Writer) {
	if c.help == nil {
		fmt.Fprintf(w, "deepseek-web-retrieval %s: %s\n", c.name, c.summary)
		return
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	if c.flags != nil {
		fs = c.flags()
	}
	printHelp(w, fs, *c.help)
}

// commands lists the subcommands in the order help shows them.
//
// HOOK for further subcommands: search and fetch are implemented in
// retrieve.go (runSearch, runFetch and their help texts), which is
// maintained separately from this file; add new subcommands to this list.
func commands() []command {
	return []command{
		{"init", "install into OpenCode or an MCP host (prints the plan; --yes applies it)", runInit,
			func() *flag.FlagSet { return newInitFlags(new(initFlags)) }, &initHelp},
		{"uninstall", "reverse exactly what init applied (prints the plan; --yes applies it)", runUninstall,
			func() *flag.FlagSet { return newUninstallFlags(new(whereFlags)) }, &uninstallHelp},
		{"doctor", "check every host's install, its traps and the key variable", runDoctor,
			func() *flag.FlagSet { return newDoctorFlags(new(doctorFlags)) }, &doctorHelp},
		{"search", "search the web with DeepSeek Search", runSearch,
			func() *flag.FlagSet { return newRetrieveFlags("search", new(retrieveFlags)) }, &searchHelp},
		{"fetch", "fetch a web page as Markdown with DeepSeek Fetch", runFetch,
			func() *flag.FlagSet { return newRetrieveFlags("fetch", new(retrieveFlags)) }, &fetchHelp},
		{"mcp", "serve deepseek_search and deepseek_fetch to MCP hosts over stdio", runMCP,
			func() *flag.FlagSet { return newMCPFlags(new(install.Options)) }, &mcpHelp},
		{"serve", "serve the same tools to a team over HTTP: tokens, quotas, audit, Redis", runServe,
			func() *flag.FlagSet { return newServeFlags(new(serveFlags), new(install.Options)) }, &serveHelp},
		{"cache", "show or clear the cache every process on this machine shares", runCache,
			func() *flag.FlagSet { return newCacheFlags(new(bool), new(install.Options)) }, &cacheHelp},
		{"usage", "billed DeepSeek requests, what the cache saved, the budget and the balance", runUsage,
			func() *flag.FlagSet { return newUsageFlags(new(usageFlags)) }, &usageHelp},
		{"install", "put this binary in ~/.local/bin, then init with it (prints the plan; --yes applies it)", runInstall,
			newInstallFlags, &installHelp},
		{"version", "print the version, commit and Go version", runVersion, nil, nil},
		{"help", "show help for a command", runHelp, nil, nil},
	}
}

// subcommands lists the commands of a command (serve token, serve usage),
// which help finds by their two words.
func subcommands() []command {
	return []command{
		{"serve token", "add, revoke or list the members' tokens of a gateway", nil,
			func() *flag.FlagSet { return newTokenFlags(new(string)) }, &tokenHelp},
		{"serve usage", "each member's use of the team gateway", nil,
			func() *flag.FlagSet { return newServeUsageFlags(new(serveUsageFlags)) }, &serveUsageHelp},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program minus the process: tests call it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(ctx, nil, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "deepseek-web-retrieval: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `deepseek-web-retrieval: DeepSeek Search and Fetch for coding agents.

Usage:
  deepseek-web-retrieval <command> [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Example:
  deepseek-web-retrieval init --scope global          # show what would change
  deepseek-web-retrieval init --scope global --yes    # apply it

Run "deepseek-web-retrieval help <command>" for a command's flags.
`)
}

func runHelp(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	if c, ok := lookupHelp(args); ok {
		c.printHelp(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "deepseek-web-retrieval help: unknown command %q\n", args[0])
	return exitUsage
}

// lookupHelp finds the command help args name: a subcommand by its two
// words ("serve usage"), else a command by the first.
func lookupHelp(args []string) (command, bool) {
	if len(args) > 1 {
		for _, c := range subcommands() {
			if c.name == args[0]+" "+args[1] {
				return c, true
			}
		}
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c, true
		}
	}
	return command{}, false
}

// version is the release version and commit the commit it was built from;
// make dist sets both with -ldflags "-X main.version=… -X main.commit=…".
var version, commit = "", ""

func versionString() string {
	if version != "" {
		return version
	}
	v := core.Version
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v += " (module " + bi.Main.Version + ")"
	}
	return v
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "deepseek-web-retrieval version: takes no arguments")
		return exitUsage
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// versionLine is what --version prints: the version, the commit (linked
// in by make dist, else the one the go command stamped) and the Go version
// and platform, e.g.
// "deepseek-web-retrieval 0.1.0 (commit 53d0547…, go1.26.8 linux/amd64)";
// the commit is left out when neither knows it.
func versionLine() string {
	c := commit
	if bi, ok := debug.ReadBuildInfo(); ok && c == "" {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				c = s.Value + c
			case s.Key == "vcs.modified" && s.Value == "true":
				c += "-dirty"
			}
		}
	}
	goVersion := fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if c == "" || strings.HasPrefix(c, "-") { // not known: built without VCS stamping
		return fmt.Sprintf("deepseek-web-retrieval %s (%s)", versionString(), goVersion)
	}
	return fmt.Sprintf("deepseek-web-retrieval %s (commit %s, %s)", versionString(), c, goVersion)
}
