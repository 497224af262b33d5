package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/hosts"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/plugin"
)

// pluginFiles supplies the plugin directory init copies; tests replace it.
var pluginFiles = plugin.Files

// versionTimeout bounds a host program's --version; tests shorten it.
var versionTimeout = 20 * time.Second

// hostEnv reads the hosts' environment from the process. Each host
// program's version is asked once per run, however many hosts ask.
func hostEnv() install.Env {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	var mu sync.Mutex
	progs := map[string]install.Program{}
	return install.Env{
		Home: home, WorkDir: wd, GOOS: runtime.GOOS, Environ: os.Environ(), LookPath: exec.LookPath,
		Program: func(name string) install.Program {
			mu.Lock()
			defer mu.Unlock()
			p, ok := progs[name]
			if !ok {
				p = install.FindProgram(name, exec.LookPath, func(ctx context.Context, path string, args ...string) ([]byte, error) {
					return exec.CommandContext(ctx, path, args...).Output()
				}, versionTimeout)
				progs[name] = p
			}
			return p
		},
	}
}

// usageText prints a usage text, its {hosts} the registry's --host values.
func usageText(w io.Writer, text string) {
	text = strings.ReplaceAll(text, "{options}", optionUsage())
	io.WriteString(w, strings.ReplaceAll(text, "{hosts}", strings.Join(hosts.Names(), "|")))
}

// hostList is the --host values but auto, for messages.
func hostList() string { return strings.Join(hosts.Names(), ", ") }

func initUsage(w io.Writer) {
	usageText(w, `Usage: deepseek-web-retrieval init [flags]

Installs DeepSeek Search/Fetch into your coding agents: the OpenCode plugin,
or the MCP server (this binary's "mcp" command) for Codex, Claude Code,
Gemini CLI, Pi and Cursor. Without --yes it only prints the plan: every file
it would create or change, with a diff of each config (credentials masked).
With --yes it applies exactly that plan.

Config files are edited in place: comments, formatting and other entries are
kept, arrays and tables are merged, and running init again with the same
flags changes nothing. The API key is never written: set DEEPSEEK_API_KEY (or
the variable named by --api-key-env) in your shell profile.

Examples:
  deepseek-web-retrieval init --scope global
  deepseek-web-retrieval init --scope global --search preferred --fetch optional --yes
  deepseek-web-retrieval init --host codex --search forced --yes
  deepseek-web-retrieval init --scope project --dir ~/src/app --max-results 5 --yes
  deepseek-web-retrieval init --host codex --remote https://gw.example.com --token-env TEAM_TOKEN

Where:
  --host {hosts}|auto
                           auto (default): every host found on this machine
                           (its program on PATH or its config directory);
                           for OpenCode, the version of the opencode on PATH
                           picks the 2.x "plugins" or 1.x "plugin" key, else
                           the key the config already has
  --scope global|project   global (default): the user's config of each host;
                           project: the --dir directory (OpenCode: its
                           .opencode/ in Go and Composer projects, whose
                           tools own vendor/)
  --dir DIR                project directory (default: the current directory)
  --binary PATH            the binary MCP hosts start (default: this one;
                           make install puts it in ~/.local/bin)
  --plugin-source vendor|npm
                           how OpenCode gets the plugin. vendor (default):
                           copied to vendor/deepseek-web-retrieval/ beside
                           the config, which names "./vendor/deepseek-web-
                           retrieval". npm: the config names the package
                           pinned to this binary's version,
                           "@deepseek-web-retrieval/opencode@VERSION", and
                           OpenCode installs it itself; nothing is vendored.
                           install defaults to npm when its binary came from
                           npm. Switching replaces the entry and adds or
                           deletes the vendored files
  --remote URL             point the hosts at a team gateway (deepseek-web-
                           retrieval serve) instead of starting this binary:
                           https, or http on a loopback address; /mcp when
                           the URL has no path. Codex, Claude Code, Gemini
                           CLI, Cursor and OpenCode (its "mcp" key, instead
                           of the plugin); the DeepSeek key stays on the
                           gateway, and only --search and --fetch apply here
  --token-env NAME         the variable holding your gateway token (default
                           DEEPSEEK_WEB_RETRIEVAL_TOKEN); the entry names it
                           in the host's syntax, never the token itself
  --sign-in                with --remote: the gateway signs members in through
                           the organisation's identity provider (serve
                           --oidc-issuer). Claude Code, VS Code and Codex get
                           an entry with no token and sign in themselves
                           (Codex: codex mcp login deepseek-web-retrieval);
                           the other hosts keep the --token-env entry
  --yes                    apply the plan instead of only printing it

Options (only those given are written, plus the two tiers; README, "Options"):
{options}
Exit status: 0 plan printed or applied, 1 refused or failed, 2 usage error.
`)
}

