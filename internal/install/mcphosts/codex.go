package mcphosts

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Codex adapter. Each fact is taken from the host's own source or
// documentation; the real-host tests prove them against the installed host.
//
// openai/codex codex-rs/config/src/config_toml.rs: `mcp_servers:
// HashMap<String, McpServerConfig>`; codex-rs/config/src/mcp_types.rs: the
// stdio transport is `{ command, args, env, env_vars, cwd }` (untagged,
// deny_unknown_fields), env_vars naming variables passed through from the
// parent: Codex starts stdio servers with only a short whitelist of the
// environment, so the key needs env_vars. The built-in search is the
// top-level `web_search: Option<WebSearchMode>` ("disabled" | "cached" |
// "live"); `[tools] web_search` goes through
// deserialize_optional_web_search_tool_config, whose `Enabled(bool)` arm
// returns None: `web_search = false` there parses and does nothing. The
// config is ~/.codex/config.toml ($CODEX_HOME), and .codex/config.toml in a
// project Codex trusts (projects."<dir>".trust_level = "trusted").

func init() {
	adapters[Codex] = adapter{label: `Codex ([mcp_servers] in config.toml)`, targets: codexTargets, traps: codexTraps, detect: codexDetect, launch: codexLaunch, remote: true, signIn: true}
}

// codexDefaultEnv is the whitelist Codex passes every stdio MCP server on
// Unix (openai/codex codex-rs/rmcp-client/src/utils.rs DEFAULT_ENV_VARS):
// these from its own environment, then the entry's env_vars from it, then
// the entry's env as literal values (no expansion anywhere).
var codexDefaultEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

func codexHome(r *resolved) string {
	if r.Env.Getenv("CODEX_HOME") != "" {
		return r.Env.Getenv("CODEX_HOME")
	}
	return r.home(".codex")
}

func codexTargets(r *resolved) []target {
	path := filepath.Join(codexHome(r), "config.toml")
	if !r.global() {
		path = r.project(".codex", "config.toml")
	}
	kvs := []install.TOMLKV{
		{Key: "command", Value: install.TOMLString(r.Binary)},
		{Key: "args", Value: install.TOMLStrings(r.args)},
		{Key: "env_vars", Value: install.TOMLStrings([]string{r.key})},
	}
	if r.Remote != nil {
		// codex-rs/config/src/mcp_types.rs: the streamable HTTP transport
		// is { url, bearer_token_env_var, http_headers, env_http_headers }.
		kvs = []install.TOMLKV{
			{Key: "url", Value: install.TOMLString(r.Remote.URL)},
			{Key: "bearer_token_env_var", Value: install.TOMLString(r.Remote.TokenEnv)},
		}
		if r.signsIn() {
			// `codex mcp login NAME` (0.169.0) runs the OAuth flow for a
			// streamable HTTP entry and keeps the token itself.
			kvs = kvs[:1]
		}
	}
	t := target{path: path, toml: true, server: true, serverPath: []string{"mcp_servers", install.Name}, tomlKVs: kvs}
	if r.searchForced() {
		t.topKey = &topKeyEdit{Key: "web_search", Line: "web_search = \"disabled\"\n"}
	}
	return []target{t}
}

func codexTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	cfg := cfgs[0]
	rel := r.rel(codexTargets(r)[0].path)
	if v := lookup(cfg.plain, "tools", "web_search"); v != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s sets [tools] web_search = %v: Codex parses it and ignores it (codex-rs/config/src/config_toml.rs drops that value); only the top-level web_search = \"disabled\" | \"cached\" | \"live\" changes the built-in search", rel, v))
	}
	if r.searchForced() {
		line := strings.TrimSpace(cfgTopLine(cfg, "web_search"))
		switch {
		case line == `web_search = "disabled"`:
		case line != "":
			p.Warnings = append(p.Warnings, fmt.Sprintf("search=forced replaces %q in %s with web_search = \"disabled\": only that turns Codex's built-in web search off, so the model uses deepseek_search; uninstall puts the line back", line, rel))
		default:
			p.Notes = append(p.Notes, "search=forced adds the top-level web_search = \"disabled\" to "+rel+": that turns Codex's built-in web search off (a [tools] web_search = false would not)")
		}
		if profs, ok := lookup(cfg.plain, "profiles").(map[string]any); ok {
			for name, pv := range profs {
				if ws := lookup(pv, "web_search"); ws != nil && ws != "disabled" {
					p.Warnings = append(p.Warnings, fmt.Sprintf("the Codex profile %q sets web_search = %v, which overrides the top-level setting when that profile is used", name, ws))
				}
			}
		}
	} else if v := lookup(cfg.plain, "web_search"); v != nil && v != "disabled" && r.Options.Search == "preferred" {
		p.Notes = append(p.Notes, fmt.Sprintf("Codex's built-in web search stays on (web_search = %v); with search=preferred the model is told to prefer deepseek_search", v))
	}
	if r.fetchForced() {
		p.Notes = append(p.Notes, "Codex has no built-in fetch tool to turn off; fetch=forced needs nothing more there")
	}
	// Seen in a real Codex 0.169.0 (tests/hosts): with approval_policy
	// "never" every MCP call is refused as needing approval, unless the
	// server entry approves its tools.
	if v := lookup(cfg.plain, "approval_policy"); v == "never" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s sets approval_policy = \"never\": Codex then refuses every MCP tool call as needing approval; to let it call deepseek_search and deepseek_fetch (read-only tools), add default_tools_approval_mode = \"approve\" under [mcp_servers.%s]", rel, install.Name))
	}
	switch {
	case r.signsIn():
		p.Notes = append(p.Notes, "the entry holds no token: run `codex mcp login "+install.Name+"` once to sign in through your organisation's identity provider (Codex keeps the token); Codex shows the tools as mcp__deepseek_web_retrieval__*")
	case r.Remote != nil:
		p.Notes = append(p.Notes, "Codex connects to the gateway at "+r.Remote.URL+" and sends $"+r.Remote.TokenEnv+" as the bearer token (bearer_token_env_var); Codex shows the tools as mcp__deepseek_web_retrieval__*")
	default:
		p.Notes = append(p.Notes, "Codex starts MCP servers with only a short list of the environment's variables, so the entry lists "+r.key+" in env_vars; Codex shows the tools as mcp__deepseek_web_retrieval__*")
	}
	if !r.global() {
		trusted := false
		gp := filepath.Join(codexHome(r), "config.toml")
		if data, _, ok, err := install.ReadConfig(gp); err == nil && ok {
			if _, v, err := install.ParseTOML(data); err == nil {
				trusted = lookup(v, "projects", r.root, "trust_level") == "trusted"
			}
		}
		if !trusted {
			p.Warnings = append(p.Warnings, fmt.Sprintf("Codex reads .codex/config.toml only in projects it trusts, and %s is not trusted in %s: trust it when Codex asks (or set [projects.%q] trust_level = \"trusted\")", r.root, gp, r.root))
		}
	}
}

func cfgTopLine(cfg parsed, key string) string {
	if cfg.toml == nil {
		return ""
	}
	return cfg.toml.TopKeyLine(key)
}

func codexDetect(env install.Env) bool {
	_, ok := env.Find("codex")
	if env.Getenv("CODEX_HOME") != "" {
		return ok || exists(env.Getenv("CODEX_HOME"))
	}
	return ok || exists(filepath.Join(env.Home, ".codex"))
}

// codexLaunch works out how Codex starts our server (see hostLaunch).
func codexLaunch(c *launching) {
	// codex-rs/rmcp-client/src/utils.rs create_env_for_mcp_server.
	for _, k := range append(slices.Clone(codexDefaultEnv), stringList(c.entry["env_vars"])...) {
		if v, ok := c.parent[k]; ok {
			c.env[k] = v
		}
	}
	maps.Copy(c.env, c.envCfg)
}
