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

// hostList is the --host values but auto, for messages.
func hostList() string { return strings.Join(hosts.Names(), ", ") }

var initHelp = helpText{
	usage: "deepseek-web-retrieval init [flags]",
	about: `Installs DeepSeek Search/Fetch into your coding agents: the OpenCode plugin,
or the MCP server (this binary's "mcp" command) for Codex, Claude Code,
Gemini CLI, Pi, Cursor and the other hosts of --host. Without --yes it only
prints the plan: every file it would create or change, with a diff of each
config (credentials masked). With --yes it applies exactly that plan.

Config files are edited in place: comments, formatting and other entries are
kept, arrays and tables are merged, and running init again with the same
flags changes nothing. The API key is never written: set DEEPSEEK_API_KEY (or
the variable named by --api-key-env) in your shell profile.`,
	examples: []string{
		"deepseek-web-retrieval init --scope global",
		"deepseek-web-retrieval init --scope global --search preferred --fetch optional --yes",
		"deepseek-web-retrieval init --host codex --search forced --yes",
		"deepseek-web-retrieval init --scope project --dir ~/src/app --max-results 5 --yes",
		"deepseek-web-retrieval init --host codex --remote https://gw.example.com --token-env TEAM_TOKEN",
	},
	groups: []flagGroup{
		{"Flags:", nil},
		{`Options (only those given are written, plus the two tiers; docs/options.md):`, optionFlags()},
	},
	exit: "0 plan printed or applied, 1 refused or failed, 2 usage error.",
}

var uninstallHelp = helpText{
	usage: "deepseek-web-retrieval uninstall [flags]",
	about: `Reverses exactly what init applied, using the install record init left
(OpenCode: vendor/deepseek-web-retrieval.install.json beside the config; MCP
hosts: ~/.local/state/deepseek-web-retrieval/installs/): removes the entry
(and the array, table or file init created), the vendored files and the
record; edits made since to other parts of a config are kept. Without --yes
it only prints the plan. With nothing installed it says so and exits 0. It
refuses, and says how to undo by hand, when the entry or a vendored file was
changed or the record is missing.`,
	examples: []string{
		"deepseek-web-retrieval uninstall --scope global",
		"deepseek-web-retrieval uninstall --scope global --yes",
	},
	exit: "0 plan printed or applied, 1 refused or failed, 2 usage error.",
}

// hostUsage is the usage of --host: what init ("every host found") or
// uninstall ("every host with something of ours") does with auto.
func hostUsage(auto string) string {
	return "`HOST` " + hostList() + ", or auto: " + auto
}

// whereFlags are the flags init and uninstall share: which hosts, which
// scope, and --yes.
type whereFlags struct {
	scope, dir, host string
	yes              bool
}

// register adds the shared flags to fl; hostAuto says what --host auto does.
func (f *whereFlags) register(fl *flag.FlagSet, hostAuto string) {
	fl.StringVar(&f.host, "host", "auto", hostUsage(hostAuto))
	fl.StringVar(&f.scope, "scope", "global", "`global|project` global: the user's config of each host; project: the --dir directory, for OpenCode its .opencode/ in Go and Composer projects, whose tools own vendor/")
	fl.StringVar(&f.dir, "dir", "", "`DIR` the project directory of --scope project (default: the current directory)")
	fl.BoolVar(&f.yes, "yes", false, "apply the plan instead of only printing it")
}

// check checks the shared flags and returns the scope; its errors name
// the flag.
func (f *whereFlags) check() (install.Scope, error) {
	sc, err := install.ParseScope(f.scope)
	if err != nil {
		return sc, fmt.Errorf("--scope: %w", err)
	}
	if err := hosts.CheckName(f.host); err != nil {
		return sc, fmt.Errorf("--host: %w", err)
	}
	if f.dir != "" && sc != install.ScopeProject {
		return sc, errors.New("--dir applies only to --scope project")
	}
	return sc, nil
}

// initFlags is init's command line as given.
type initFlags struct {
	whereFlags
	binary, pluginSource, remote, tokenEnv string
	signIn                                 bool
	options                                install.Options
}

