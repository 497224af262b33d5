package mcphosts

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Zed adapter. Zed is not run here: each fact is read in its source
// (zed-industries/zed, stored versions at the commits named) or docs,
// marked [src] / [doc]; what rests on neither is marked unverified.
//
//   - [src crates/paths/src/paths.rs @94b6e7f5] config_dir(): Windows
//     dirs::config_dir() (the roaming AppData folder) + "Zed"; Linux and
//     FreeBSD $FLATPAK_XDG_CONFIG_HOME, else dirs::config_dir()
//     ($XDG_CONFIG_HOME when absolute, else ~/.config), + "zed"; macOS
//     ~/.config/zed (XDG_CONFIG_HOME ignored). The user settings are
//     config_dir()/settings.json, a project's .zed/settings.json. Zed's
//     --user-data-dir (config under <dir>/config) is not followed here.
//   - [src crates/settings_content/src/project.rs @68db2132] settings are
//     JSON with comments (parse_json_with_comments); context_servers maps a
//     name to an untagged enum whose stdio variant is the flattened
//     ContextServerCommand {command, args, env, timeout} plus enabled and
//     remote; the HTTP variant is {url, headers, timeout}.
//     SessionSettingsContent.trust_all_worktrees: only in a trusted
//     worktree are "MCP servers ... started automatically", so a project's
//     servers wait for the worktree to be trusted.
//   - [src crates/context_server/src/transport/stdio_transport.rs @204bad91,
//     crates/environment/src/environment.rs @98303546] a stdio server gets
//     environment::inherited() (std::env::vars(), Zed's own environment)
//     extended by the entry's env, whose values are passed as written:
//     there is no variable syntax anywhere on this path [src
//     crates/project/src/context_server_store.rs @00400088, which also
//     passes an HTTP server's headers to the transport as written]. So the
//     entry has no env: the key reaches the server by inheritance, and
//     --remote is refused (the token would have to be written in the
//     file). The server runs in the active project's directory.
//   - [src crates/util (load_login_shell_environment, stored version,
//     commit not shown); doc docs/src/environment.md] Zed started from
//     the `zed` CLI has that shell's environment; started from the Dock or
//     a launcher it loads a login shell's environment into its own.
//   - Traps: agent profiles choose the tools the model gets
//     (agent.profiles.<id>.enable_all_context_servers, or
//     context_servers.<name>.tools) [src, third-party tests and configs
//     using them]; Zed's built-in fetch and web_search tools are in the same
//     profiles' tools, not in context_servers (web_search with Zed's hosted
//     models only: unverified).

// Zed is the Zed editor's agent.
const Zed Host = "zed"

func init() {
	register(Zed, "Zed", adapter{label: `Zed (context_servers in settings.json)`, targets: zedTargets, traps: zedTraps, detect: zedDetect, launch: zedLaunch,
		noRemote: "Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command"})
}

// zedConfigDir is Zed's config_dir() for env's system.
func zedConfigDir(env install.Env) string {
	switch env.GOOS {
	case "windows":
		return osJoin(env.GOOS, appData(env), "Zed")
	case "darwin":
		return osJoin(env.GOOS, env.Home, ".config", "zed")
	}
	if d := envDir(env, "FLATPAK_XDG_CONFIG_HOME", ""); d != "" {
		return osJoin(env.GOOS, d, "zed")
	}
	return osJoin(env.GOOS, xdgConfig(env), "zed")
}

func zedTargets(r *resolved) []target {
	path := osJoin(r.Env.GOOS, zedConfigDir(r.Env), "settings.json")
	if !r.global() {
		path = r.project(".zed", "settings.json")
	}
	entry := ordered("command", r.Binary, "args", r.args)
	return []target{{path: path, server: true, serverPath: []string{"context_servers", install.Name}, entry: entry}}
}

// zedUserSettings returns the user settings.json as plain values (nil
// when absent or unreadable).
func zedUserSettings(env install.Env) any {
	return settingsOf(filepath.Join(zedConfigDir(env), "settings.json"))
}

func zedTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	p.Notes = append(p.Notes, "Zed passes an entry's env values as written (it has no variable syntax), so the entry has no env: the server inherits "+r.key+" from Zed's own environment. Export it in your shell profile: Zed started from a terminal (`zed`) takes that shell's variables, and started from the Dock or a launcher it loads the variables of your login shell")
	user := zedUserSettings(r.Env)
	if !r.global() && lookup(user, "session", "trust_all_worktrees") != true {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Zed starts a project's MCP servers only in a trusted worktree: trust %s when Zed asks (or set \"session\": {\"trust_all_worktrees\": true} in your user settings)", r.root))
	}
	for _, doc := range []any{user, cfgs[0].plain} {
		for _, w := range zedProfileWarnings(doc) {
			if !slices.Contains(p.Warnings, w) {
				p.Warnings = append(p.Warnings, w)
			}
		}
	}
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Zed's built-in fetch and web_search tools cannot be turned off from context_servers: with forced tiers, set \"fetch\": false and \"web_search\": false in the tools of the agent profile you use (agent.profiles.<profile>.tools), or the model may still use them")
	}
}

// zedProfileWarnings names the agent profiles of a settings document that
// leave our tools out: enable_all_context_servers false, and our server's
// tools not turned on one by one.
func zedProfileWarnings(doc any) []string {
	profiles, _ := lookup(doc, "agent", "profiles").(map[string]any)
	var ids []string
	for id, prof := range profiles {
		if lookup(prof, "enable_all_context_servers") != false {
			continue
		}
		if lookup(prof, "context_servers", install.Name, "tools", "deepseek_search") == true && lookup(prof, "context_servers", install.Name, "tools", "deepseek_fetch") == true {
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		out = append(out, fmt.Sprintf("the Zed agent profile %q does not enable all MCP servers and does not turn on deepseek_search and deepseek_fetch: in that profile the model does not get them (set \"enable_all_context_servers\": true, or turn the two tools on under its context_servers.%s.tools)", id, install.Name))
	}
	return out
}

func zedDetect(env install.Env) bool {
	_, ok := env.Find("zed")
	_, ok2 := env.Find("zeditor") // the CLI's name in several Linux packages
	return ok || ok2 || exists(zedConfigDir(env))
}

// zedLaunch works out how Zed starts our server (see hostLaunch).
func zedLaunch(c *launching) {
	// stdio_transport.rs: environment::inherited() (Zed's environment)
	// extended by the entry's env as written; command and args as
	// written.
	maps.Copy(c.env, c.parent)
	maps.Copy(c.env, c.envCfg)
}
