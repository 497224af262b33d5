package mcphosts

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The GitHub Copilot CLI adapter, for @github/copilot 1.0.102 (npm; the
// native package @github/copilot-linux-x64 1.0.102 unpacks its JavaScript
// into ~/.cache/copilot/pkg/linux-x64/1.0.102/ on first run). What each
// fact rests on: [run] seen by running that version here (tests/hosts/
// copilot.test.js proves the main ones on every run), [src] read in its
// unpacked cli-main.js, [doc] GitHub's documentation (github/docs
// content/copilot/reference/copilot-cli-reference/cli-config-dir-reference.md
// at 03b432e6, cli-command-reference.md at 046d2679; `copilot help
// config`, `copilot help permissions`, `copilot --help` at 1.0.102).
//
//   - User servers are in <config dir>/mcp-config.json under mcpServers;
//     the config dir is $COPILOT_HOME when set (the directory itself, not
//     a parent: [src] cli-main.js `configDir ?? COPILOT_HOME ??
//     join(homedir(), ".copilot")`; [run] a relative COPILOT_HOME is taken
//     from the working directory), else ~/.copilot on every system
//     (os.homedir(): %USERPROFILE%\.copilot on Windows [doc], not run on
//     Windows here). --config-dir overrides both for one run. An older
//     $XDG_CONFIG_HOME/.copilot is moved to ~/.copilot by the CLI itself
//     ("XDG migration" [src]).
//   - The user-file entry, as `copilot mcp add N --env 'K=${K}' -- CMD
//     ARGS` writes it [run]: {"tools": ["*"], "type": "local", "command",
//     "args", "env"}; tools is required in the user file [doc]. Remote:
//     {"type": "http", "url", "headers", "tools"} [doc]; headers expand
//     like env [doc].
//   - mcp-config.json may hold comments and trailing commas, a BOM and
//     CRLF lines [run: `copilot mcp list` lists its servers]; an empty
//     file or one without mcpServers is refused ("mcpServers: Required"
//     [run]). The CLI does not rewrite the file when it reads it [run].
//   - A project's servers: .mcp.json and .github/mcp.json from the
//     working directory up to the git root, closer files winning, over
//     the user's [doc]; loaded only in a trusted folder: `copilot mcp
//     list` shows them once the folder is in trustedFolders of
//     ~/.copilot/config.json, and a `-p` run loads them with --trust-folder
//     or GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true [run]. Claude Code's
//     entry {"type": "stdio", command, args, env: {K: "${K:-}"}} works
//     there unchanged [run: tests/hosts/copilot.test.js], so the project
//     scope writes exactly Claude Code's entry into the same file, shared
//     (see shared.go).
//   - The server's environment [run]: the whole environment Copilot CLI
//     was started from, without COPILOT_PROVIDER_* and COPILOT_OFFLINE,
//     then the entry's env. In command [unverified], args and env values
//     [run]: $VAR and ${VAR} take the variable's value (also when set and
//     empty), ${VAR:-default} the default when unset; an unset $VAR or
//     ${VAR} stays as written (the server then sees the reference and says
//     so). The docs' "only PATH is inherited" did not hold at 1.0.102.
//   - Tools are named <server>-<tool>: deepseek-web-retrieval-
//     deepseek_search [run]. In `copilot -p`, a tool marked readOnlyHint
//     (ours are) runs without approval; another tool is denied ("no
//     interactive user response") without --allow-all-tools or
//     --allow-tool [run].
//   - Built-in web tools: web_fetch, and the built-in GitHub MCP server's
//     web_search when signed in to GitHub [doc]; no config file turns
//     them off, only the command line: --excluded-tools, and
//     --disable-builtin-mcps for github-mcp-server [doc: `copilot --help`].

// Copilot is GitHub Copilot CLI.
const Copilot Host = "copilot"

func init() {
	register(Copilot, "GitHub Copilot CLI", adapter{label: `GitHub Copilot CLI (mcpServers)`, targets: copilotTargets, traps: copilotTraps, detect: copilotDetect, launch: copilotLaunch, remote: true})
}

// copilotHome is Copilot CLI's config directory: $COPILOT_HOME (a
// relative one taken from the working directory, as the CLI does), else
// ~/.copilot.
func copilotHome(env install.Env) string {
	v := env.Getenv("COPILOT_HOME")
	switch {
	case v == "":
		return osJoin(env.GOOS, env.Home, ".copilot")
	case filepath.IsAbs(v) || env.GOOS == "windows" && isWindowsAbs(v):
		return v
	}
	return osJoin(env.GOOS, env.WorkDir, v)
}

func copilotTargets(r *resolved) []target {
	if !r.global() {
		// The project's .mcp.json: Claude Code's file and entry, shared.
		t := claudeTargets(r)[0]
		t.shared = []Host{Claude}
		return []target{t}
	}
	entry := ordered("type", "local", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${" + r.key + "}"}, "tools", []string{"*"})
	if r.Remote != nil {
		entry = ordered("type", "http", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"}, "tools", []string{"*"})
	}
	path := osJoin(r.Env.GOOS, copilotHome(r.Env), "mcp-config.json")
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

func copilotTraps(r *resolved, p *install.Plan, _ []parsed) {
	if !r.global() {
		p.Warnings = append(p.Warnings, "Copilot CLI loads a project's .mcp.json only in a folder you trust: answer yes when it asks to trust "+r.root+" (kept in trustedFolders in ~/.copilot/config.json); a `copilot -p` run needs --trust-folder")
		p.Warnings = append(p.Warnings, qwenWarning(r))
	}
	switch {
	case r.Remote != nil && r.global():
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+"}\", which Copilot CLI expands when it connects")
	case r.Remote != nil:
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+":-}\", which Copilot CLI and Claude Code expand when they connect")
	case r.global():
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${"+r.key+"}, which Copilot CLI expands when it starts the server (left unset, the server gets the reference itself, and its tools say the key is missing)")
	default:
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${"+r.key+":-}, which Copilot CLI and Claude Code expand when they start the server")
	}
	if r.Remote == nil {
		p.Notes = append(p.Notes, "Copilot CLI shows the tools as deepseek-web-retrieval-deepseek_search and -deepseek_fetch; both are read-only, so `copilot -p` runs them without --allow-all-tools")
	}
	if r.fetchForced() {
		p.Warnings = append(p.Warnings, "Copilot CLI's built-in web_fetch cannot be turned off in its config files: with --fetch forced, start it with --excluded-tools=web_fetch")
	}
	if r.searchForced() {
		p.Warnings = append(p.Warnings, "Copilot CLI's built-in GitHub MCP server offers web_search when you are signed in to GitHub, and no config file turns it off: with --search forced, start Copilot CLI with --disable-builtin-mcps")
	}
	p.Notes = append(p.Notes, "Copilot CLI loads its MCP servers when a session starts: start a new one")
}

func copilotDetect(env install.Env) bool {
	_, ok := env.Find("copilot")
	return ok || exists(copilotHome(env))
}

// copilotVar is the variable syntax of Copilot CLI 1.0.102 (see the top
// of this file): $VAR, ${VAR} and ${VAR:-default}.
var copilotVar = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))`)

// copilotLaunch works out how Copilot CLI starts our server (see
// hostLaunch and the top of this file).
func copilotLaunch(c *launching) {
	c.inherit(func(k string) bool { return strings.HasPrefix(k, "COPILOT_PROVIDER_") || k == "COPILOT_OFFLINE" },
		func(s string) string { return copilotExpand(s, c.parent) })
}

func copilotExpand(s string, env map[string]string) string {
	return expand(copilotVar, s, func(m []string) string {
		if v, ok := env[m[1]+m[3]]; ok {
			return v
		}
		if m[2] != "" {
			return m[2][2:]
		}
		return m[0]
	})
}