func uninstallUsage(w io.Writer) {
	usageText(w, `Usage: deepseek-web-retrieval uninstall [flags]

Reverses exactly what init applied, using the install record init left
(OpenCode: vendor/deepseek-web-retrieval.install.json beside the config; MCP
hosts: ~/.local/state/deepseek-web-retrieval/installs/): removes the entry
(and the array, table or file init created), the vendored files and the
record; edits made since to other parts of a config are kept. Without --yes
it only prints the plan. With nothing installed it says so and exits 0. It
refuses, and says how to undo by hand, when the entry or a vendored file was
changed or the record is missing.

Example:
  deepseek-web-retrieval uninstall --scope global
  deepseek-web-retrieval uninstall --scope global --yes

Where:
  --host {hosts}|auto
                           auto (default): every host with something of ours
  --scope global|project   as for init (default global)
  --dir DIR                project directory (default: the current directory)
  --yes                    apply the plan instead of only printing it

Exit status: 0 plan printed or applied, 1 refused or failed, 2 usage error.
`)
}

// binaryPath is the absolute path MCP hosts are told to start: --binary,
// else this executable (symlinks resolved).
func binaryPath(flagValue string) (string, error) {
	p := flagValue
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		p = exe
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p, stableBinary(p) // managedpath.go
}

// planned is one host's plan, or why there is none.
type planned struct {
	host string
	plan *install.Plan
	err  error
}

func runInit(_ context.Context, args []string, stdout, stderr io.Writer) int {
	run, code, done := initFlags(args, stdout, stderr)
	if done {
		return code
	}
	jobs, err := hosts.Init(run.req, run.host, func(note string) { fmt.Fprintf(stderr, "deepseek-web-retrieval init: %s\n", note) })
	if hosts.NoHost(err) {
		fmt.Fprintf(stdout, "deepseek-web-retrieval init: nothing to install into: %v.\nInstall one, then run init again, or name one with --host (%s).\n", err, hostList())
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval init: %v\n", err)
		return exitFailed
	}
	return runPlans("init", jobs, run.yes, stdout, stderr)
}

// initRun is init's command line: the request, --host and --yes.
type initRun struct {
	req  install.Request
	host string
	yes  bool
}

// initFlags parses and checks init's flags; done reports that the command
// is over (help or a usage error) with the given exit code.
func initFlags(args []string, stdout, stderr io.Writer) (run initRun, code int, done bool) {
	usage := func(msg string) (initRun, int, bool) { return run, usageErr(stderr, "init", msg), true }
	fl := flag.NewFlagSet("init", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		scope, dir, bin, source string
		remoteURL, tokenEnv     string
		signIn                  bool
		o                       install.Options
	)
	fl.StringVar(&scope, "scope", "global", "")
	fl.StringVar(&dir, "dir", "", "")
	fl.StringVar(&run.host, "host", "auto", "")
	fl.StringVar(&bin, "binary", "", "")
	fl.StringVar(&source, "plugin-source", "", "")
	fl.StringVar(&remoteURL, "remote", "", "")
	fl.StringVar(&tokenEnv, "token-env", "", "")
	fl.BoolVar(&signIn, "sign-in", false, "")
	fl.BoolVar(&run.yes, "yes", false, "")
	bindOptionFlags(fl, &o) // optflags.go: one flag per SPEC §5 option
	fl.Var(noKeyFlag{}, "api-key", "")
	if code, done := parse(fl, args, initUsage, stdout, stderr); done {
		return run, code, true
	}
	if fl.NArg() > 0 {
		return usage(fmt.Sprintf("unexpected argument %q", fl.Arg(0)))
	}
	sc, err := install.ParseScope(scope)
	if err != nil {
		return usage("--scope: " + err.Error())
	}
	if err := hosts.CheckName(run.host); err != nil {
		return usage("--host: " + err.Error())
	}
	if dir != "" && sc != install.ScopeProject {
		return usage("--dir applies only to --scope project")
	}
	spec, err := pluginSpec(source)
	if err != nil {
		return usage("--plugin-source: " + err.Error())
	}
	o.Language = strings.Join(splitList(o.Language), ",")
	if err := install.Validate(o); err != nil {
		var oe *install.OptionError
		if errors.As(err, &oe) {
			return usage(fmt.Sprintf("invalid %s: %s", optionFlag(oe.Option), oe.Msg))
		}
		return usage(err.Error())
	}
	var remote *install.Remote
	var binary string
	switch {
	case remoteURL != "":
		if remote, err = install.ParseRemote(remoteURL, tokenEnv); err != nil {
			return usage(err.Error())
		}
		remote.SignIn = signIn
		if bin != "" || source != "" {
			return usage("--remote points the hosts at a gateway: --binary and --plugin-source do not apply")
		}
		if err := install.RemoteOptions(o); err != nil {
			return usage(err.Error())
		}
	case tokenEnv != "":
		return usage("--token-env applies only with --remote")
	case signIn:
		return usage("--sign-in applies only with --remote")
	default:
		if binary, err = binaryPath(bin); err != nil {
			return usage("--binary: " + err.Error())
		}
	}
	run.req = install.Request{Env: hostEnv(), Scope: sc, Dir: dir, Options: o, Binary: binary, Remote: remote, Plugin: pluginFiles(), Package: spec, Version: versionString()}
	return run, 0, false
}