// newInitFlags returns init's FlagSet, filling f.
func newInitFlags(f *initFlags) *flag.FlagSet {
	fl := flag.NewFlagSet("init", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	f.register(fl, `every host found on this machine (its program on PATH or its config directory); for OpenCode, the version of the opencode on PATH picks the 2.x "plugins" or 1.x "plugin" key, else the key the config already has`)
	fl.StringVar(&f.binary, "binary", "", "`PATH` the binary MCP hosts start (default: this one; make install puts it in ~/.local/bin)")
	fl.StringVar(&f.pluginSource, "plugin-source", "", "`vendor|npm` how OpenCode gets the plugin. vendor (default): copied to vendor/deepseek-web-retrieval/ beside the config, which names \"./vendor/deepseek-web-retrieval\". npm: the config names the package pinned to this binary's version, \"@deepseek-web-retrieval/opencode@VERSION\", and OpenCode installs it itself; nothing is vendored. install defaults to npm when its binary came from npm. Switching replaces the entry and adds or deletes the vendored files")
	fl.StringVar(&f.remote, "remote", "", "`URL` point the hosts at a team gateway (deepseek-web-retrieval serve) instead of starting this binary: https, or http on a loopback address; /mcp when the URL has no path. Codex, Claude Code, Gemini CLI, Cursor and OpenCode (its \"mcp\" key, instead of the plugin); the DeepSeek key stays on the gateway, and only --search and --fetch apply here")
	fl.StringVar(&f.tokenEnv, "token-env", "", "`NAME` the variable holding your gateway token (default DEEPSEEK_WEB_RETRIEVAL_TOKEN); the entry names it in the host's syntax, never the token itself")
	fl.BoolVar(&f.signIn, "sign-in", false, "with --remote: the gateway signs members in through the organisation's identity provider (serve --oidc-issuer). Claude Code, VS Code and Codex get an entry with no token and sign in themselves (Codex: codex mcp login deepseek-web-retrieval); the other hosts keep the --token-env entry")
	bindOptionFlags(fl, &f.options) // optflags.go: one flag per SPEC §5 option
	fl.Var(noKeyFlag{}, "api-key", "`KEY` refused: init never writes a key; export DEEPSEEK_API_KEY (or the variable named by --api-key-env) in your shell profile")
	return fl
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

// runInit is the init command: parseInit reads and checks the flags,
// initJobs finds the hosts, and runPlans plans, applies and reports.
func runInit(_ context.Context, args []string, stdout, stderr io.Writer) int {
	r, code, ok := parseInit(args, stdout, stderr)
	if !ok {
		return code
	}
	jobs, code, ok := initJobs(r, stdout, stderr)
	if !ok {
		return code
	}
	return runPlans("init", jobs, r.yes, stdout, stderr)
}

// initRequest is init's command line, checked: the request, --host and
// --yes.
type initRequest struct {
	req  install.Request
	host string
	yes  bool
}

// parseInit reads and checks init's flags; when ok is false the command
// ends with code (help or a usage error, already printed).
func parseInit(args []string, stdout, stderr io.Writer) (r initRequest, code int, ok bool) {
	var f initFlags
	fl := newInitFlags(&f)
	if code, done := parse(fl, args, initHelp, stdout, stderr); done {
		return r, code, false
	}
	if fl.NArg() > 0 {
		return r, usageErr(stderr, "init", fmt.Sprintf("unexpected argument %q", fl.Arg(0))), false
	}
	r, err := f.request()
	if err != nil {
		return r, usageErr(stderr, "init", err.Error()), false
	}
	return r, exitOK, true
}

// request checks init's flags and returns the request they make; its
// errors name the flag.
func (f *initFlags) request() (initRequest, error) {
	sc, err := f.check()
	if err != nil {
		return initRequest{}, err
	}
	spec, err := pluginSpec(f.pluginSource)
	if err != nil {
		return initRequest{}, fmt.Errorf("--plugin-source: %w", err)
	}
	o := f.options
	o.Language = strings.Join(splitList(o.Language), ",")
	if err := install.Validate(o); err != nil {
		return initRequest{}, optionError(err)
	}
	remote, binary, err := f.target(o)
	if err != nil {
		return initRequest{}, err
	}
	req := install.Request{Env: hostEnv(), Scope: sc, Dir: f.dir, Options: o, Binary: binary, Remote: remote, Plugin: pluginFiles(), Package: spec, Version: versionString()}
	return initRequest{req: req, host: f.host, yes: f.yes}, nil
}

// target is what the hosts' entries run: the gateway of --remote, else
// the binary of --binary (this one by default).
func (f *initFlags) target(o install.Options) (remote *install.Remote, binary string, err error) {
	switch {
	case f.remote != "":
		if remote, err = install.ParseRemote(f.remote, f.tokenEnv); err != nil {
			return nil, "", err
		}
		remote.SignIn = f.signIn
		if f.binary != "" || f.pluginSource != "" {
			return nil, "", errors.New("--remote points the hosts at a gateway: --binary and --plugin-source do not apply")
		}
		if err := install.RemoteOptions(o); err != nil {
			return nil, "", err
		}
		return remote, "", nil
	case f.tokenEnv != "":
		return nil, "", errors.New("--token-env applies only with --remote")
	case f.signIn:
		return nil, "", errors.New("--sign-in applies only with --remote")
	}
	if binary, err = binaryPath(f.binary); err != nil {
		return nil, "", fmt.Errorf("--binary: %w", err)
	}
	return nil, binary, nil
}

// optionError names an option the installer refused by its flag.
func optionError(err error) error {
	var oe *install.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("invalid %s: %s", optionFlag(oe.Option), oe.Msg)
	}
	return err
}

// initJobs is the hosts r names, each with its plan still to make; when
// ok is false the command ends with code (the reason was printed). No
// host to install into is not a failure: it says how to go on.
func initJobs(r initRequest, stdout, stderr io.Writer) (jobs []hosts.Job, code int, ok bool) {
	jobs, err := hosts.Init(r.req, r.host, func(note string) { fmt.Fprintf(stderr, "deepseek-web-retrieval init: %s\n", note) })
	if hosts.NoHost(err) {
		fmt.Fprintf(stdout, "deepseek-web-retrieval init: nothing to install into: %v.\nInstall one, then run init again, or name one with --host (%s).\n", err, hostList())
		return nil, exitOK, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval init: %v\n", err)
		return nil, exitFailed, false
	}
	return jobs, exitOK, true
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

// newUninstallFlags returns uninstall's FlagSet, filling f.
func newUninstallFlags(f *whereFlags) *flag.FlagSet {
	fl := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	f.register(fl, "every host with something of ours")
	return fl
}

func runUninstall(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var f whereFlags
	fl := newUninstallFlags(&f)
	if code, done := parse(fl, args, uninstallHelp, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 {
		return usageErr(stderr, "uninstall", fmt.Sprintf("unexpected argument %q", fl.Arg(0)))
	}
	sc, err := f.check()
	if err != nil {
		return usageErr(stderr, "uninstall", err.Error())
	}
	jobs := hosts.Uninstall(install.Request{Env: hostEnv(), Scope: sc, Dir: f.dir}, f.host)
	return runPlans("uninstall", jobs, f.yes, stdout, stderr)
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
// files as they were. Then it shows the plans and reports.
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
	r := planRun{cmd: cmd, yes: yes, quiet: cmd == "uninstall" && len(jobs) > 1}
	if err := r.plan(jobs); err != nil {
		return usageErr(stderr, cmd, err.Error())
	}
	if yes && !r.failed {
		r.apply()
	}
	shown, err := r.show(stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
		return exitFailed
	}
	return r.report(shown, stdout, stderr)
}

// planRun is one init or uninstall over its hosts' plans.
type planRun struct {
	cmd string // init or uninstall
	yes bool   // apply the plans, not only show them
	// quiet leaves out empty plans: those of an uninstall over several
	// hosts.
	quiet bool

	plans    []planned
	failed   bool  // a plan could not be made, or applying failed
	applyErr error // why applying failed
}

// plan makes every job's plan. An invalid option is a usage error, named
// by its flag; any other error is the host's, kept for show.
func (r *planRun) plan(jobs []hosts.Job) error {
	for _, j := range jobs {
		p, err := j.Plan()
		if oe := (*install.OptionError)(nil); errors.As(err, &oe) {
			return optionError(err)
		}
		r.failed = r.failed || err != nil
		r.plans = append(r.plans, planned{j.Host, p, err})
	}
	return nil
}

// apply applies every plan that changes something, as one transaction.
func (r *planRun) apply() {
	tx := install.Tx{StateDir: stateDir(), Command: r.cmd}
	for _, pl := range r.plans {
		if !pl.plan.Empty() {
			tx.Plans = append(tx.Plans, pl.plan)
		}
	}
	r.applyErr = tx.Apply()
	r.failed = r.applyErr != nil
}

// applied reports whether the plans were applied.
func (r *planRun) applied() bool { return r.yes && !r.failed }

// show prints each plan on stdout, as applied or as a plan, and each host
// without one on stderr. It returns how many plans it printed.
func (r *planRun) show(stdout, stderr io.Writer) (shown int, err error) {
	for _, pl := range r.plans {
		switch {
		case pl.err != nil && pl.plan == nil:
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s (%s): %v\n", r.cmd, pl.host, pl.err)
		case r.quiet && pl.plan.Empty():
		default:
			if shown > 0 {
				fmt.Fprintln(stdout)
			}
			shown++
			if err := pl.plan.Render(stdout, r.applied()); err != nil {
				return shown, err
			}
		}
	}
	return shown, nil
}

// report ends the run after show printed shown plans: why nothing was
// applied, or that there was nothing to uninstall. It returns the exit
// code.
func (r *planRun) report(shown int, stdout, stderr io.Writer) int {
	switch {
	case r.applyErr != nil:
		fmt.Fprintf(stderr, "\ndeepseek-web-retrieval %s: applying the plans failed: %v\n", r.cmd, r.applyErr)
		if !strings.Contains(r.applyErr.Error(), "rolling back also failed") {
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s: nothing was applied: %s\n", r.cmd, unchanged(r.plans))
		}
		return exitFailed
	case r.failed:
		if r.yes {
			fmt.Fprintf(stderr, "deepseek-web-retrieval %s: nothing was applied, because a plan above could not be made: %s (--host HOST acts on one host only)\n", r.cmd, unchanged(r.plans))
		}
		return exitFailed
	}
	if shown == 0 && r.cmd == "uninstall" {
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

// parse parses flags; done reports that the command is over (help,
// printed from fl and help, or a flag error) with the given exit code.
// Positional arguments are left to the caller (fl.Args()).
func parse(fl *flag.FlagSet, args []string, help helpText, stdout, stderr io.Writer) (code int, done bool) {
	err := fl.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fl, help)
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
