package mcphosts

import (
	"maps"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The JetBrains Junie adapter (the Junie plugin of JetBrains IDEs, and the
// Junie CLI). Junie is not run here: what it does rests on JetBrains'
// documentation, marked [doc] (jetbrains.com/help/junie/
// model-context-protocol-mcp.html and junie.jetbrains.com/docs/
// action-allowlist.html, stored copies, unversioned), or on third-party
// material only, marked [3p] and unverified.
//
//   - [doc] "Currently, Junie supports only MCP servers that use the
//     Standard Input/Output (stdio) transport type": --remote is refused.
//     "By default, Junie asks for user approval before executing the
//     relevant tool"; an MCP rule in the Action Allowlist skips that.
//   - [3p] User servers in ~/.junie/mcp/mcp.json, a project's in
//     .junie/mcp/mcp.json: mcpServers.<name> {command, args, env} with no
//     type and no disabled (several configurators, e.g. laravel/boost's
//     PhpStormJunie, and a summary citing junie.jetbrains.com/docs/
//     junie-cli-mcp-configuration.html); the settings page (Tools | Junie |
//     MCP Settings) edits the same data. Windows
//     %USERPROFILE%\.junie\mcp\mcp.json is unverified.
//   - Whether Junie expands a variable in env is undocumented (looked
//     for, not found); JetBrains' MCP docs only say env holds the values
//     a server needs. So the entry has no env, and the key reaches the
//     server by inheritance from the IDE (or the Junie CLI's shell): a
//     started process inheriting its parent's environment is the default
//     of the JVM and of Node, but Junie's own choice is unverified.

// Junie is JetBrains' Junie agent.
const Junie Host = "junie"

func init() {
	register(Junie, "Junie", adapter{label: `Junie (mcp.json)`, targets: junieTargets, traps: junieTraps, detect: junieDetect, launch: junieLaunch})
}

func junieTargets(r *resolved) []target {
	path := r.home(".junie", "mcp", "mcp.json")
	if !r.global() {
		path = r.project(".junie", "mcp", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args)
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

func junieTraps(r *resolved, p *install.Plan, _ []parsed) {
	p.Notes = append(p.Notes, "Junie documents no variable syntax for an entry's env, so the entry has no env: the server inherits "+r.key+" from the IDE's environment (or the Junie CLI's shell). Export it in your shell profile, then restart the IDE")
	p.Notes = append(p.Notes, "Junie asks before each MCP tool call: add an MCP rule to its Action Allowlist to let it call deepseek_search and deepseek_fetch without asking")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "mcp.json has no setting for Junie's own tools: forced tiers change nothing there")
	}
}

func junieDetect(env install.Env) bool {
	_, ok := env.Find("junie")
	return ok || exists(filepath.Join(env.Home, ".junie"))
}

// junieLaunch works out how Junie starts our server (see hostLaunch).
func junieLaunch(c *launching) {
	// Not run here: the parent's environment and the entry's env as
	// written, no expansion (unverified).
	maps.Copy(c.env, c.parent)
	maps.Copy(c.env, c.envCfg)
}
