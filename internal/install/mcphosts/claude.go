package mcphosts

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Claude Code adapter. Each fact is taken from the host's own source or
// documentation; the real-host tests prove them against the installed host.
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

func init() {
	adapters[Claude] = adapter{label: `Claude Code (mcpServers)`, targets: claudeTargets, traps: claudeTraps, detect: claudeDetect, launch: claudeLaunch, cwdIgnored: true, remote: true, signIn: true}
}

// claudeVar is the variable syntax of Claude Code 2.1.328: ${VAR} and
// ${VAR:-default} in command, args and env; an unset ${VAR} without a
// default stays as written.
var claudeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)

func claudeTargets(r *resolved) []target {
	mcp, settings := r.home(".claude.json"), r.home(".claude", "settings.json")
	if r.Env.Getenv("CLAUDE_CONFIG_DIR") != "" {
		mcp, settings = filepath.Join(r.Env.Getenv("CLAUDE_CONFIG_DIR"), ".claude.json"), filepath.Join(r.Env.Getenv("CLAUDE_CONFIG_DIR"), "settings.json")
	}
	if !r.global() {
		mcp, settings = r.project(".mcp.json"), r.project(".claude", "settings.json")
	}
	entry := ordered("type", "stdio", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${" + r.key + ":-}"})
	switch {
	case r.signsIn():
		// Claude Code runs the MCP authorization flow on the gateway's
		// 401 (since 2.1.85): an entry without headers signs in.
		entry = ordered("type", "http", "url", r.Remote.URL)
	case r.Remote != nil:
		entry = ordered("type", "http", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + ":-}"})
	}
	ts := []target{{path: mcp, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
	if !r.global() {
		// Copilot CLI reads the project's .mcp.json too, and this entry
		// works there unchanged (copilot.go): one entry serves both.
		ts[0].shared = []Host{Copilot}
	}
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

func claudeTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	if !r.global() {
		p.Warnings = append(p.Warnings, "Claude Code asks you to approve a project's .mcp.json servers before it starts them: answer yes when it asks about "+install.Name+" (or run `claude mcp reset-project-choices` if you declined before)")
		p.Warnings = append(p.Warnings, qwenWarning(r))
	} else {
		p.Notes = append(p.Notes, "Claude Code rewrites ~/.claude.json itself; init edits only the mcpServers member, and uninstall removes exactly that member")
	}
	switch {
	case r.signsIn():
		p.Notes = append(p.Notes, "the entry holds no token: Claude Code signs you in through your organisation's identity provider when it first connects (or run /mcp in Claude Code and choose "+install.Name+")")
	case r.Remote != nil:
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+":-}\", which Claude Code expands when it connects")
	default:
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${"+r.key+":-}: an unset ${VAR} without a default would reach the server as literal text")
	}
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

func claudeDetect(env install.Env) bool {
	_, ok := env.Find("claude")
	return ok || exists(filepath.Join(env.Home, ".claude.json")) || exists(filepath.Join(env.Home, ".claude"))
}

// claudeLaunch works out how Claude Code starts our server (see hostLaunch).
func claudeLaunch(c *launching) {
	// The whole environment, CLAUDECODE=1, then the expanded env.
	maps.Copy(c.env, c.parent)
	c.env["CLAUDECODE"] = "1"
	c.command = claudeExpand(c.command, c.parent)
	for i := range c.args {
		c.args[i] = claudeExpand(c.args[i], c.parent)
	}
	for k, v := range c.envCfg {
		c.env[k] = claudeExpand(v, c.parent)
	}
}

func claudeExpand(s string, env map[string]string) string {
	return expand(claudeVar, s, func(m []string) string {
		if v, ok := env[m[1]]; ok {
			return v
		}
		if m[2] != "" {
			return m[2][2:]
		}
		return m[0]
	})
}

// qwenWarning is the warning of a plan that writes a project's .mcp.json:
// Qwen Code 0.24.4 reads that file too and expands no variables in it,
// and a variable set there replaces the one it inherits [run, see
// internal/install/hosts/HOSTS.md, "What matters most" 1].
func qwenWarning(r *resolved) string {
	if r.Remote != nil {
		return "Qwen Code also reads a project's .mcp.json and expands no variables there: it would send the literal text \"Bearer ${" + r.Remote.TokenEnv + ":-}\" as the token, which the gateway refuses; give Qwen Code its own entry in its settings.json instead"
	}
	return "Qwen Code also reads a project's .mcp.json and expands no variables there: it would start the server with " + r.key + " set to the literal text \"${" + r.key + ":-}\" in place of your key, so every search and fetch fails in Qwen Code; give Qwen Code its own entry in its settings.json instead"
}
