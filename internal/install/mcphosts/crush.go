package mcphosts

import (
	"os"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Crush adapter. Pinned: @charmland/crush 0.96.1 on npm. Crush cannot
// be run here: its npm package downloads the binary from github.com when
// it is installed, and the Go module proxy refuses
// github.com/charmbracelet/crush. [readme] is the README in the 0.96.1
// npm tarball; [src] the repository at 37f36e93 (2026-08-21, after tag
// v0.90.0; 0.96.1 came a month later, so details may have moved).
//
//   - Files [readme "Configuration"; src internal/config/load.go
//     lookupConfigs, GlobalConfig]: crushrc (Bash run by Crush's own
//     interpreter) is the current format; crush.json is "deprecated" but
//     read and merged with it. Global: $CRUSH_GLOBAL_CONFIG (a directory),
//     else $XDG_CONFIG_HOME/crush, else ~/.config/crush on every system
//     (%USERPROFILE%\.config\crush on Windows). Project: .crushrc,
//     crushrc, .crush.json, crush.json, looked up from the working
//     directory to the project's root; in one directory a crushrc wins
//     over the JSON on a conflict. init edits crush.json (JSON: the
//     installer can keep every other byte and take its entry out again),
//     or .crush.json where only that exists; a crushrc it never edits.
//   - Entry [readme "MCPs"; src MCPConfig]: mcp.<name> {type: "stdio",
//     command, args, env, timeout, disabled, disabled_tools,
//     enabled_tools}; remote {type: "http" | "sse", url, headers, oauth}.
//   - Variables [readme "A note on security", "Environment Variables";
//     src internal/config/resolve.go]: command, args, env, url and headers
//     go through a shell resolver: $VAR, ${VAR}, ${VAR:-default},
//     ${VAR:?message} and $(command); an unset variable is empty, and a
//     header that resolves to empty is dropped.
//   - Launch [src internal/agent/tools/mcp/init.go]: the server gets
//     os.Environ() plus the entry's env.
//   - Approval [src internal/app/app.go RunNonInteractive]: `crush run`
//     approves the session's tool calls; the interactive UI asks unless a
//     crushrc says `permissions allow …` or Crush runs with --yolo.
//   - Built-in tools [readme, src]: fetch, agentic_fetch, web_fetch,
//     web_search and sourcegraph compete with ours; a crushrc hides them
//     with `permissions deny …`, which init does not write. Tool names are
//     mcp_<server>_<tool>.

// Crush is Charm's Crush.
const Crush Host = "crush"

func init() {
	register(Crush, "Crush", adapter{label: `Crush (mcp in crush.json)`, targets: crushTargets, traps: crushTraps, detect: crushDetect, launch: crushLaunch, remote: true})
}

// crushVar is what Crush's resolver substitutes: $VAR, ${VAR}, with an
// optional :-default or :?message, and $(command).
var crushVar = regexp.MustCompile(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}|(\(.*?\)))`)

// crushGlobalDir is Crush's user config directory.
func crushGlobalDir(env install.Env) string {
	return envDir(env, "CRUSH_GLOBAL_CONFIG", osJoin(env.GOOS, xdgConfig(env), "crush"))
}

// crushDir is the directory whose crush.json the entry goes in.
func crushDir(r *resolved) string {
	if r.global() {
		return crushGlobalDir(r.Env)
	}
	return r.root
}

func crushTargets(r *resolved) []target {
	dir := crushDir(r)
	path := r.join(dir, "crush.json")
	if !r.global() && !exists(path) && exists(r.join(dir, ".crush.json")) {
		path = r.join(dir, ".crush.json")
	}
	entry := ordered("type", "stdio", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "$" + r.key})
	if r.Remote != nil {
		entry = ordered("type", "http", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer $" + r.Remote.TokenEnv})
	}
	return []target{{path: path, server: true, serverPath: []string{"mcp", install.Name}, entry: entry}}
}

func crushTraps(r *resolved, p *install.Plan, _ []parsed) {
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer $"+r.Remote.TokenEnv+"\", which Crush expands when it loads its config (with "+r.Remote.TokenEnv+" unset it sends no Authorization header, and the gateway refuses the call)")
	} else {
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as \"$"+r.key+"\", which Crush expands when it loads its config (an unset variable becomes empty)")
	}
	p.Notes = append(p.Notes, "Crush shows the tools as mcp_"+install.Name+"_deepseek_search and mcp_"+install.Name+"_deepseek_fetch, and asks before each call unless a crushrc allows them (`permissions allow …`) or Crush runs with --yolo")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Crush's built-in fetch, agentic_fetch, web_fetch and web_search stay available with forced tiers: init does not write a crushrc; add `permissions deny fetch agentic_fetch web_fetch web_search` to "+r.join(crushDir(r), "crushrc")+" yourself")
	}
	for _, rc := range []string{".crushrc", "crushrc"} {
		if r.global() && rc == ".crushrc" {
			continue
		}
		path := r.join(crushDir(r), rc)
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), install.Name) {
			p.Warnings = append(p.Warnings, path+" mentions "+install.Name+": a server of that name added there wins over the crush.json entry; take it out of the crushrc, or init's options do not apply")
		}
	}
}

func crushDetect(env install.Env) bool {
	_, ok := env.Find("crush")
	return ok || exists(crushGlobalDir(env))
}

// crushLaunch works out how Crush starts our server (see hostLaunch): its
// whole environment plus the entry's env, each value (and the command
// and arguments) through the shell resolver. doctor runs no $(command):
// it says so and leaves the text.
func crushLaunch(c *launching) {
	c.inherit(nil, func(s string) string {
		return expand(crushVar, s, func(m []string) string {
			if m[5] != "" {
				c.launch.Notes = append(c.launch.Notes, "the entry runs "+m[0]+" when Crush loads it; doctor does not run it and passes the text")
				return m[0]
			}
			name := m[1] + m[2]
			v, set := c.parent[name]
			switch m[3] {
			case ":-":
				if v == "" {
					return m[4]
				}
			case ":?":
				if v == "" {
					c.launch.Notes = append(c.launch.Notes, "Crush refuses to load the entry while "+name+" is unset or empty ("+m[4]+")")
				}
			}
			if !set {
				return ""
			}
			return v
		})
	})
}
