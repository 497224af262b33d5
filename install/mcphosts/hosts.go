package mcphosts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	shared "github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// The adapters. Each fact below is taken from the host's own source or
// documentation (cited beside it); the real-host tests on the hosts branch
// prove them against the installed host.

func init() {
	adapters[Codex] = adapter{label: `Codex ([mcp_servers] in config.toml)`, targets: codexTargets, traps: codexTraps, detect: codexDetect}
	adapters[Claude] = adapter{label: `Claude Code (mcpServers)`, targets: claudeTargets, traps: claudeTraps, detect: claudeDetect}
	adapters[Gemini] = adapter{label: `Gemini CLI (mcpServers in settings.json)`, targets: geminiTargets, traps: geminiTraps, detect: geminiDetect}
	adapters[Pi] = adapter{label: `Pi (pi-mcp-adapter mcp.json)`, targets: piTargets, traps: piTraps, detect: piDetect}
	adapters[Cursor] = adapter{label: `Cursor (mcp.json)`, targets: cursorTargets, traps: cursorTraps, detect: cursorDetect}
}

func (r *resolved) searchForced() bool { return r.Options.Search == "forced" }
func (r *resolved) fetchForced() bool  { return r.Options.Fetch == "forced" }

// ---- Codex ----
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

func codexHome(r *resolved) string {
	if r.Env.CodexHome != "" {
		return r.Env.CodexHome
	}
	return r.home(".codex")
}

func codexTargets(r *resolved) []target {
	path := filepath.Join(codexHome(r), "config.toml")
	if !r.global() {
		path = r.project(".codex", "config.toml")
	}
	kvs := []shared.TOMLKV{
		{Key: "command", Value: shared.TOMLString(r.Binary)},
		{Key: "args", Value: shared.TOMLStrings(r.args)},
		{Key: "env_vars", Value: shared.TOMLStrings([]string{r.key})},
	}
	t := target{path: path, toml: true, server: true, serverPath: []string{"mcp_servers", shared.Name}, tomlKVs: kvs}
	if r.searchForced() {
		t.topKey = &topKeyEdit{Key: "web_search", Line: "web_search = \"disabled\"\n"}
	}
	return []target{t}
}