// pluginSpec turns --plugin-source into the npm spec OpenCode's entry
// names: "" for vendor, the plugin package pinned to this binary's version
// for npm. An empty flag means vendor (install passes npm on when its binary
// came from npm, see defaultPluginSource).
func pluginSpec(source string) (string, error) {
	v := version
	if v == "" {
		v = core.Version
	}
	return hosts.PluginPackage(source, v)
}

func runUninstall(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		scope, dir, host string
		yes              bool
	)
	fl.StringVar(&scope, "scope", "global", "")
	fl.StringVar(&dir, "dir", "", "")
	fl.StringVar(&host, "host", "auto", "")
	fl.BoolVar(&yes, "yes", false, "")
	if code, done := parse(fl, args, uninstallUsage, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 {
		return usageErr(stderr, "uninstall", fmt.Sprintf("unexpected argument %q", fl.Arg(0)))
	}
	sc, err := install.ParseScope(scope)
	if err != nil {
		return usageErr(stderr, "uninstall", "--scope: "+err.Error())
	}
	if err := hosts.CheckName(host); err != nil {
		return usageErr(stderr, "uninstall", "--host: "+err.Error())
	}
	if dir != "" && sc != install.ScopeProject {
		return usageErr(stderr, "uninstall", "--dir applies only to --scope project")
	}
	jobs := hosts.Uninstall(install.Request{Env: hostEnv(), Scope: sc, Dir: dir}, host)
	return runPlans("uninstall", jobs, yes, stdout, stderr)
}

// stateDir is the installer's state directory: the journal of a run that
// is applying, and the MCP hosts' install records.
func stateDir() string {
	home, _ := os.UserHomeDir()
	return install.StateDir(home, os.Getenv("XDG_STATE_HOME"))
}

// lockAndRecover takes the installer's locks (the state directory's first,
// which every run shares, so two runs never interleave; then each config
// directory, sorted) and reverses a run that a crash interrupted, saying
// so on stderr. It returns the function that releases the locks.
func lockAndRecover(cmd string, dirs []string, stderr io.Writer) (func(), error) {
	release, rec, found, err := install.LockRun(stateDir(), dirs)
	if found {
		reportRecovery(stderr, cmd, rec)
	}
	return release, err
}

// reportRecovery tells the user what was done about an interrupted run.
func reportRecovery(w io.Writer, cmd string, r install.Recovery) {
	fmt.Fprintf(w, "deepseek-web-retrieval %s: an earlier %s (process %d, started %s) was interrupted before it finished; reversed what it had done:\n", cmd, r.Command, r.PID, r.Started)
	if len(r.Done) == 0 {
		fmt.Fprintf(w, "  - it had changed nothing yet\n")
	}
	for _, d := range r.Done {
		fmt.Fprintf(w, "  - %s\n", d)
	}
	for _, l := range r.Left {
		fmt.Fprintf(w, "  ! left %s as it is: it changed after the interrupted run wrote it\n", l)
	}
}

