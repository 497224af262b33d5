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
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
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
	usage   func(w io.Writer)
}

// commands lists the subcommands in the order help shows them.
//
// HOOK for further subcommands: search and fetch are implemented in
// retrieve.go (runSearch, runFetch and their usage functions), which is
// maintained separately from this file; add new subcommands to this list.
func commands() []command {
	return []command{
		{"init", "install into OpenCode or an MCP host (prints the plan; --yes applies it)", runInit, initUsage},
		{"uninstall", "reverse exactly what init applied (prints the plan; --yes applies it)", runUninstall, uninstallUsage},
		{"doctor", "check every host's install, its traps and the key variable", runDoctor, doctorUsage},
		{"search", "search the web with DeepSeek Search", runSearch, searchUsage},
		{"fetch", "fetch a web page as Markdown with DeepSeek Fetch", runFetch, fetchUsage},
		{"mcp", "serve deepseek_search and deepseek_fetch to MCP hosts over stdio", runMCP, mcpUsage},
		{"serve", "serve the same tools to a team over HTTP: tokens, quotas, audit, Redis", runServe, serveUsage},
		{"cache", "show or clear the cache every process on this machine shares", runCache, cacheUsage},
		{"usage", "billed DeepSeek requests, what the cache saved, the budget and the balance", runUsage, usageUsage},
		{"install", "put this binary in ~/.local/bin, then init with it (prints the plan; --yes applies it)", runInstall, installUsage},
		{"version", "print the version, commit and Go version", runVersion, nil},
		{"help", "show help for a command", runHelp, nil},
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
	for _, c := range commands() {
		if c.name == args[0] {
			if c.usage == nil {
				fmt.Fprintf(stdout, "deepseek-web-retrieval %s: %s\n", c.name, c.summary)
			} else {
				c.usage(stdout)
			}
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "deepseek-web-retrieval help: unknown command %q\n", args[0])
	return exitUsage
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
