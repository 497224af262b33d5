package mcphosts

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Kilo Code adapter: the Kilo CLI 7.7.7 (@kilocode/cli on npm, pinned in
// tests/hosts; 7.8.1, npm's latest, has no linux-x64 binary there) and the
// Kilo Code 7.x VS Code extension, which runs the same engine and shares its
// config [doc Kilo-Org/kilocode packages/kilo-docs/pages/automate/mcp/
// using-in-kilo-code.md @00014964]. The CLI is a Bun-compiled OpenCode fork:
// [src] below is the JavaScript inside the 7.7.7 binary (names as it has
// them), [run] seen by running it here (tests/hosts/kilo.test.js proves the
// rest).
//
//   - Global config [src KilocodeConfig.GLOBAL_CONFIG_FILES, Config.
//     updateGlobal; run `kilo debug paths`]: the directory is xdg-basedir's
//     $XDG_CONFIG_HOME/kilo, else ~/.config/kilo (os.homedir() on every
//     system, so %USERPROFILE%\.config\kilo on Windows: not run there).
//     Loaded in the order config.json, kilo.json, kilo.jsonc, opencode.json,
//     opencode.jsonc (later wins); Kilo writes its own settings into the
//     first of kilo.jsonc, kilo.json, opencode.jsonc, opencode.json,
//     config.json that exists, else creates kilo.jsonc, and [run] creates
//     kilo.jsonc ({"$schema": …}) itself on its first start when none
//     exists. $KILO_CONFIG_DIR is one more directory read after it (kilo.jsonc,
//     kilo.json, opencode.jsonc, opencode.json), trusted as the global one:
//     init writes there when it is set. ~/.config/opencode is not read [run].
//   - Project [src ConfigPaths.files, KilocodeConfig.projectConfigFiles,
//     updateProjectConfig, Config.loadInstanceState]: kilo.jsonc, kilo.json,
//     then opencode.jsonc, opencode.json from the working directory up to the
//     worktree, then the same four names inside .kilocode/ and .kilo/
//     (later wins, so .kilo/ over the project's opencode.json); Kilo writes
//     into the first existing of .kilo/*, .kilocode/*, then the root files,
//     else creates .kilo/kilo.jsonc. init follows that order but never picks
//     the root opencode.json[c]: that is OpenCode's own file, and OpenCode
//     has our tools from its plugin.
//   - Entry [doc above; src McpLocal/McpRemote]: mcp.<name> {type: "local",
//     command: [program, args…], environment, enabled, timeout, cwd} or
//     {type: "remote", url, headers, oauth (false: no OAuth discovery),
//     enabled}. Entries of the same name in several files merge into one
//     server [src KilocodeConfig.mergeConfig; run]: member by member, the
//     later file winning, and a change of type keeping only enabled and
//     timeout of the earlier.
//   - Variables [src ConfigVariable.substitute]: {env:VAR} is substituted in
//     the file's text when it is loaded (unset: ""; not on a // comment
//     line); $VAR stays literal [run, HOSTS.md]. In a project's config
//     (untrusted) any {env:…} makes Kilo skip the whole file
//     ("environment references are not allowed in project config") [run:
//     .kilo/kilo.jsonc and kilo.jsonc skipped]; in a project's opencode.json
//     [run] only the mcp entry holding it was dropped, so OpenCode's gateway
//     entry as init --host opencode --remote writes it gives Kilo nothing.
//   - Launch [src MCP.connectLocal]: command[0] with the rest as arguments,
//     cwd the entry's (resolved against the project) else the project,
//     environment {...process.env, ...environment} without
//     KILO_SERVER_PASSWORD, KILO_SERVER_USERNAME, KILO_BROWSER_BROKER_URL,
//     KILO_BROWSER_BROKER_TOKEN, KILO_CONFIG, KILO_CONFIG_CONTENT,
//     KILO_CONFIG_DIR.
//   - Plugins [run]: Kilo loads OpenCode 1.x "plugin" entries from a
//     project's opencode.json[c]: with our OpenCode plugin there (init --host
//     opencode1 --scope project), kilo run offered deepseek_search and
//     deepseek_fetch; the 2.x "plugins" key is ignored.
//   - Built-in tools [run]: webfetch is offered; websearch with Kilo's own
//     provider or KILO_ENABLE_EXA [src]. Both are turned off only with an
//     object member, "permission": {"webfetch": "deny"} (or the legacy
//     "tools": {"webfetch": false}), not an array, which init does not edit.
//   - [run] On its first start Kilo adds "$schema" to the global config
//     file, and "permission": {"bash": "allow"} to one that has settings
//     (once, marked by .bash-permission-migrated); it writes a .gitignore
//     into each config directory it loads.

// Kilo is Kilo Code (CLI and VS Code extension 7.x).
const Kilo Host = "kilo"

func init() {
	register(Kilo, "Kilo Code", adapter{label: `Kilo Code (mcp in kilo.jsonc)`, targets: kiloTargets, traps: kiloTraps, detect: kiloDetect, launch: kiloLaunch, remote: true, refuse: kiloRefuse, command: kiloCommand})
}

// kiloVar is {env:VAR}, as Kilo substitutes it in a config's text.
var kiloVar = regexp.MustCompile(`\{env:([^}]+)\}`)

// kiloDropped are the variables Kilo does not pass to a local MCP server.
var kiloDropped = []string{"KILO_SERVER_PASSWORD", "KILO_SERVER_USERNAME", "KILO_BROWSER_BROKER_URL", "KILO_BROWSER_BROKER_TOKEN", "KILO_CONFIG", "KILO_CONFIG_CONTENT", "KILO_CONFIG_DIR"}

// kiloConfigNames are the files Kilo reads in a config directory.
var kiloConfigNames = []string{"kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json"}

// kiloGlobalDir is the global config directory init writes into:
// $KILO_CONFIG_DIR, else Kilo's own ($XDG_CONFIG_HOME or ~/.config, then
// kilo).
func kiloGlobalDir(env install.Env) string {
	return envDir(env, "KILO_CONFIG_DIR", osJoin(env.GOOS, xdgConfig(env), "kilo"))
}

// kiloCandidates lists the files init may write for the scope, in the
// order Kilo picks the one it writes into (see the header).
func kiloCandidates(r *resolved) []string {
	var out []string
	if r.global() {
		dir := kiloGlobalDir(r.Env)
		names := kiloConfigNames
		if r.Env.Getenv("KILO_CONFIG_DIR") == "" || dir != r.Env.Getenv("KILO_CONFIG_DIR") {
			names = append(slices.Clone(names), "config.json")
		}
		for _, n := range names {
			out = append(out, r.join(dir, n))
		}
		return out
	}
	for _, d := range []string{".kilo", ".kilocode"} {
		for _, n := range kiloConfigNames {
			out = append(out, r.project(d, n))
		}
	}
	return append(out, r.project("kilo.jsonc"), r.project("kilo.json"))
}

// kiloPath is the file the entry goes in: the one an earlier init wrote
// (its record exists), else the first that exists, else the first.
func kiloPath(r *resolved) string {
	cs := kiloCandidates(r)
	for _, c := range cs {
		if exists(r.recordPath(c)) {
			return c
		}
	}
	for _, c := range cs {
		if exists(c) {
			return c
		}
	}
	return cs[0]
}

func kiloTargets(r *resolved) []target {
	var entry any
	command := append([]string{r.Binary}, r.args...)
	switch {
	case r.Remote != nil:
		entry = ordered("type", "remote", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer {env:" + r.Remote.TokenEnv + "}"}, "oauth", false, "enabled", true)
	case r.global():
		entry = ordered("type", "local", "command", command, "environment", map[string]string{r.key: "{env:" + r.key + "}"}, "enabled", true)
	default:
		// A project's config may not reference the environment.
		entry = ordered("type", "local", "command", command, "enabled", true)
	}
	return []target{{path: kiloPath(r), server: true, serverPath: []string{"mcp", install.Name}, entry: entry, hostOwned: []string{"$schema"}}}
}

// kiloOpenCode returns the project's opencode.jsonc or opencode.json (the
// one OpenCode reads) and its plain value, "" when there is none.
func kiloOpenCode(r *resolved) (string, any) {
	for _, n := range []string{"opencode.jsonc", "opencode.json"} {
		p := r.project(n)
		data, _, ok, err := install.ReadConfig(p)
		if err != nil || !ok {
			continue
		}
		v, err := install.Normalize(data)
		if err != nil {
			return "", nil
		}
		return p, v
	}
	return "", nil
}

// kiloPlugin returns our plugin's spec when the OpenCode 1.x "plugin" list
// of v has it.
func kiloPlugin(v any) string {
	list, _ := lookup(v, "plugin").([]any)
	for _, e := range list {
		spec, _ := e.(string)
		if t, ok := e.([]any); ok && len(t) > 0 {
			spec, _ = t[0].(string)
		}
		if strings.Contains(spec, install.Name) {
			return spec
		}
	}
	return ""
}

func kiloRefuse(r *resolved) error {
	if r.global() {
		return nil
	}
	if r.Remote != nil {
		return install.Refuse("Kilo Code skips a project's config file that references the environment ({env:…}), so a gateway entry there would have to hold the token itself",
			"run init --remote with --scope global: Kilo Code then connects to the gateway in every project")
	}
	if file, v := kiloOpenCode(r); file != "" {
		if spec := kiloPlugin(v); spec != "" {
			return install.Refuse(fmt.Sprintf("%s lists the %s OpenCode plugin (%q) under \"plugin\", which Kilo Code loads too: Kilo already has deepseek_search and deepseek_fetch in this project, and the MCP server beside it would offer every tool twice", file, install.Name, spec),
				"nothing to do for Kilo Code here; to give it the MCP server instead, run `"+install.Name+" uninstall --host opencode1 --scope project --dir "+install.ShellQuote(r.root)+" --yes` (OpenCode loses the plugin), then init again")
		}
	}
	return nil
}

func kiloTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	file := r.rel(kiloTargets(r)[0].path)
	switch {
	case r.Remote != nil:
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer {env:"+r.Remote.TokenEnv+"}\", which Kilo Code substitutes when it loads its config; \"oauth\": false keeps Kilo from starting OAuth when the gateway answers 401")
	case r.global():
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as \"{env:"+r.key+"}\", which Kilo Code substitutes when it loads its config (an unset variable becomes empty)")
	default:
		p.Notes = append(p.Notes, "Kilo Code skips a project's config file that references the environment ({env:…}), so the project entry passes none: the server inherits "+r.key+" from the environment Kilo Code runs in")
	}
	p.Notes = append(p.Notes, "Kilo Code shows the tools as "+install.Name+"_deepseek_search and "+install.Name+"_deepseek_fetch; the VS Code extension shares this config")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Kilo Code's built-in webfetch (and websearch, where it is on) stay available with forced tiers: Kilo turns a tool off only with an object member, which init does not write; add \"permission\": {\"webfetch\": \"deny\", \"websearch\": \"deny\"} to "+file+" yourself")
	}
	if r.global() {
		if cfgs[0].exists && lookup(cfgs[0].plain, "$schema") == nil {
			p.Notes = append(p.Notes, "Kilo Code adds \"$schema\" to "+file+" when it starts; uninstall takes out only what init added, and leaves that")
		}
		if !exists(filepath.Join(filepath.Dir(kiloTargets(r)[0].path), ".bash-permission-migrated")) && r.Env.Getenv("KILO_CONFIG_DIR") == "" {
			p.Notes = append(p.Notes, "Kilo Code has not run here yet: on its first start it adds \"permission\": {\"bash\": \"allow\"} to a global config that has settings (a one-time migration), which uninstall leaves")
		}
		return
	}
	if file, v := kiloOpenCode(r); file != "" && lookup(v, "mcp", install.Name) != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s has an mcp %q entry too (OpenCode's gateway entry?): Kilo Code reads that file, drops the entry if it references the environment ({env:…}, as init --remote writes it), and otherwise merges it with the one in %s into one server, whose values from %s win", r.rel(file), install.Name, file, file))
	}
}

