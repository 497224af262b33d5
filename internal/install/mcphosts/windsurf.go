package mcphosts

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Windsurf adapter. Windsurf is not run here: what it does rests on
// its documentation, marked [doc] (docs.windsurf.com/windsurf/cascade/mcp,
// stored copies in several languages, unversioned; the English page now
// redirects to docs.devin.ai/desktop/cascade/mcp), or on third-party
// material only, marked [3p] and unverified.
//
//   - [doc] The file is ~/.codeium/windsurf/mcp_config.json, the Claude
//     Desktop shape: mcpServers.<name> {command, args, env, disabled}.
//     Windows: %USERPROFILE%\.codeium\windsurf\mcp_config.json [3p]. No
//     project file is documented (a third-party converter lists
//     .windsurf/mcp_config.json: unverified), so --scope project is
//     refused.
//   - [doc] "supports variable interpolation in the following fields:
//     command, args, env, serverUrl, url, and headers". The syntax is
//     ${env:NAME} [3p: the docs' own example, "Bearer ${env:AUTH_TOKEN}",
//     quoted by several third parties; the stored copies drop the code
//     blocks]. What an unset variable becomes, and whether the server
//     inherits Windsurf's whole environment, is unverified: launch takes
//     the whole environment and "" for unset, as Cursor does.
//   - [doc] A remote server is {serverUrl | url, headers}; init writes
//     serverUrl (a Cursor-style url alone does not connect [3p]).
//   - [doc] Traps: "Cascade has a limit of 100 total tools that it has
//     access to at any given time"; press the refresh button after adding
//     a server; Enterprise users must turn MCP on, and admins may allow
//     only listed servers.
//   - [doc docs.codeium.com/windsurf/web-search] Cascade's own web search
//     and URL reading are switched on and off in Windsurf Settings (bottom
//     right of the editor), not in mcp_config.json.

// Windsurf is Codeium's Windsurf editor (Cascade).
const Windsurf Host = "windsurf"

func init() {
	register(Windsurf, "Windsurf", adapter{label: `Windsurf (mcp_config.json)`, targets: windsurfTargets, traps: windsurfTraps, detect: windsurfDetect, launch: windsurfLaunch, remote: true, urlKey: "serverUrl",
		noProject: "Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json (it documents no project file); run init without --scope project"})
}

// windsurfToolCap is Cascade's limit on the tools of all MCP servers.
const windsurfToolCap = 100

func windsurfTargets(r *resolved) []target {
	// One file whatever the scope: planInit refuses the project scope
	// (noProject) before it gets here.
	path := r.home(".codeium", "windsurf", "mcp_config.json")
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${env:" + r.key + "}"})
	if r.Remote != nil {
		entry = ordered("serverUrl", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${env:" + r.Remote.TokenEnv + "}"})
	}
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

func windsurfTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${env:"+r.Remote.TokenEnv+"}\", which Windsurf fills in from the environment it was started in")
	} else {
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${env:"+r.key+"}, which Windsurf fills in from the environment it was started in: export it in your shell profile, then start Windsurf")
	}
	if others := windsurfOthers(cfgs[0].plain); len(others) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Cascade uses at most %d tools from all MCP servers together, and mcp_config.json has other enabled servers (%s): if their tools reach the cap, Cascade leaves some out; turn off the tools you do not need in Windsurf's MCP settings so deepseek_search and deepseek_fetch stay available", windsurfToolCap, strings.Join(others, ", ")))
	} else {
		p.Notes = append(p.Notes, fmt.Sprintf("Cascade uses at most %d tools from all MCP servers together; this server adds 2", windsurfToolCap))
	}
	p.Notes = append(p.Notes, "press the refresh button in Cascade's MCP panel (or restart Windsurf) to load the new server; on Teams and Enterprise plans an admin must turn MCP on, and may allow only listed servers")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Windsurf's built-in web search and URL reading cannot be turned off from mcp_config.json: with forced tiers, turn Web Search off in Windsurf Settings (bottom right of the editor), or Cascade may still use it")
	}
}

// windsurfOthers names the other servers of mcp_config.json that are not
// disabled, sorted.
func windsurfOthers(plain any) []string {
	servers, _ := lookup(plain, "mcpServers").(map[string]any)
	var out []string
	for name, v := range servers {
		if name != install.Name && lookup(v, "disabled") != true {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func windsurfDetect(env install.Env) bool {
	_, ok := env.Find("windsurf")
	return ok || exists(filepath.Join(env.Home, ".codeium", "windsurf"))
}

// windsurfLaunch works out how Windsurf starts our server (see hostLaunch).
func windsurfLaunch(c *launching) {
	// Not run here: the whole environment, and ${env:NAME} in command,
	// args and env, as the docs describe; an unset one taken as ""
	// (unverified).
	cursorLaunch(c)
}
