package mcphosts

import (
	"fmt"
	"maps"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Cline adapter: the Cline CLI 3.0.65 (cline on npm, pinned in
// tests/hosts). [src] is its packages as installed (@cline/shared,
// @cline/core 0.0.86), [run] what running 3.0.65 here showed
// (tests/hosts/cline.test.js proves the rest), [ext] the VS Code
// extension's source (cline/cline src/services/mcp/schemas.ts @1a196376,
// McpHub.ts @00271871).
//
//   - File [src @cline/shared dist/storage/index.js]:
//     $CLINE_MCP_SETTINGS_PATH, else $CLINE_DATA_DIR/settings/
//     cline_mcp_settings.json, else $CLINE_DIR/data/settings/…, else
//     ~/.cline/data/settings/cline_mcp_settings.json, where ~ is
//     os.homedir() (%USERPROFILE% on Windows: not run there). No project
//     file: the CLI reads neither .mcp.json nor anything in the project
//     [run].
//   - Entry [run `cline mcp add dwr --yes -- node srv.js`]:
//     mcpServers.<name> {transport: {type: "stdio", command, args, env,
//     cwd}}; the schema in @cline/core also takes the extension's flat
//     form [src]. init writes the CLI's own nested form.
//   - Environment [run]: env values are passed as written, with no
//     variable syntax (${VAR} arrived literally), on top of the
//     environment the server inherits. The servers are started by Cline's
//     hub daemon (cline --cline-hub-daemon), which the first cline run
//     starts and later runs reuse: a server inherits the daemon's
//     environment, not the current shell's [run: a second run's new
//     DEEPSEEK_API_KEY did not reach the server]. So the entry has no env,
//     and the plan says to start the daemon from a shell where the key is
//     exported. With CLINE_SESSION_BACKEND_MODE=local a run is in-process
//     and passes its own environment [run].
//   - Headers are not expanded either, so a gateway entry would have to
//     hold the token: --remote is refused.
//   - Approval [run]: the CLI's prompt mode auto-approves tool calls by
//     default. Built-in tools [run]: fetch_web_content competes with ours;
//     the CLI has no setting in this file to turn it off.
//   - The VS Code extension (saoudrizwan.claude-dev) keeps its servers in
//     <User dir>/globalStorage/saoudrizwan.claude-dev/settings/
//     cline_mcp_settings.json [ext] and starts a server with the entry's
//     env plus PATH alone, expanding no variable [ext McpHub.ts @00271871;
//     unverified at later releases]: the key would have to be written into
//     that file, which this installer never does. init leaves it out and
//     says so when the extension is there.

// Cline is the Cline CLI.
const Cline Host = "cline"

func init() {
	register(Cline, "Cline", adapter{label: `Cline (cline_mcp_settings.json)`, targets: clineTargets, traps: clineTraps, detect: clineDetect, launch: clineLaunch, command: clineCommand,
		noProject: "Cline reads MCP servers only from its own cline_mcp_settings.json, not from a project; run init without --scope project",
		noRemote:  "Cline sends a remote server's headers exactly as written (it expands no variable in cline_mcp_settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command"})
}

// clineExtension is the Cline extension's id as its globalStorage folder
// names it.
const clineExtension = "saoudrizwan.claude-dev"

// clineFile is the CLI's cline_mcp_settings.json (see the header).
func clineFile(env install.Env) string {
	if p := envDir(env, "CLINE_MCP_SETTINGS_PATH", ""); p != "" {
		return p
	}
	if d := envDir(env, "CLINE_DATA_DIR", ""); d != "" {
		return osJoin(env.GOOS, d, "settings", "cline_mcp_settings.json")
	}
	return osJoin(env.GOOS, envDir(env, "CLINE_DIR", osJoin(env.GOOS, env.Home, ".cline")), "data", "settings", "cline_mcp_settings.json")
}

func clineTargets(r *resolved) []target {
	entry := ordered("transport", ordered("type", "stdio", "command", r.Binary, "args", r.args))
	return []target{{path: clineFile(r.Env), server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

// clineExtensionFiles are the extension's settings files in the VS Code
// builds where it has run.
func clineExtensionFiles(env install.Env) []string {
	var out []string
	for _, b := range vscodeBuilds {
		dir := osJoin(env.GOOS, vscodeUser(env, b), "globalStorage", clineExtension)
		if exists(dir) {
			out = append(out, osJoin(env.GOOS, dir, "settings", "cline_mcp_settings.json"))
		}
	}
	return out
}

func clineTraps(r *resolved, p *install.Plan, _ []parsed) {
	p.Notes = append(p.Notes, "Cline passes an entry's env values as written (it has no variable syntax), so the entry has no env: the server inherits "+r.key+" from Cline's hub daemon, which the first cline command starts and later ones reuse. Export "+r.key+" in your shell profile, and after changing it stop the daemon (or run with CLINE_SESSION_BACKEND_MODE=local) so a new one starts with it")
	p.Notes = append(p.Notes, "Cline shows the tools as "+install.Name+"__deepseek_search and "+install.Name+"__deepseek_fetch, and approves their calls by default in a prompt run")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Cline's built-in fetch_web_content cannot be turned off from cline_mcp_settings.json: with forced tiers it stays available to the model")
	}
	for _, f := range clineExtensionFiles(r.Env) {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the Cline VS Code extension reads %s, which init leaves alone: the extension passes a server only its entry's env and PATH and expands no variable, so the key would have to be written into that file; use the Cline CLI, or another host of the editor (--host vscode)", f))
	}
}

func clineDetect(env install.Env) bool {
	_, ok := env.Find("cline")
	return ok || exists(filepath.Dir(filepath.Dir(clineFile(env))))
}

// clineCommand flattens the CLI's entry for doctor: the transport's
// fields, or the extension's flat form as it is.
func clineCommand(entry map[string]any) map[string]any {
	t, ok := entry["transport"].(map[string]any)
	if !ok {
		return entry
	}
	out := map[string]any{}
	for _, k := range []string{"command", "args", "env", "cwd", "url", "headers"} {
		if v, ok := t[k]; ok {
			out[k] = v
		}
	}
	return out
}

// clineLaunch works out how Cline starts our server (see hostLaunch): the
// daemon's environment (doctor's own stands for it) and the entry's env
// as written.
func clineLaunch(c *launching) {
	maps.Copy(c.env, c.parent)
	maps.Copy(c.env, c.envCfg)
}
