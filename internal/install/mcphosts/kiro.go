package mcphosts

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Kiro adapter (the Kiro IDE and Kiro CLI, which read the same files).
// Kiro is not run here: what it does rests on its documentation, marked
// [doc] (kiro.dev/docs/mcp/configuration, /docs/mcp/security,
// /docs/cli/mcp/configuration, /docs/cli/reference/built-in-tools, stored
// copies, unversioned), or on third-party material only, marked [3p] and
// unverified.
//
//   - [doc] User servers in ~/.kiro/settings/mcp.json, a workspace's in
//     .kiro/settings/mcp.json ("merged with workspace settings taking
//     precedence"); Windows %USERPROFILE%\.kiro\settings\mcp.json is
//     unverified. mcpServers.<name> {command, args, env, disabled,
//     autoApprove, disabledTools}; remote {url, headers}.
//   - [doc] ${VAR} expands in env ("ENV_VAR2": "${EXPANDED_VARIABLE}") and
//     in headers ("Authorization": "Bearer ${API_TOKEN}"), but "Kiro only
//     expands environment variables that are explicitly approved": an
//     unapproved one makes Kiro show a security warning listing it, to
//     approve there or in settings. An unapproved ${VAR} reaches the
//     server as literal text [3p: a report of Kiro CLI 2.4.0]; the
//     approved list is kiroAgent.mcpApprovedEnvVars in
//     ~/.kiro/settings/cli.json [3p, the same report] and, by the same
//     name, in the IDE's user settings.json (unverified). What an approved
//     but unset ${VAR} becomes, and whether the server inherits Kiro's
//     whole environment, is unverified: launch keeps the text and takes
//     the whole environment.
//   - [doc] Kiro asks before each tool call unless autoApprove lists the
//     tool; the CLI has built-in web search and fetch tools (web_search,
//     web_fetch), which mcp.json does not turn off.

// Kiro is AWS's Kiro IDE and CLI.
const Kiro Host = "kiro"

func init() {
	register(Kiro, "Kiro", adapter{label: `Kiro (mcp.json)`, targets: kiroTargets, traps: kiroTraps, detect: kiroDetect, launch: kiroLaunch, remote: true})
}

// kiroApprovedSetting is the setting holding the variables Kiro expands.
const kiroApprovedSetting = "kiroAgent.mcpApprovedEnvVars"

func kiroTargets(r *resolved) []target {
	path := r.home(".kiro", "settings", "mcp.json")
	if !r.global() {
		path = r.project(".kiro", "settings", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${" + r.key + "}"})
	if r.Remote != nil {
		entry = ordered("url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"})
	}
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

// kiroSettingsFiles are the files that may hold the approved variables:
// the CLI's settings and the IDE's user settings.
func kiroSettingsFiles(env install.Env) []string {
	return []string{
		osJoin(env.GOOS, env.Home, ".kiro", "settings", "cli.json"),
		osJoin(env.GOOS, vscodeUser(env, vscodeBuild{"Kiro", "Kiro", "kiro"}), "settings.json"),
	}
}

// kiroApproved returns the variables Kiro's settings approve, and the
// files that have the setting (none: it could not be read anywhere).
func kiroApproved(env install.Env) (vars, files []string) {
	for _, f := range kiroSettingsFiles(env) {
		list, isList := lookup(settingsOf(f), kiroApprovedSetting).([]any)
		if !isList {
			continue
		}
		files = append(files, f)
		for _, e := range list {
			if s, ok := e.(string); ok {
				vars = append(vars, s)
			}
		}
	}
	return vars, files
}

func kiroTraps(r *resolved, p *install.Plan, _ []parsed) {
	v, what := r.key, "the server gets the literal text ${"+r.key+"} as its key, and every search and fetch fails"
	if r.Remote != nil {
		v, what = r.Remote.TokenEnv, "Kiro sends the literal text ${"+r.Remote.TokenEnv+"} as the token, and the gateway refuses it"
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+v+"}\"")
	} else {
		p.Notes = append(p.Notes, "the entry passes "+v+" as ${"+v+"}")
	}
	approved, files := kiroApproved(r.Env)
	if slices.Contains(approved, v) {
		p.Notes = append(p.Notes, fmt.Sprintf("%s is among the variables Kiro expands (%s in %s)", v, kiroApprovedSetting, strings.Join(files, ", ")))
	} else {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Kiro expands ${%s} only once you approve %s: approve it when Kiro's security warning lists it (or add it to Mcp Approved Env Vars, %s, in Kiro's settings); until then %s", v, v, kiroApprovedSetting, what))
	}
	p.Notes = append(p.Notes, "Kiro asks before each call of deepseek_search or deepseek_fetch unless the entry's autoApprove lists them")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Kiro's built-in web search and fetch (web_search, web_fetch) cannot be turned off from mcp.json: with forced tiers they stay available to the model")
	}
}

func kiroDetect(env install.Env) bool {
	_, ok := env.Find("kiro")
	_, ok2 := env.Find("kiro-cli")
	return ok || ok2 || exists(filepath.Join(env.Home, ".kiro"))
}

// kiroLaunch works out how Kiro starts our server (see hostLaunch).
func kiroLaunch(c *launching) {
	// Not run here: the whole environment (unverified), and ${VAR} in env
	// expanded for the approved variables only; anything else stays as
	// written.
	approved, files := []string(nil), []string(nil)
	if c.rs != nil {
		approved, files = kiroApproved(c.rs.Env)
	}
	maps.Copy(c.env, c.parent)
	for k, v := range c.envCfg {
		c.env[k] = expand(braceVar, v, func(m []string) string {
			val, set := c.parent[m[1]]
			switch {
			case c.rs != nil && len(files) == 0:
				c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("doctor found no %s in %s, so it takes ${%s} as approved in Kiro's security warning; if you did not approve it there, the server gets the literal text", kiroApprovedSetting, strings.Join(kiroSettingsFiles(c.rs.Env), " or "), m[1]))
			case c.rs != nil && !slices.Contains(approved, m[1]):
				c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("%s is not among the variables Kiro expands (%s in %s): Kiro passes ${%s} as written; approve it in Kiro's security warning or settings", m[1], kiroApprovedSetting, strings.Join(files, ", "), m[1]))
				return m[0]
			}
			if !set {
				return m[0]
			}
			return val
		})
	}
}
