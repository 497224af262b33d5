package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install/hosts"
)

func doctorUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: deepseek-web-retrieval doctor [--dir DIR]

Checks every host this tool installs into (OpenCode, Codex, Claude Code,
Gemini CLI, Pi, Cursor), in the global scope and in the project DIR
(default: the current directory): whether our entry is there and parses,
whether an install record holds it (if not, the command that repairs it),
whether the vendored OpenCode plugin is complete, which traps are active for
the entry's options, and whether the key's variable is set in this shell
(its value is never printed).

For each MCP entry (a project's only when it is the one init wrote and
recorded, so a cloned project cannot make doctor run a command) it starts
the server as that host would: the entry's command and args, with the
environment the host passes it (Codex: its short list plus env_vars;
Claude Code: ${VAR} and ${VAR:-default}; Gemini CLI: $VAR, with variables
named like secrets dropped; Pi and Cursor: the whole environment), taken
from this shell's. It asks initialize and tools/list (no tool is called,
so DeepSeek is not reached), closes it, and reports "connected, 2 tools
(...)" or why not. It changes nothing.

Exit status: 0 nothing wrong, 1 a problem found (an entry that does not
connect among them), 2 usage error.
`)
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var dir string
	fl.StringVar(&dir, "dir", "", "")
	if code, done := parse(fl, args, doctorUsage, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 {
		return usageErr(stderr, "doctor", fmt.Sprintf("unexpected argument %q", fl.Arg(0)))
	}
	var b strings.Builder
	problems := 0
	keys, tokenEnvs := []string{}, []string{}
	addKey := func(k string) {
		if k == "" {
			k = install.DefaultAPIKeyEnv
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	section := func(title string, lines, traps, probs []string) {
		fmt.Fprintf(&b, "%s\n", title)
		for _, l := range lines {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
		for _, l := range traps {
			fmt.Fprintf(&b, "  ! %s\n", l)
		}
		for _, l := range probs {
			fmt.Fprintf(&b, "  x %s\n", l)
		}
		problems += len(probs)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "deepseek-web-retrieval doctor\n\n  %s\n\n", versionLine())

	// A run that was killed before it finished.
	if r, found, err := install.Pending(stateDir()); err != nil {
		section("Installer state", nil, nil, []string{err.Error()})
	} else if found {
		section("Installer state", nil, nil, []string{fmt.Sprintf(
			"an %s (process %d, started %s) was interrupted before it finished; run `deepseek-web-retrieval %s --yes` (with the same --host and --scope) and it reverses what the interrupted run did first",
			r.Command, r.PID, r.Started, r.Command)})
	}

	binary, _ := binaryPath("")
	var missing []string
	for _, c := range hosts.Doctor(ctx, install.Request{Env: hostEnv(), Dir: dir, Binary: binary, Version: versionString()}) {
		switch {
		case c.Absent:
			missing = append(missing, c.Title)
			continue
		case c.Installed && c.TokenEnv != "":
			if !slices.Contains(tokenEnvs, c.TokenEnv) {
				tokenEnvs = append(tokenEnvs, c.TokenEnv)
			}
		case c.Installed:
			addKey(c.KeyEnv)
		}
		section(c.Title, c.Lines, c.Traps, c.Problems)
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "Not found on this machine: %s.\n\n", strings.Join(missing, ", "))
	}
	// A member whose every entry points at a gateway needs no key, only
	// the token.
	if len(keys) == 0 && len(tokenEnvs) == 0 {
		keys = []string{install.DefaultAPIKeyEnv}
	}
	for _, k := range tokenEnvs {
		if os.Getenv(k) != "" {
			fmt.Fprintf(&b, "%s (your gateway token) is set in this shell (value not shown).\n", k)
		} else {
			fmt.Fprintf(&b, "%s (your gateway token) is not set in this shell: add `export %s=...` with the token `serve token add` printed for you.\n", k, k)
		}
	}
	for _, k := range keys {
		if os.Getenv(k) != "" {
			fmt.Fprintf(&b, "%s is set in this shell (value not shown).\n", k)
		} else {
			fmt.Fprintf(&b, "%s is not set in this shell: add `export %s=...` to your shell profile.\n", k, k)
		}
	}
	if problems > 0 {
		fmt.Fprintf(&b, "\n%d problem(s) found.\n", problems)
	}
	io.WriteString(stdout, b.String())
	if problems > 0 {
		return exitFailed
	}
	return exitOK
}