func codexTraps(r *resolved, p *shared.Plan, cfgs []parsed) {
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
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s sets approval_policy = \"never\": Codex then refuses every MCP tool call as needing approval; to let it call deepseek_search and deepseek_fetch (read-only tools), add default_tools_approval_mode = \"approve\" under [mcp_servers.%s]", rel, shared.Name))
	}
	p.Notes = append(p.Notes, "Codex starts MCP servers with only a short list of the environment's variables, so the entry lists "+r.key+" in env_vars; Codex shows the tools as mcp__deepseek_web_retrieval__*")
	if !r.global() {
		trusted := false
		gp := filepath.Join(codexHome(r), "config.toml")
		if data, _, ok, err := shared.ReadFile(gp); err == nil && ok {
			if _, v, err := shared.ParseTOML(data); err == nil {
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

func codexDetect(env Env) bool {
	_, ok := env.lookPath("codex")
	if env.CodexHome != "" {
		return ok || exists(env.CodexHome)
	}
	return ok || exists(filepath.Join(env.Home, ".codex"))
}

// ---- Claude Code ----
//
// Claude Code docs (code.claude.com/docs/en/mcp, "MCP installation scopes"
// and "Environment variable expansion in .mcp.json"): user-scope servers
// are in ~/.claude.json under mcpServers ($CLAUDE_CONFIG_DIR/.claude.json
// when set), project-scope servers in the project's .mcp.json, which Claude
// Code asks the user to approve before it starts them. ${VAR} and
// ${VAR:-default} expand in command, args, env, url and headers; an unset
// ${VAR} without a default reaches the server as the literal text, so the
// entry uses ${VAR:-}. Built-in tools are turned off with
// permissions.deny ["WebSearch", "WebFetch"] in settings.json
// (~/.claude/settings.json, or the project's .claude/settings.json).
// ~/.claude.json is large and rewritten by Claude Code itself, so it is
// edited surgically here (member level) rather than with `claude mcp add`:
// the plan can show the exact diff, it works without the claude binary, and
// uninstall removes exactly the member it added.

func claudeTargets(r *resolved) []target {
	mcp, settings := r.home(".claude.json"), r.home(".claude", "settings.json")
	if r.Env.ClaudeConfigDir != "" {
		mcp, settings = filepath.Join(r.Env.ClaudeConfigDir, ".claude.json"), filepath.Join(r.Env.ClaudeConfigDir, "settings.json")
	}
	if !r.global() {
		mcp, settings = r.project(".mcp.json"), r.project(".claude", "settings.json")
	}
	entry := ordered("type", "stdio", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${" + r.key + ":-}"})
	ts := []target{{path: mcp, server: true, serverPath: []string{"mcpServers", shared.Name}, entry: entry}}
	var deny []string
	if r.searchForced() {
		deny = append(deny, "WebSearch")
	}
	if r.fetchForced() {
		deny = append(deny, "WebFetch")
	}
	st := target{path: settings}
	if len(deny) > 0 {
		st.adds = []addEdit{{Path: []string{"permissions", "deny"}, Items: deny}}
	}
	return append(ts, st)
}

func claudeTraps(r *resolved, p *shared.Plan, cfgs []parsed) {
	if !r.global() {
		p.Warnings = append(p.Warnings, "Claude Code asks you to approve a project's .mcp.json servers before it starts them: answer yes when it asks about "+shared.Name+" (or run `claude mcp reset-project-choices` if you declined before)")
	} else {
		p.Notes = append(p.Notes, "Claude Code rewrites ~/.claude.json itself; init edits only the mcpServers member, and uninstall removes exactly that member")
	}
	p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${"+r.key+":-}: an unset ${VAR} without a default would reach the server as literal text")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "forced tiers add Claude Code's built-in WebSearch / WebFetch to permissions.deny in "+r.rel(claudeTargets(r)[1].path))
	}
	allow, _ := lookup(cfgs[1].plain, "permissions", "allow").([]any)
	for _, a := range allow {
		if s, _ := a.(string); (s == "WebSearch" && r.searchForced()) || (s == "WebFetch" && r.fetchForced()) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s also lists %q in permissions.allow; deny wins in Claude Code, but remove it to avoid confusion", r.rel(claudeTargets(r)[1].path), s))
		}
	}
}

func claudeDetect(env Env) bool {
	_, ok := env.lookPath("claude")
	return ok || exists(filepath.Join(env.Home, ".claude.json")) || exists(filepath.Join(env.Home, ".claude"))
}

// ---- Gemini CLI ----
//
// google-gemini/gemini-cli docs/cli/configuration.md: settings in
// ~/.gemini/settings.json and the project's .gemini/settings.json (project
// overrides user); string values expand $VAR and ${VAR};
// mcpServers.<name> with command, args, env, timeout, includeTools;
// tools.exclude ("names of tools to exclude from discovery") removes
// built-in tools by name (google_web_search, web_fetch). packages/core/src/services/
// environmentSanitization.ts strips inherited variables whose names match
// /KEY/i, /TOKEN/i, … when redaction is on, so the key is passed explicitly
// in env. The policy engine splits tool names on "_" to find the server,
// so the server name has none.

func geminiTargets(r *resolved) []target {
	path := r.home(".gemini", "settings.json")
	if !r.global() {
		path = r.project(".gemini", "settings.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "$" + r.key})
	t := target{path: path, server: true, serverPath: []string{"mcpServers", shared.Name}, entry: entry}
	var ex []string
	if r.searchForced() {
		ex = append(ex, "google_web_search")
	}
	if r.fetchForced() {
		ex = append(ex, "web_fetch")
	}
	if len(ex) > 0 {
		t.adds = []addEdit{{Path: []string{"tools", "exclude"}, Items: ex}}
	}
	return []target{t}
}

func geminiTraps(r *resolved, p *shared.Plan, cfgs []parsed) {
	p.Notes = append(p.Notes, "Gemini CLI can strip inherited variables named like secrets from MCP servers, so the entry passes "+r.key+" explicitly (\"$"+r.key+"\")")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "forced tiers add Gemini's google_web_search / web_fetch to tools.exclude")
	}
	// Seen in tests/hosts (shapes.test.js): Gemini CLI 0.61.0 reads
	// settings.json with JSON.parse after stripping comments, and a byte
	// order mark makes it refuse the file ("Unexpected token").
	if mark, _ := shared.SplitBOM(cfgs[0].data); len(mark) > 0 {
		p.Warnings = append(p.Warnings, r.rel(geminiTargets(r)[0].path)+" starts with a byte order mark, which Gemini CLI refuses (\"Unexpected token '\ufeff'\"): init keeps it, as it keeps every byte it does not own; remove it, or Gemini will not start")
	}
	if v := lookup(cfgs[0].plain, "excludeTools"); v != nil && (r.searchForced() || r.fetchForced()) {
		p.Warnings = append(p.Warnings, "this settings.json uses the old top-level excludeTools; current Gemini CLI reads tools.exclude, where init writes")
	}
	if inc, ok := lookup(cfgs[0].plain, "mcp", "allowed").([]any); ok {
		found := false
		for _, s := range inc {
			found = found || s == shared.Name
		}
		if !found {
			p.Warnings = append(p.Warnings, "settings.json limits MCP servers with mcp.allowed, which does not list "+shared.Name+": Gemini will not start it")
		}
	}
}

func geminiDetect(env Env) bool {
	_, ok := env.lookPath("gemini")
	return ok || exists(filepath.Join(env.Home, ".gemini"))
}

// ---- Pi (pi-mcp-adapter) ----
//
// nicobailon/pi-mcp-adapter README: Pi has no MCP of its own; the adapter
// (installed with `pi install npm:pi-mcp-adapter`) reads
// <Pi agent dir>/mcp.json (~/.pi/agent, or $PI_CODING_AGENT_DIR) and the
// project's .pi/mcp.json, and by default hides every server's tools behind
// one `mcp` proxy tool; "directTools": true registers them as Pi tools.
// Stdio servers inherit the environment (inheritEnv defaults to true).
// Code-mode extensions (pi-codemode and forks) leave only execute_tools
// active, so our tools are then reachable only from code.

func piAgentDir(r *resolved) string {
	if r.Env.PiAgentDir != "" {
		return r.Env.PiAgentDir
	}
	return r.home(".pi", "agent")
}

func piTargets(r *resolved) []target {
	path := filepath.Join(piAgentDir(r), "mcp.json")
	if !r.global() {
		path = r.project(".pi", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "directTools", true)
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", shared.Name}, entry: entry}}
}

// piPackages lists the package and extension names Pi would load.
func piPackages(r *resolved) []string {
	var out []string
	dirs := []string{piAgentDir(r)}
	if !r.global() {
		dirs = append(dirs, r.project(".pi"))
	}
	for _, d := range dirs {
		if data, _, ok, err := shared.ReadFile(filepath.Join(d, "settings.json")); err == nil && ok {
			if v, err := shared.Normalize(data); err == nil {
				for _, key := range []string{"packages", "extensions"} {
					arr, _ := lookup(v, key).([]any)
					for _, e := range arr {
						switch x := e.(type) {
						case string:
							out = append(out, x)
						case map[string]any:
							if s, ok := x["source"].(string); ok {
								out = append(out, s)
							}
						}
					}
				}
			}
		}
		if ents, err := os.ReadDir(filepath.Join(d, "extensions")); err == nil {
			for _, e := range ents {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func piTraps(r *resolved, p *shared.Plan, _ []parsed) {
	pk := piPackages(r)
	has := func(sub ...string) string {
		for _, s := range pk {
			for _, x := range sub {
				if strings.Contains(strings.ToLower(s), x) {
					return s
				}
			}
		}
		return ""
	}
	if has("pi-mcp-adapter") == "" {
		p.Warnings = append(p.Warnings, "pi-mcp-adapter is not installed, so Pi will not read mcp.json: install it with `pi install npm:pi-mcp-adapter`, then restart Pi")
	}
	// Seen in tests/hosts: pi-mcp-adapter 2.11.0 and later import Pi under
	// its new package name, @earendil-works/pi-coding-agent, and fail to
	// load ("Cannot find module") in a Pi installed as
	// @mariozechner/pi-coding-agent (0.73.x, the last for Node 20).
	if bin, ok := r.Env.lookPath("pi"); ok {
		if real, err := filepath.EvalSymlinks(bin); err == nil && strings.Contains(filepath.ToSlash(real), "/@mariozechner/pi-coding-agent/") {
			p.Warnings = append(p.Warnings, "this Pi is the @mariozechner/pi-coding-agent package: current pi-mcp-adapter releases import @earendil-works/pi-coding-agent and fail to load in it (\"Cannot find module\"); update Pi to the @earendil-works/pi-coding-agent package (it needs Node 22.19 or later), or our tools will not appear")
		}
	}
	if cm := has("codemode", "code-mode"); cm != "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the code-mode extension %q leaves only execute_tools active: deepseek_search and deepseek_fetch are then reachable only from code the model writes", cm))
	}
	p.Notes = append(p.Notes, "the entry sets \"directTools\": true: without it pi-mcp-adapter hides the tools behind its one `mcp` proxy tool")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "Pi has no built-in web tools to turn off; forced tiers need nothing more there")
	}
}

func piDetect(env Env) bool {
	_, ok := env.lookPath("pi")
	d := env.PiAgentDir
	if d == "" {
		d = filepath.Join(env.Home, ".pi", "agent")
	}
	return ok || exists(d)
}

// ---- Cursor ----
//
// Cursor docs (docs.cursor.com/context/mcp): ~/.cursor/mcp.json and the
// project's .cursor/mcp.json, mcpServers.<name> with command, args, env;
// ${env:NAME} interpolates the environment. Written and uninstalled only:
// no Cursor runs here.

func cursorTargets(r *resolved) []target {
	path := r.home(".cursor", "mcp.json")
	if !r.global() {
		path = r.project(".cursor", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${env:" + r.key + "}"})
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", shared.Name}, entry: entry}}
}

func cursorTraps(r *resolved, p *shared.Plan, _ []parsed) {
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Cursor's built-in web search cannot be turned off from mcp.json: with forced tiers it stays available to the model")
	}
	p.Notes = append(p.Notes, "Cursor may ask you to enable the new server in its MCP settings")
}

func cursorDetect(env Env) bool {
	_, ok := env.lookPath("cursor-agent")
	_, ok2 := env.lookPath("cursor")
	return ok || ok2 || exists(filepath.Join(env.Home, ".cursor"))
}

// Detect returns the MCP hosts that look installed: their program on PATH
// or their user config directory present.
func Detect(env Env) []Host {
	var out []Host
	for _, h := range All {
		if adapters[h].detect(env) {
			out = append(out, h)
		}
	}
	return out
}