// runPlans takes the locks, recovers an interrupted run, makes every plan,
// and with --yes applies them as one transaction only when every plan
// could be made: a refusal or a failure for one host leaves every host's
// files as they were. Empty uninstall plans of auto runs are not shown.
func runPlans(cmd string, jobs []hosts.Job, yes bool, stdout, stderr io.Writer) int {
	var dirs []string
	for _, j := range jobs {
		dirs = append(dirs, j.Dir)
	}
	unlock, err := lockAndRecover(cmd, dirs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
		return exitFailed
	}
	defer unlock()
	var plans []planned
	failed := false
	for _, j := range jobs {
		p, err := j.Plan()
		if oe := (*install.OptionError)(nil); errors.As(err, &oe) {
			return usageErr(stderr, cmd, fmt.Sprintf("invalid %s: %s", optionFlag(oe.Option), oe.Msg))
		}
		failed = failed || err != nil
		plans = append(plans, planned{j.Host, p, err})
	}
	quiet := cmd == "uninstall" && len(jobs) > 1
	applied := false
	var applyErr error
	if yes && !failed {
		tx := install.Tx{StateDir: stateDir(), Command: cmd}
		for _, pl := range plans {
			if !pl.plan.Empty() {
				tx.Plans = append(tx.Plans, pl.plan)
			}
		}
		applyErr = tx.Apply()
		applied = applyErr == nil
		failed = applyErr != nil
	}
	shown := 0
	for _, pl := range plans {
		switch {
		case pl.err != nil && pl.plan == nil:
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s (%s): %v\n", cmd, pl.host, pl.err)
		case quiet && pl.plan.Empty():
		default:
			if shown > 0 {
				fmt.Fprintln(stdout)
			}
			shown++
			if err := pl.plan.Render(stdout, applied); err != nil {
				fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
				return exitFailed
			}
		}
	}
	switch {
	case applyErr != nil:
		fmt.Fprintf(stderr, "\ndeepseek-web-retrieval %s: applying the plans failed: %v\n", cmd, applyErr)
		if !strings.Contains(applyErr.Error(), "rolling back also failed") {
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s: nothing was applied: %s\n", cmd, unchanged(plans))
		}
		return exitFailed
	case failed:
		if yes {
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s: nothing was applied, because a plan above could not be made: %s (--host HOST acts on one host only)\n", cmd, unchanged(plans))
		}
		return exitFailed
	}
	if shown == 0 && cmd == "uninstall" {
		fmt.Fprintln(stdout, "deepseek-web-retrieval uninstall: nothing to uninstall: no host has an install by this tool ("+hostList()+").")
	}
	return exitOK
}

// unchanged names what each host's files hold after a run that applied
// nothing.
func unchanged(plans []planned) string {
	var names []string
	for _, pl := range plans {
		if pl.plan != nil && !pl.plan.Empty() {
			names = append(names, filepath.Join(pl.plan.ConfigDir, pl.plan.ConfigFile)+" ("+pl.host+")")
		}
	}
	if len(names) == 0 {
		return "no file was changed"
	}
	return "these files are as they were before this run: " + strings.Join(names, ", ")
}

// parse parses flags; done reports that the command is over (help or a
// flag error) with the given exit code. Positional arguments are left to
// the caller (fl.Args()).
func parse(fl *flag.FlagSet, args []string, usage func(io.Writer), stdout, stderr io.Writer) (code int, done bool) {
	err := fl.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return exitOK, true
	case err != nil:
		return usageErr(stderr, fl.Name(), dashdash(err.Error())), true
	}
	return 0, false
}

// dashdash rewrites the flag package's "-name" to the "--name" users type.
func dashdash(msg string) string { return singleDash.ReplaceAllString(msg, "${1}--${2}") }

var singleDash = regexp.MustCompile(`(^|\s)-([a-z][a-z-]*)`)

func usageErr(stderr io.Writer, cmd, msg string) int {
	fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %s\nRun \"deepseek-web-retrieval help %s\" for usage.\n", cmd, msg, cmd)
	return exitUsage
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type intFlag struct{ p **int }

func (f intFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	return strconv.Itoa(**f.p)
}

func (f intFlag) Set(s string) error {
	n, err := parseDecimalInt(s)
	if err != nil {
		return err
	}
	*f.p = &n
	return nil
}

type floatFlag struct{ p **float64 }

func (f floatFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	return strconv.FormatFloat(**f.p, 'g', -1, 64)
}

func (f floatFlag) Set(s string) error {
	x, err := parseDecimalFloat(s)
	if err != nil {
		return err
	}
	*f.p = &x
	return nil
}

type boolFlag struct{ p **bool }

func (f boolFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	return strconv.FormatBool(**f.p)
}

func (f boolFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*f.p = &b
	return nil
}

func (boolFlag) IsBoolFlag() bool { return true }

type listFlag struct{ p *[]string }

func (f listFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

func (f listFlag) Set(s string) error {
	*f.p = append(*f.p, splitList(s)...)
	return nil
}

// noKeyFlag rejects --api-key: the installer never writes a key.
type noKeyFlag struct{}

func (noKeyFlag) String() string { return "" }

func (noKeyFlag) Set(string) error {
	return errors.New("init never writes an API key; export DEEPSEEK_API_KEY (or the variable named by --api-key-env) in your shell profile instead")
}
