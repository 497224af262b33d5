package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/opencode/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/plugin"
)

// pluginFiles supplies the plugin directory init copies; tests replace it.
var pluginFiles = plugin.Files

// detectHost answers --host auto: "opencode1" when the opencode on PATH
// says it is 1.x, else "opencode" (2.x, also when none is found). What it
// found is reported on stderr, so the plan on stdout stays the same.
func detectHost(stderr io.Writer) string {
	path, err := exec.LookPath("opencode")
	if err != nil {
		fmt.Fprintln(stderr, "deepseek-web-retrieval init: --host auto: no opencode on PATH; writing the OpenCode 2.x \"plugins\" key")
		return "opencode"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil || !hostVersion.MatchString(v) {
		fmt.Fprintf(stderr, "deepseek-web-retrieval init: --host auto: could not read the version of %s; writing the OpenCode 2.x \"plugins\" key\n", path)
		return "opencode"
	}
	host := "opencode"
	if strings.HasPrefix(hostVersion.FindString(v), "1.") {
		host = "opencode1"
	}
	fmt.Fprintf(stderr, "deepseek-web-retrieval init: --host auto: %s is OpenCode %s; using --host %s\n", path, hostVersion.FindString(v), host)
	return host
}

var hostVersion = regexp.MustCompile(`\d+\.\d+\.\d+`)

// osEnv reads the installer's environment from the process.
func osEnv() install.Env {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	return install.Env{
		Home:              home,
		XDGConfigHome:     os.Getenv("XDG_CONFIG_HOME"),
		OpencodeConfigDir: os.Getenv("OPENCODE_CONFIG_DIR"),
		WorkDir:           wd,
	}
}

// optionFlags maps SPEC §5 option names to init's flags.
var optionFlags = map[string]string{
	"search": "--search", "fetch": "--fetch", "apiKeyEnv": "--api-key-env", "baseURL": "--base-url",
	"maxResults": "--max-results", "maxSummaryChars": "--max-summary-chars", "minRerank": "--min-rerank",
	"minAuthority": "--min-authority", "allowUnknownAuthority": "--allow-unknown-authority",
	"includeDomains": "--include-domains", "allowedDomains": "--allowed-domains", "blockedDomains": "--blocked-domains",
	"language": "--language", "localization": "--localization", "fetchMaxChars": "--fetch-max-chars",
	"timeoutMs": "--timeout-ms", "maxRetries": "--max-retries",
	"searchBackend": "--search-backend", "messagesBaseURL": "--messages-base-url", "messagesModel": "--messages-model",
	"messagesMaxTokens": "--messages-max-tokens", "messagesMaxUses": "--messages-max-uses",
	"anthropicVersion": "--anthropic-version", "messagesSummary": "--messages-summary",
}

func initUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: deepseek-web-retrieval init [flags]

Installs the DeepSeek Search/Fetch plugin for OpenCode. Without --yes it only
prints the plan: every file it would create or change, with a diff of the
config. With --yes it applies exactly that plan.

The plugin is copied to vendor/deepseek-web-retrieval/ beside the config file
(never into the auto-loaded plugin/ or plugins/ directory) and one entry is
added to the config's "plugins" array (OpenCode 2.x) or "plugin" array
(--host opencode1). Comments, formatting and other entries are kept; running
init again with the same flags changes nothing. The API key is never written:
set DEEPSEEK_API_KEY (or the variable named by --api-key-env) yourself.

Examples:
  deepseek-web-retrieval init --scope global --search preferred --fetch optional
  deepseek-web-retrieval init --scope global --search preferred --fetch optional --yes
  deepseek-web-retrieval init --scope project --dir ~/src/app --max-results 5 --yes

Where:
  --scope global|project   global (default): $OPENCODE_CONFIG_DIR, else
                           $XDG_CONFIG_HOME/opencode, else ~/.config/opencode;
                           project: the --dir directory, or its .opencode/
                           in Go and Composer projects (their tools own vendor/)
  --dir DIR                project directory (default: the current directory)
  --host opencode|opencode1|auto
                           OpenCode 2.x (default) or 1.x config shape; auto
                           asks the opencode on PATH for its version (2.x
                           when there is none); make install uses auto
  --yes                    apply the plan instead of only printing it

Plugin options (only those given are written, plus the two tiers):
  --search TIER            off, optional, preferred (default) or forced
  --fetch TIER             off, optional (default), preferred or forced
  --api-key-env NAME       variable holding the key (default DEEPSEEK_API_KEY)
  --base-url URL           DeepSeek origin (default https://api.deepseek.com)
  --max-results N          results per search, 1-50 (default 10)
  --max-summary-chars N    characters per result summary (default 1200)
  --min-rerank X           drop results scored below X, 0-3 (default 0)
  --min-authority X        drop results below authority X, 0-4 (default 0)
  --allow-unknown-authority=BOOL
                           let unknown authority pass --min-authority (default true)
  --include-domains a,b    search only these domains
  --allowed-domains a,b    fetch only these domains
  --blocked-domains a,b    never search or fetch these domains
  --language zh,en         lang: operator for searches
  --localization IP        IPv4/IPv6 address for local results
  --fetch-max-chars N      characters per fetched page (default 16000)
  --timeout-ms N           per-attempt timeout, 1000-120000 (default 30000)
  --max-retries N          retries, 0-5 (default 2)
  --search-backend B       search (default, the Search API) or messages (a
                           DeepSeek model turn with web_search; README)
  --messages-base-url URL, --messages-model NAME, --messages-max-tokens N,
  --messages-max-uses N, --anthropic-version V, --messages-summary
                           the messages backend's options (README)

Exit status: 0 plan printed or applied, 1 refused or failed, 2 usage error.
`)
}

func uninstallUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: deepseek-web-retrieval uninstall [flags]

Reverses exactly what init applied, using the install record init left in
vendor/deepseek-web-retrieval.install.json beside the config: removes the
plugin entry (and the array or file init created), the vendored files and
the record; edits made since to other parts of the config are kept. Without
--yes it only prints the plan. It refuses, and says how to undo by hand,
when the entry or a vendored file was changed or the record is missing.

Example:
  deepseek-web-retrieval uninstall --scope global
  deepseek-web-retrieval uninstall --scope global --yes

Where:
  --scope global|project   as for init (default global)
  --dir DIR                project directory (default: the current directory)
  --yes                    apply the plan instead of only printing it

Exit status: 0 plan printed or applied, 1 refused or failed, 2 usage error.
`)
}

