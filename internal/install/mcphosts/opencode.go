package mcphosts

import (
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The OpenCode gateway adapter: OpenCode gets the tools from its plugin
// (internal/install/opencodehost), so this adapter writes only a gateway entry (init
// --remote), under the config's "mcp" key.
//
// anomalyco/opencode packages/opencode/src/config/config.ts: `mcp` maps a
// name to McpLocal or McpRemote; McpRemote is { type: "remote", url,
// enabled, headers, oauth, timeout } (strict); oauth false turns OAuth
// auto-detection off, which a gateway answering 401 would otherwise
// start. OpenCode substitutes {env:VAR} in its config files when it loads
// them. Global config: $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode,
// else ~/.config/opencode; a project's: opencode.jsonc or opencode.json
// in its directory.

// OpenCode is the OpenCode gateway entry. It is not in all (see
// [Gateway]): without --remote, OpenCode is internal/install/opencodehost's (the
// plugin).
const OpenCode Host = "opencode"

func init() {
	adapters[OpenCode] = adapter{label: `OpenCode (mcp in opencode.jsonc)`, targets: opencodeTargets, traps: opencodeTraps, detect: func(install.Env) bool { return false }, launch: func(*launching) {}, remote: true}
	names[OpenCode] = "OpenCode"
}

// opencodeDir is the config directory for the scope.
func opencodeDir(r *resolved) string {
	switch {
	case !r.global():
		return r.root
	case r.Env.Getenv("OPENCODE_CONFIG_DIR") != "":
		return r.Env.Getenv("OPENCODE_CONFIG_DIR")
	case r.Env.Getenv("XDG_CONFIG_HOME") != "":
		return filepath.Join(r.Env.Getenv("XDG_CONFIG_HOME"), "opencode")
	}
	return r.home(".config", "opencode")
}

// opencodeTargets: the config OpenCode reads in the directory, opencode.jsonc
// unless only opencode.json exists.
func opencodeTargets(r *resolved) []target {
	dir := opencodeDir(r)
	path := filepath.Join(dir, "opencode.jsonc")
	if !exists(path) && exists(filepath.Join(dir, "opencode.json")) {
		path = filepath.Join(dir, "opencode.json")
	}
	url, tokenEnv := "", install.DefaultTokenEnv
	if r.Remote != nil {
		url, tokenEnv = r.Remote.URL, r.Remote.TokenEnv
	}
	entry := ordered("type", "remote", "url", url, "headers", map[string]string{"Authorization": "Bearer {env:" + tokenEnv + "}"}, "oauth", false, "enabled", true)
	return []target{{path: path, server: true, serverPath: []string{"mcp", install.Name}, entry: entry}}
}

func opencodeTraps(r *resolved, p *install.Plan, _ []parsed) {
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer {env:"+r.Remote.TokenEnv+"}\", which OpenCode substitutes when it loads its config; OpenCode shows the tools as deepseek-web-retrieval_deepseek_search and _fetch")
	}
}
