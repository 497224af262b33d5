package mcphosts

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Qwen Code adapter. Qwen Code 0.24.4 (@qwen-code/qwen-code on npm,
// pinned in tests/hosts). Its npm package ships the bundled source (chunks/,
// each part headed by its packages/… path) and its docs
// (bundled/qc-helper/docs); [doc] is those docs, [src] the bundle, [run]
// seen by running 0.24.4 here (tests/hosts/qwen.test.js proves the rest).
//
//   - Files [doc configuration/settings.md; src packages/core/src/config/
//     storage.ts getGlobalQwenDir]: user ~/.qwen/settings.json, where ~ is
//     os.homedir() on every system (%USERPROFILE% on Windows); $QWEN_HOME
//     moves the directory (a leading ~ is the home, a relative path is
//     taken from the working directory). Project: .qwen/settings.json.
//   - Entry [doc features/mcp.md; run `qwen mcp add`]: Gemini CLI's shape,
//     mcpServers.<name> {command, args, env, cwd, timeout, trust,
//     includeTools, excludeTools}; streamable HTTP is {httpUrl, headers}
//     (url means SSE).
//   - Variables [src packages/core/src/utils/envVarResolver.ts, packages/cli/
//     src/config/settings.ts]: every string of each settings file is
//     expanded when it is loaded, $VAR and ${VAR} (no default syntax); an
//     unset variable stays as written; SESSION_ID, QWEN_CODE_SESSION_ID and
//     Qwen's internal tokens are never expanded. Variables missing from the
//     environment are also looked up in ~/.qwen/.env (and ~/.env), which
//     doctor does not read.
//   - Launch [src packages/core/src/tools/mcp-client.ts createTransport,
//     packages/core/src/utils/sanitize-child-env.ts]: the server gets
//     {...process.env minus QWEN_SERVER_TOKEN, QWEN_DAEMON_TOKEN,
//     QWEN_CODE_EXTERNAL_TOOL_GUARD_TOKEN, QWEN_CODE_PRIVATE_ACP_CAPABILITY,
//     ...env}; cwd is the entry's.
//   - Deferred tools [doc configuration/settings.md tools.visible,
//     tools.toolSearch; src packages/core/src/tools/tool-registry.ts
//     isDeferredAndHidden, mcp-client.ts]: MCP tools are declared to the
//     model only through tool_search + tool_call unless tools.visible lists
//     them or the server's entry has alwaysLoadTools: true (which Qwen's own
//     daemon sets on servers a user connects on purpose). [run] with it,
//     mcp__deepseek-web-retrieval__deepseek_search and _fetch are in the
//     request's tools; without it, in the deferred list. The entry carries
//     the flag rather than listing our two names in tools.visible: it is
//     part of our entry, so it goes with it, and it does not depend on the
//     tool names Qwen derives.
//   - Built-in tools [doc configuration/settings.md tools.disabled; src
//     ToolNames WEB_FETCH "web_fetch", WEB_SEARCH "web_search"]:
//     tools.disabled (an array, merged across scopes) removes a tool from the
//     registry; [run] web_fetch left the deferred list. web_search exists
//     only with some ModelStudio plans [doc configuration/auth.md].
//     tools.exclude is deprecated.
//   - Project approval [run; src packages/cli/src/config/mcpApprovals.ts,
//     packages/core/src/mcp/configHash.ts]: a project server is "Pending
//     approval" in `qwen mcp list` and not started by interactive or
//     default-mode headless runs until `qwen mcp approve <name>`, which is
//     bound to a hash of the entry as loaded, variables expanded: [run] a
//     different DEEPSEEK_API_KEY value made an approved "$DEEPSEEK_API_KEY"
//     entry pending again. Headless runs with -y (yolo) start it anyway.
//     Precedence [run]: the project's .qwen/settings.json entry, then the
//     project's .mcp.json (read with no expansion at all), then the user's.
//   - [run] Qwen adds "$version": 4 to a settings file without it when it
//     loads it (keeping comments); it refuses a settings file with trailing
//     commas (a copy goes to settings.json.corrupted; the user file stops it
//     from starting, a project file is ignored); comments, CRLF and a byte
//     order mark are read.
//   - Folder trust [doc configuration/trusted-folders.md]: off by default;
//     on (security.folderTrust.enabled), an untrusted folder's
//     .qwen/settings.json is ignored.

// Qwen is Qwen Code.
const Qwen Host = "qwen"

func init() {
	register(Qwen, "Qwen Code", adapter{label: `Qwen Code (mcpServers in settings.json)`, targets: qwenTargets, traps: qwenTraps, detect: qwenDetect, launch: qwenLaunch, remote: true, urlKey: "httpUrl"})
}

// qwenVar is resolveEnvVarsInString's pattern: $VAR or ${VAR}.
var qwenVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+)\})`)

// qwenInternal are the variables Qwen Code neither expands nor passes to
// MCP servers (sanitize-child-env.ts).
var qwenInternal = []string{"QWEN_SERVER_TOKEN", "QWEN_DAEMON_TOKEN", "QWEN_CODE_EXTERNAL_TOOL_GUARD_TOKEN", "QWEN_CODE_PRIVATE_ACP_CAPABILITY"}

// qwenHome is Qwen Code's user directory: $QWEN_HOME, else ~/.qwen.
func qwenHome(env install.Env) string {
	v := env.Getenv("QWEN_HOME")
	switch {
	case v == "":
		return osJoin(env.GOOS, env.Home, ".qwen")
	case v == "~":
		return env.Home
	case strings.HasPrefix(v, "~/") || strings.HasPrefix(v, `~\`):
		return osJoin(env.GOOS, env.Home, v[2:])
	case filepath.IsAbs(v) || (env.GOOS == "windows" && isWindowsAbs(v)):
		return osJoin(env.GOOS, v)
	}
	return osJoin(env.GOOS, env.WorkDir, v)
}

func qwenTargets(r *resolved) []target {
	path := osJoin(r.Env.GOOS, qwenHome(r.Env), "settings.json")
	if !r.global() {
		path = r.project(".qwen", "settings.json")
	}
	var entry any
	switch {
	case r.Remote != nil:
		entry = ordered("httpUrl", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"}, "alwaysLoadTools", true)
	case r.global():
		entry = ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "$" + r.key}, "alwaysLoadTools", true)
	default:
		// No env: the approval would be bound to the key's value.
		entry = ordered("command", r.Binary, "args", r.args, "alwaysLoadTools", true)
	}
	t := target{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry, hostOwned: []string{"$version"}}
	var off []string
	if r.searchForced() {
		off = append(off, "web_search")
	}
	if r.fetchForced() {
		off = append(off, "web_fetch")
	}
	if len(off) > 0 {
		t.adds = []addEdit{{Path: []string{"tools", "disabled"}, Items: off}}
	}
	return []target{t}
}

func qwenTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	file := r.rel(qwenTargets(r)[0].path)
	switch {
	case r.Remote != nil:
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+"}\", which Qwen Code expands when it loads settings.json")
	case r.global():
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as \"$"+r.key+"\", which Qwen Code expands when it loads settings.json (an unset variable stays as the literal text)")
	default:
		p.Notes = append(p.Notes, "the project entry passes no env: the server inherits "+r.key+" from the environment Qwen Code runs in (Qwen binds an approval to the entry with its variables expanded, so \"$"+r.key+"\" would need a new approval whenever the key changes)")
	}
	if !r.global() {
		again := "after every change to the entry (init with other options included)"
		if r.Remote != nil {
			again += " or to the token's value"
		}
		p.Warnings = append(p.Warnings, "Qwen Code starts a project's MCP servers only once approved: run `qwen mcp approve "+install.Name+"` in "+r.root+", and again "+again+"; until then `qwen mcp list` shows it as Pending approval")
	}
	p.Notes = append(p.Notes, "the entry sets \"alwaysLoadTools\": true: without it Qwen Code hides MCP tools behind tool_search, and the model has to look them up before using them")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "forced tiers add Qwen Code's built-in web_search / web_fetch to tools.disabled")
	}
	if hasTrailingComma(cfgs[0].data) {
		p.Warnings = append(p.Warnings, file+" has trailing commas, which Qwen Code 0.24.4 cannot read (it saves a copy as settings.json.corrupted and does not use the file): init keeps them, as it keeps every byte it does not own; remove them, or Qwen Code will not see the server")
	}
	if cfgs[0].exists && lookup(cfgs[0].plain, "$version") == nil {
		p.Notes = append(p.Notes, "Qwen Code adds \"$version\" to "+file+" when it first loads it; uninstall takes out only what init added, and leaves that")
	}
	if allowed, ok := lookup(cfgs[0].plain, "mcp", "allowed").([]any); ok && !slices.Contains(allowed, any(install.Name)) {
		p.Warnings = append(p.Warnings, file+" limits MCP servers with mcp.allowed, which does not list "+install.Name+": Qwen Code will not start it")
	}
	if excluded, ok := lookup(cfgs[0].plain, "mcp", "excluded").([]any); ok && slices.Contains(excluded, any(install.Name)) {
		p.Warnings = append(p.Warnings, file+" lists "+install.Name+" in mcp.excluded: Qwen Code will not start it")
	}
	if !r.global() && qwenFolderTrust(r.Env) {
		p.Warnings = append(p.Warnings, "folder trust is on in your Qwen Code settings: it ignores .qwen/settings.json until you trust "+r.root+" (it asks the first time you run qwen there)")
	}
	// A Claude Code project entry of the same name in .mcp.json, which Qwen
	// reads too, with no variable expansion.
	dir := r.root
	if r.global() {
		dir = r.Env.WorkDir
	}
	if dir == "" || dir == r.Env.Home {
		return
	}
	if data, _, ok, err := install.ReadConfig(filepath.Join(dir, ".mcp.json")); err == nil && ok {
		if v, err := install.Normalize(data); err == nil && lookup(v, "mcpServers", install.Name) != nil {
			if r.global() {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s has a %s entry (Claude Code's project file), which Qwen Code uses in that project instead of the user entry, and with its env as written: Qwen expands no variable there, so a \"${%s:-}\" reaches the server as that literal text; run `%s` there to give Qwen its own entry", filepath.Join(dir, ".mcp.json"), install.Name, r.key, install.InitCommand(string(Qwen), dir, nil)))
			} else {
				p.Notes = append(p.Notes, ".mcp.json also has a "+install.Name+" entry; Qwen Code uses the one in .qwen/settings.json instead")
			}
		}
	}
}

// qwenFolderTrust reports whether the user settings turn folder trust on.
func qwenFolderTrust(env install.Env) bool {
	data, _, ok, err := install.ReadConfig(osJoin(env.GOOS, qwenHome(env), "settings.json"))
	if err != nil || !ok {
		return false
	}
	v, err := install.Normalize(data)
	return err == nil && lookup(v, "security", "folderTrust", "enabled") == true
}

// hasTrailingComma reports whether a JSONC document has a comma after the
// last member or element of an object or array.
func hasTrailingComma(data []byte) bool {
	_, body := install.SplitBOM(data)
	v, err := hujson.Parse(body)
	if err != nil {
		return false
	}
	for x := range v.All() {
		switch c := x.Value.(type) {
		case *hujson.Object:
			if n := len(c.Members); n > 0 && c.Members[n-1].Value.AfterExtra != nil {
				return true
			}
		case *hujson.Array:
			if n := len(c.Elements); n > 0 && c.Elements[n-1].AfterExtra != nil {
				return true
			}
		}
	}
	return false
}

func qwenDetect(env install.Env) bool {
	_, ok := env.Find("qwen")
	return ok || exists(qwenHome(env))
}

// qwenLaunch works out how Qwen Code starts our server (see hostLaunch).
func qwenLaunch(c *launching) {
	c.inherit(func(k string) bool { return slices.Contains(qwenInternal, strings.ToUpper(k)) },
		func(s string) string { return qwenExpand(s, c.parent) })
}

func qwenExpand(s string, env map[string]string) string {
	return expand(qwenVar, s, func(m []string) string {
		name := m[1] + m[2]
		up := strings.ToUpper(name)
		if up == "SESSION_ID" || up == "QWEN_CODE_SESSION_ID" || slices.Contains(qwenInternal, up) {
			return m[0]
		}
		if v, ok := env[name]; ok {
			return v
		}
		return m[0]
	})
}