func runInit(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("init", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		scope, dir, host string
		yes              bool
		o                install.Options
	)
	fl.StringVar(&scope, "scope", "global", "")
	fl.StringVar(&dir, "dir", "", "")
	fl.StringVar(&host, "host", "opencode", "")
	fl.BoolVar(&yes, "yes", false, "")
	bindOptionFlags(fl, &o) // optflags.go: one flag per SPEC §5 option
	fl.Var(noKeyFlag{}, "api-key", "")
	if code, done := parse(fl, args, initUsage, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 {
		return usageErr(stderr, "init", fmt.Sprintf("unexpected argument %q", fl.Arg(0)))
	}
	sc, err := install.ParseScope(scope)
	if err != nil {
		return usageErr(stderr, "init", "--scope: "+err.Error())
	}
	if host == "auto" {
		host = detectHost(stderr)
	}
	h, err := install.ParseHost(host)
	if err != nil {
		return usageErr(stderr, "init", "--host: "+err.Error())
	}
	if dir != "" && sc != install.ScopeProject {
		return usageErr(stderr, "init", "--dir applies only to --scope project")
	}
	o.Language = strings.Join(splitList(o.Language), ",")
	p, err := install.PlanInit(install.Request{
		Env: osEnv(), Scope: sc, Dir: dir, Host: h, Options: o, Plugin: pluginFiles(), Version: versionString(),
	})
	if oe := (*install.OptionError)(nil); errors.As(err, &oe) {
		return usageErr(stderr, "init", fmt.Sprintf("invalid %s: %s", optionFlags[oe.Option], oe.Msg))
	}
	return finish(p, err, yes, "init", stdout, stderr)
}

func runUninstall(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		scope, dir string
		yes        bool
	)
	fl.StringVar(&scope, "scope", "global", "")
	fl.StringVar(&dir, "dir", "", "")
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
	if dir != "" && sc != install.ScopeProject {
		return usageErr(stderr, "uninstall", "--dir applies only to --scope project")
	}
	p, err := install.PlanUninstall(install.UninstallRequest{Env: osEnv(), Scope: sc, Dir: dir})
	return finish(p, err, yes, "uninstall", stdout, stderr)
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

// finish prints the plan, applies it with --yes, and picks the exit code.
func finish(p *install.Plan, err error, yes bool, cmd string, stdout, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
		return exitFailed
	}
	applied := false
	if yes && !p.Empty() {
		if err := p.Apply(); err != nil {
			_ = p.Render(stderr, false)
			fmt.Fprintf(stderr, "\ndeepseek-web-retrieval %s: applying the plan failed: %v\n", cmd, err)
			return exitFailed
		}
		applied = true
	}
	if err := p.Render(stdout, applied); err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
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
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
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
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
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
