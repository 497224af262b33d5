package mcphosts

import (
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Continue adapter: the IDE extension and its CLI, cn
// (@continuedev/cli 1.5.47, read in its shipped source map and run by
// hand while the hosts were researched; tests/hosts/every-host.test.js
// installs into its config). [src] is that source unless another is
// named, [run] what the real cn did, [doc] Continue's docs; internal/install/hosts/
// HOSTS.md holds the research runs.
//
//   - Global file [src src/env.ts, src/configLoader.ts]:
//     $CONTINUE_GLOBAL_DIR/config.yaml, else ~/.continue/config.yaml
//     (os.homedir(): %USERPROFILE% on Windows). cn reads it when it
//     exists, and otherwise the hub's continuedev/default-cli-config: a
//     config.yaml init creates switches cn to it. The IDE writes the same
//     file on its first start as {name: Local Config, version: 1.0.0,
//     schema: v1, models: []} [src continuedev/continue
//     core/config/default.ts, newer stored versions, commit not shown]; a
//     missing file is created with those fields and our server.
//   - Entry [src packages/config-yaml/src/schemas/index.ts and
//     schemas/mcp/index.ts]: name and version are required; mcpServers is
//     a list of {name, command, type?: stdio, args, env, cwd,
//     connectionTimeout} or {name, url, type: sse | streamable-http,
//     apiKey, requestOptions: {headers, …}}.
//   - Key: the two readers differ. cn passes a stdio server its whole
//     environment plus the entry's env [src src/services/mcpTransports.ts;
//     run]; the IDE passes only HOME, USER, USERPROFILE, LOGNAME, USERNAME,
//     PATH and the entry's env [src continuedev/continue
//     core/context/mcp/MCPConnection.ts @9df9f64f]. So the entry passes
//     the key in env as ${{ secrets.KEY }}, which both resolve from the
//     environment and the .env files (cn: process.env, ~/.continue/.env,
//     <cwd>/.continue/.env, <cwd>/.env [src src/CLIPlatformClient.ts]; the
//     IDE: ~/.continue/.env, the workspace's .env, then process.env [src
//     core/config/yaml/LocalPlatformClient.ts @123d39ef]). Leaving env out
//     would work for cn alone. The price: a secret resolved nowhere makes
//     `cn -p` stop before the model is asked ("MCP server(s) failed to
//     load … unresolved secrets") [src src/services/MCPService.ts; run],
//     which the plan warns about when the variable is unset.
//   - A gateway entry (--remote) sends "Bearer ${{ secrets.TOKEN }}" in
//     requestOptions.headers, type streamable-http.
//   - Project scope: the IDE reads block files in .continue/mcpServers/
//     (name, version, schema: v1, one mcpServers item) [doc
//     docs.continue.dev/customize/deep-dives/mcp]; cn does not [run,
//     HOSTS.md]. init writes a file of its own there.
//   - Tools keep their own names (deepseek_search, deepseek_fetch) [run].
//     cn has a built-in Fetch tool, on unless excluded (`--exclude Fetch`,
//     or exclude in ~/.continue/permissions.yaml) [src
//     src/permissions/permissionsYamlLoader.ts]; headless `cn -p` allows
//     MCP tools, an interactive session asks [src
//     src/permissions/defaultPolicies.ts].

// Continue is the Continue host (IDE extension and cn).
const Continue Host = "continue"

func init() {
	register(Continue, "Continue", adapter{
		label: `Continue (mcpServers in config.yaml)`, targets: continueTargets, traps: continueTraps, detect: continueDetect, launch: continueLaunch,
		remote: true, command: continueCommand,
	})
}

// continueSecret is Continue's template for a secret.
var continueSecret = regexp.MustCompile(`\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// continueGlobalSkeleton is what the IDE writes into a new config.yaml.
const continueGlobalSkeleton = "name: Local Config\nversion: 1.0.0\nschema: v1\nmodels: []\n"

// continueDir is Continue's global directory (a relative
// CONTINUE_GLOBAL_DIR is taken from the directory init runs in, as cn run
// there takes it).
func continueDir(env install.Env) string {
	if d := env.Getenv("CONTINUE_GLOBAL_DIR"); d != "" {
		if filepath.IsAbs(d) || env.GOOS == "windows" && isWindowsAbs(d) {
			return d
		}
		return osJoin(env.GOOS, env.WorkDir, d)
	}
	return osJoin(env.GOOS, env.Home, ".continue")
}

func continueTargets(r *resolved) []target {
	secret := func(k string) string { return "${{ secrets." + k + " }}" }
	entry := ordered("name", install.Name, "command", r.Binary, "args", r.args, "env", map[string]string{r.key: secret(r.key)})
	if r.Remote != nil {
		entry = ordered("name", install.Name, "type", "streamable-http", "url", r.Remote.URL,
			"requestOptions", map[string]any{"headers": map[string]string{"Authorization": "Bearer " + secret(r.Remote.TokenEnv)}})
	}
	t := target{path: r.join(continueDir(r.Env), "config.yaml"), yaml: install.YAMLItem, skeleton: continueGlobalSkeleton,
		server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}
	if !r.global() {
		t.path = r.project(".continue", "mcpServers", install.Name+".yaml")
		t.skeleton = "name: " + install.Name + "\nversion: 0.0.1\nschema: v1\n"
	}
	return []target{t}
}

func continueTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	rel := r.rel(continueTargets(r)[0].path)
	if r.global() && !cfgs[0].exists {
		p.Warnings = append(p.Warnings, rel+" does not exist: init creates it as the Continue extension does on its first start (name, version, schema, models: []) with the server in it; the Continue CLI (cn) then reads this file instead of the hub's default config, and has no model until you add one")
	}
	if !r.global() {
		p.Notes = append(p.Notes, "the Continue IDE extension reads "+rel+" (a block file of this installer's own); the Continue CLI (cn) reads no project file: for cn, install without --scope project")
	}
	v := r.key
	if r.Remote != nil {
		v = r.Remote.TokenEnv
		p.Notes = append(p.Notes, "the entry sends \"Authorization: Bearer ${{ secrets."+v+" }}\", which Continue fills from "+v+" (or ~/.continue/.env) when it connects")
	} else {
		p.Notes = append(p.Notes, "the entry passes "+v+" in env as ${{ secrets."+v+" }}, which Continue fills from the environment or ~/.continue/.env: the IDE passes MCP servers almost none of its environment, so the key goes in env; the key itself is never written")
	}
	if r.Env.Getenv(v) == "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is not set in this shell: `cn -p` stops before asking the model (\"MCP server(s) failed to load … unresolved secrets\") until it is exported or put in ~/.continue/.env, and the IDE starts the server without it", v))
	}
	p.Notes = append(p.Notes, "Continue shows the tools as deepseek_search and deepseek_fetch (no server prefix); an interactive cn session asks before each call, `cn -p` allows them; start a new cn session to load the server")
	if r.fetchForced() {
		p.Warnings = append(p.Warnings, "fetch=forced cannot turn off the Continue CLI's built-in Fetch from config.yaml: run cn with --exclude Fetch, or add Fetch to exclude in ~/.continue/permissions.yaml")
	}
	if r.searchForced() {
		p.Notes = append(p.Notes, "the Continue CLI has no built-in web search to turn off (its Search tool searches the code)")
	}
}

func continueDetect(env install.Env) bool {
	_, ok := env.Find("cn")
	return ok || exists(continueDir(env))
}

// continueCommand turns a gateway entry into the flat form (url, and the
// headers with ${{ secrets.X }} read as ${X}); a command entry is flat
// already.
func continueCommand(e map[string]any) map[string]any {
	url, ok := e["url"]
	if !ok {
		return e
	}
	headers := map[string]any{}
	h, _ := lookup(e, "requestOptions", "headers").(map[string]any)
	for k, v := range h {
		if s, ok := v.(string); ok {
			v = continueSecret.ReplaceAllString(s, "$${$1}")
		}
		headers[k] = v
	}
	return map[string]any{"url": url, "headers": headers}
}

// continueLaunch works out how Continue starts our server (see
// hostLaunch), as cn does: the entry's env with ${{ secrets.X }} filled
// from the environment, then every other non-empty variable of the
// environment. A secret the environment does not hold is left out, with a
// note: cn looks in the .env files next, which doctor does not read.
func continueLaunch(c *launching) {
	for k, v := range c.envCfg {
		missing := ""
		v = continueSecret.ReplaceAllStringFunc(v, func(m string) string {
			name := continueSecret.FindStringSubmatch(m)[1]
			if c.parent[name] == "" {
				missing = name
			}
			return c.parent[name]
		})
		if missing != "" {
			c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("${{ secrets.%s }} does not resolve here (%s is not set): unless ~/.continue/.env or the project's .env holds it, `cn -p` stops with \"unresolved secrets\" and the IDE starts the server without it", missing, missing))
			continue
		}
		c.env[k] = v
	}
	for k, v := range c.parent {
		if _, set := c.envCfg[k]; !set && v != "" {
			c.env[k] = v
		}
	}
}
