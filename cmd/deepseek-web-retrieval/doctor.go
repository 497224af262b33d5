package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/hosts"
)

var doctorHelp = helpText{
	usage: "deepseek-web-retrieval doctor [--dir DIR] [--no-balance]",
	about: `Checks every host this tool installs into (OpenCode and the MCP hosts of
"init --help"), in the global scope and in the project --dir: whether our
entry is there and parses, whether an install record holds it (if not, the
command that repairs it), whether the vendored OpenCode plugin is complete,
which traps are active for the entry's options, and whether the key's
variable is set in this shell (its value is never printed).

For each MCP entry (a project's only when it is the one init wrote and
recorded, so a cloned project cannot make doctor run a command) it starts
the server as that host would: the entry's command and args, with the
environment the host passes it (Codex: its short list plus env_vars;
Claude Code: ${VAR} and ${VAR:-default}; Gemini CLI: $VAR, with variables
named like secrets dropped; Pi and Cursor: the whole environment), taken
from this shell's. It asks initialize and tools/list (no tool is called,
so DeepSeek is not reached), closes it, and reports "connected, 2 tools
(...)" or why not. It changes nothing.`,
	exit: "0 nothing wrong, 1 a problem found (an entry that does not connect among them), 2 usage error.",
}

// doctorFlags is doctor's command line.
type doctorFlags struct {
	dir       string
	noBalance bool
}

// newDoctorFlags returns doctor's FlagSet, filling f.
func newDoctorFlags(f *doctorFlags) *flag.FlagSet {
	fl := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&f.dir, "dir", "", "`DIR` the project whose configs are checked beside the global ones (default: the current directory)")
	fl.BoolVar(&f.noBalance, "no-balance", false, "do not ask DeepSeek for the account's balance; with DEEPSEEK_API_KEY set, doctor asks for it (GET /user/balance at DEEPSEEK_WEB_RETRIEVAL_BASE_URL, else https://api.deepseek.com)")
	return fl
}

// runDoctor is the doctor command: parseDoctor reads the flags, the hosts
// check their installs, and doctorReport prints what they found.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseDoctor(args, stdout, stderr)
	if !ok {
		return code
	}
	binary, _ := binaryPath("")
	checks := hosts.Doctor(ctx, install.Request{Env: hostEnv(), Dir: f.dir, Binary: binary, Version: versionString()})
	report, problems := doctorReport(ctx, checks, f.noBalance)
	io.WriteString(stdout, report)
	if problems > 0 {
		return exitFailed
	}
	return exitOK
}

// parseDoctor reads doctor's flags; when ok is false the command ends
// with code (help or a usage error, already printed).
func parseDoctor(args []string, stdout, stderr io.Writer) (f doctorFlags, code int, ok bool) {
	fl := newDoctorFlags(&f)
	if code, done := parse(fl, args, doctorHelp, stdout, stderr); done {
		return f, code, false
	}
	if fl.NArg() > 0 {
		return f, usageErr(stderr, "doctor", fmt.Sprintf("unexpected argument %q", fl.Arg(0))), false
	}
	return f, exitOK, true
}

// doctorReport is what doctor prints: the version, the checks, the
// account's balance unless noBalance (or no key is set), and the count of
// problems, which it also returns.
func doctorReport(ctx context.Context, checks []install.Check, noBalance bool) (report string, problems int) {
	var b strings.Builder
	fmt.Fprintf(&b, "deepseek-web-retrieval doctor\n\n  %s\n\n", versionLine())
	problems = writeChecks(&b, checks)
	if key := strings.TrimSpace(os.Getenv(core.DefaultAPIKeyEnv)); key != "" && !noBalance {
		b.WriteString(balanceLine(ctx, key) + "\n")
	}
	if problems > 0 {
		fmt.Fprintf(&b, "\n%d problem(s) found.\n", problems)
	}
	return b.String(), problems
}

// writeChecks prints doctor's sections, the hosts not found, and whether
// each variable the entries read is set (writeVariables). It returns the
// number of problems.
func writeChecks(b *strings.Builder, checks []install.Check) (problems int) {
	var missing []string
	for _, c := range checks {
		if c.Absent {
			missing = append(missing, c.Title)
			continue
		}
		fmt.Fprintf(b, "%s\n", c.Title)
		for _, l := range c.Lines {
			fmt.Fprintf(b, "  - %s\n", l)
		}
		for _, l := range c.Traps {
			fmt.Fprintf(b, "  ! %s\n", l)
		}
		for _, l := range c.Problems {
			fmt.Fprintf(b, "  x %s\n", l)
		}
		problems += len(c.Problems)
		b.WriteString("\n")
	}
	if len(missing) > 0 {
		fmt.Fprintf(b, "Not found on this machine: %s.\n\n", strings.Join(missing, ", "))
	}
	writeVariables(b, checks)
	return problems
}

// writeVariables says whether each variable the entries read is set in
// this shell (never its value).
func writeVariables(b *strings.Builder, checks []install.Check) {
	keys, tokenEnvs := hosts.Variables(checks)
	for _, k := range tokenEnvs {
		if os.Getenv(k) != "" {
			fmt.Fprintf(b, "%s (your gateway token) is set in this shell (value not shown).\n", k)
		} else {
			fmt.Fprintf(b, "%s (your gateway token) is not set in this shell: add `export %s=...` with the token `serve token add` printed for you.\n", k, k)
		}
	}
	for _, k := range keys {
		if os.Getenv(k) != "" {
			fmt.Fprintf(b, "%s is set in this shell (value not shown).\n", k)
		} else {
			fmt.Fprintf(b, "%s is not set in this shell: add `export %s=...` to your shell profile.\n", k, k)
		}
	}
}

// balanceLine is doctor's line on the account: the balance DeepSeek gives
// for key, at the base URL the option variable names (else the default),
// or why it could not be read.
func balanceLine(ctx context.Context, key string) string {
	cfg, _, err := core.NewConfig(core.Options{BaseURL: os.Getenv(core.OptionEnvPrefix + "BASE_URL")})
	if err != nil {
		return "Account balance: not checked (" + err.Error() + ")."
	}
	cfg.TimeoutMs = 5000
	return readBalance(ctx, cfg, key).line()
}