func kiloDetect(env install.Env) bool {
	_, ok := env.Find("kilo")
	_, ok2 := env.Find("kilocode")
	return ok || ok2 || exists(kiloGlobalDir(env))
}

// kiloCommand flattens Kilo's entry for doctor: command[0] and the rest as
// args, environment as env; a remote entry keeps url and headers.
func kiloCommand(entry map[string]any) map[string]any {
	if entry["type"] == "remote" {
		return map[string]any{"url": entry["url"], "headers": entry["headers"]}
	}
	out := map[string]any{}
	if cmd, ok := entry["command"].([]any); ok && len(cmd) > 0 {
		out["command"] = cmd[0]
		out["args"] = cmd[1:]
	}
	if env, ok := entry["environment"]; ok {
		out["env"] = env
	}
	if cwd, ok := entry["cwd"]; ok {
		out["cwd"] = cwd
	}
	return out
}

// kiloLaunch works out how Kilo Code starts our server (see hostLaunch).
func kiloLaunch(c *launching) {
	c.inherit(func(k string) bool { return slices.Contains(kiloDropped, k) },
		func(s string) string { return kiloExpand(s, c.parent) })
}

func kiloExpand(s string, env map[string]string) string {
	return expand(kiloVar, s, func(m []string) string { return env[m[1]] })
}
