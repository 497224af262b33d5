package mcphosts

import (
	"maps"
	"path/filepath"
	"regexp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Cursor adapter. Each fact is taken from the host's own source or
// documentation; the real-host tests prove them against the installed host.
//
// Cursor docs (docs.cursor.com/context/mcp): ~/.cursor/mcp.json and the
// project's .cursor/mcp.json, mcpServers.<name> with command, args, env;
// ${env:NAME} interpolates the environment. Written and uninstalled only:
// no Cursor runs here.

func init() {
	adapters[Cursor] = adapter{label: `Cursor (mcp.json)`, targets: cursorTargets, traps: cursorTraps, detect: cursorDetect, launch: cursorLaunch, cwdIgnored: true, remote: true}
}

// cursorVar is the variable syntax of Cursor (docs.cursor.com/context/mcp):
// ${env:NAME}; unset taken as "".
var cursorVar = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

func cursorTargets(r *resolved) []target {
	path := r.home(".cursor", "mcp.json")
	if !r.global() {
		path = r.project(".cursor", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${env:" + r.key + "}"})
	if r.Remote != nil {
		// docs.cursor.com/context/mcp: a remote server is { url, headers }.
		entry = ordered("url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${env:" + r.Remote.TokenEnv + "}"})
	}
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

func cursorTraps(r *resolved, p *install.Plan, _ []parsed) {
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Cursor's built-in web search cannot be turned off from mcp.json: with forced tiers it stays available to the model")
	}
	p.Notes = append(p.Notes, "Cursor may ask you to enable the new server in its MCP settings")
}

func cursorDetect(env install.Env) bool {
	_, ok := env.Find("cursor-agent")
	_, ok2 := env.Find("cursor")
	return ok || ok2 || exists(filepath.Join(env.Home, ".cursor"))
}

// cursorLaunch works out how Cursor starts our server (see hostLaunch).
func cursorLaunch(c *launching) {
	// Cursor is not run here: the whole environment and ${env:NAME}
	// in command, args and env, as its docs describe.
	maps.Copy(c.env, c.parent)
	c.command = cursorExpand(c.command, c.parent)
	for i := range c.args {
		c.args[i] = cursorExpand(c.args[i], c.parent)
	}
	for k, v := range c.envCfg {
		c.env[k] = cursorExpand(v, c.parent)
	}
}

func cursorExpand(s string, env map[string]string) string {
	return expand(cursorVar, s, func(m []string) string { return env[m[1]] })
}
