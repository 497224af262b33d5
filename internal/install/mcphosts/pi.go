package mcphosts

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Pi (pi-mcp-adapter) adapter. Each fact is taken from the host's own source or
// documentation; the real-host tests prove them against the installed host.
//
// nicobailon/pi-mcp-adapter README: Pi has no MCP of its own; the adapter
// (installed with `pi install npm:pi-mcp-adapter`) reads
// <Pi agent dir>/mcp.json (~/.pi/agent, or $PI_CODING_AGENT_DIR) and the
// project's .pi/mcp.json, and by default hides every server's tools behind
// one `mcp` proxy tool; "directTools": true registers them as Pi tools.
// Stdio servers inherit the environment (inheritEnv defaults to true).
// Code-mode extensions (pi-codemode and forks) leave only execute_tools
// active, so our tools are then reachable only from code.

func init() {
	adapters[Pi] = adapter{label: `Pi (pi-mcp-adapter mcp.json)`, targets: piTargets, traps: piTraps, detect: piDetect, launch: piLaunch}
}

// piVar is the variable syntax of pi-mcp-adapter utils.ts
// interpolateEnvVars: ${VAR}, $env:VAR and {env:VAR}; unset is "".
var piVar = regexp.MustCompile(`\$\{(\w+)\}|\$env:(\w+)|\{env:(\w+)\}`)

func piAgentDir(r *resolved) string {
	if r.Env.Getenv("PI_CODING_AGENT_DIR") != "" {
		return r.Env.Getenv("PI_CODING_AGENT_DIR")
	}
	return r.home(".pi", "agent")
}

func piTargets(r *resolved) []target {
	path := filepath.Join(piAgentDir(r), "mcp.json")
	if !r.global() {
		path = r.project(".pi", "mcp.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "directTools", true)
	return []target{{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}}
}

// piPackages lists the package and extension names Pi would load.
func piPackages(r *resolved) []string {
	var out []string
	dirs := []string{piAgentDir(r)}
	if !r.global() {
		dirs = append(dirs, r.project(".pi"))
	}
	for _, d := range dirs {
		if data, _, ok, err := install.ReadConfig(filepath.Join(d, "settings.json")); err == nil && ok {
			if v, err := install.Normalize(data); err == nil {
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

func piTraps(r *resolved, p *install.Plan, _ []parsed) {
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
	if bin, ok := r.Env.Find("pi"); ok {
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

func piDetect(env install.Env) bool {
	_, ok := env.Find("pi")
	d := env.Getenv("PI_CODING_AGENT_DIR")
	if d == "" {
		d = filepath.Join(env.Home, ".pi", "agent")
	}
	return ok || exists(d)
}

// piLaunch works out how Pi (pi-mcp-adapter) starts our server (see hostLaunch).
func piLaunch(c *launching) {
	// pi-mcp-adapter server-manager.ts: the command as written, args
	// interpolated, the environment inherited unless inheritEnv is
	// false, env values interpolated ("!cmd" runs a command; "!!"
	// escapes the "!"), or taken as written with literalEnv.
	if c.entry["inheritEnv"] != false {
		maps.Copy(c.env, c.parent)
	}
	for i := range c.args {
		c.args[i] = piExpand(c.args[i], c.parent)
	}
	for k, v := range c.envCfg {
		switch {
		case c.entry["literalEnv"] == true:
		case strings.HasPrefix(v, "!!"):
			v = piExpand(v[1:], c.parent)
		case strings.HasPrefix(v, "!"):
			c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("env %s is the output of a command Pi runs (%q); doctor does not run it and leaves %s unset", k, "!…", k))
			continue
		default:
			v = piExpand(v, c.parent)
		}
		c.env[k] = v
	}
}

func piExpand(s string, env map[string]string) string {
	return expand(piVar, s, func(m []string) string { return env[m[1]+m[2]+m[3]] })
}
