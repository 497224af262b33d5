package mcphosts

import (
	"fmt"
	"maps"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Goose adapter. Goose (aaif-goose/goose, formerly block/goose) is not
// run here: every fact is from its source at the commits named, read in
// the index of public repositories (no release tag could be tied to them),
// and its docs; [src] marks source, [doc] docs, and unverified what
// neither settles.
//
//   - File [src block/goose crates/goose/src/config/paths.rs @0780e228,
//     crates/goose/src/config/base.rs @8d496d4c; doc
//     documentation/docs/guides/config-files.md @1c220d75]: config.yaml in
//     Paths::config_dir(): $GOOSE_PATH_ROOT/config when that is absolute,
//     else etcetera's choose_app_strategy for author "Block", app "goose":
//     the XDG layout on Linux and macOS ($XDG_CONFIG_HOME/goose, else
//     ~/.config/goose), %APPDATA%\Block\goose\config on Windows. There is
//     no project file (recipes and `--with-extension` are per session), so
//     --scope project is refused.
//   - Entry [src crates/goose/src/config/extensions.rs @bfa2b966,
//     crates/goose/src/agents/extension.rs @5632aebc]: extensions.<key> is
//     an ExtensionEntry, `enabled` beside the flattened ExtensionConfig,
//     tagged by `type`. stdio: name, description, cmd, args (required),
//     envs, env_keys, timeout, bundled, available_tools. streamable_http:
//     uri, envs, env_keys, headers, timeout. An entry that does not
//     deserialize is skipped. The key of name "deepseek-web-retrieval" is
//     itself (name_to_key keeps letters, digits, "-" and "_").
//   - Key [src extension.rs resolve, merge_environments (extension_manager,
//     stored file), config/base.rs get_secret]: each env_keys name not in
//     envs is read as a secret: the environment variable first, then the
//     keyring (or secrets.yaml with GOOSE_DISABLE_KEYRING); one found in
//     neither fails the extension ("Failed to fetch secret"). The entry so
//     names the key's variable and never holds it. A streamable_http
//     entry's headers get ${VAR} / $VAR substituted from the same merged
//     variables, so --remote sends the token this way.
//   - Launch [src, the stdio connect in extension_manager (stored file)]:
//     tokio's Command with args and the merged envs, so the server also
//     inherits Goose's own environment; Goose puts its own search path in
//     PATH (unverified at these commits).
//   - Tool names are <key>__<tool> [src extension_manager/mod.rs @f9b5bea6].
//   - Goose reads the extensions when a session starts: restart it [doc].
//     It rewrites config.yaml with serde_yaml whenever a setting changes
//     (set_param, migrations), dropping comments [src config/base.rs].
//   - Its developer extension runs shell commands, and a web fetch tool
//     appears in later source [src platform_extensions/developer/web.rs
//     @2985dfe0]; config.yaml has no switch init could turn for them.

// Goose is the Goose host.
const Goose Host = "goose"

func init() {
	register(Goose, "Goose", adapter{
		label: `Goose (extensions in config.yaml)`, targets: gooseTargets, traps: gooseTraps, detect: gooseDetect, launch: gooseLaunch,
		remote: true, urlKey: "uri", command: gooseCommand,
		noProject: "Goose reads extensions only from its own config.yaml (a recipe's extensions list can name the server for one project); run init without --scope project",
	})
}

// gooseDir is Goose's config directory (see the top of this file).
func gooseDir(env install.Env) string {
	if root := envDir(env, "GOOSE_PATH_ROOT", ""); root != "" {
		return osJoin(env.GOOS, root, "config")
	}
	if env.GOOS == "windows" {
		return osJoin(env.GOOS, appData(env), "Block", "goose", "config")
	}
	return osJoin(env.GOOS, xdgConfig(env), "goose")
}

// gooseTargets: the global config.yaml, whatever the scope (planInit
// refuses the project scope).
func gooseTargets(r *resolved) []target {
	entry := ordered("enabled", true, "type", "stdio", "name", install.Name, "description", "Web search and page fetch through DeepSeek",
		"cmd", r.Binary, "args", r.args, "envs", map[string]string{}, "env_keys", []string{r.key}, "timeout", 300)
	if r.Remote != nil {
		entry = ordered("enabled", true, "type", "streamable_http", "name", install.Name, "description", "Web search and page fetch through DeepSeek (team gateway)",
			"uri", r.Remote.URL, "envs", map[string]string{}, "env_keys", []string{r.Remote.TokenEnv},
			"headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"}, "timeout", 300)
	}
	return []target{{path: r.join(gooseDir(r.Env), "config.yaml"), yaml: install.YAMLMember, server: true, serverPath: []string{"extensions", install.Name}, entry: entry}}
}

func gooseTraps(r *resolved, p *install.Plan, _ []parsed) {
	p.Notes = append(p.Notes, "Goose reads its extensions when a session starts: restart goose (and the desktop app) to load "+install.Name+"; it shows the tools as "+install.Name+"__deepseek_search and "+install.Name+"__deepseek_fetch")
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry names "+r.Remote.TokenEnv+" in env_keys and sends \"Authorization: Bearer ${"+r.Remote.TokenEnv+"}\": Goose reads the variable (else its keyring) and puts it in the header when it connects")
	} else {
		p.Notes = append(p.Notes, "the entry names "+r.key+" in env_keys: Goose reads it from its environment, else from its keyring (goose configure), and passes it to the server; the key is never written into config.yaml")
	}
	v := r.key
	if r.Remote != nil {
		v = r.Remote.TokenEnv
	}
	if r.Env.Getenv(v) == "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is not set in this shell: unless Goose's keyring holds it, Goose will not start %s (\"Failed to fetch secret '%s'\"); export it where Goose starts", v, install.Name, v))
	}
	p.Notes = append(p.Notes, "Goose rewrites config.yaml when one of its settings changes (goose configure, turning an extension on or off), and comments are lost then; uninstall still finds and removes only this entry")
	if r.searchForced() || r.fetchForced() {
		p.Warnings = append(p.Warnings, "Goose's developer extension can still reach the web (its shell, and a fetch tool in recent versions), and config.yaml has no switch init could turn: with forced tiers the model is told to use deepseek_search and deepseek_fetch, but nothing stops the others")
	}
}

func gooseDetect(env install.Env) bool {
	_, ok := env.Find("goose")
	return ok || exists(gooseDir(env))
}

// gooseCommand turns a Goose entry into the flat form: cmd, args, envs
// (and env_keys, which gooseLaunch resolves) for stdio; uri and headers
// for streamable_http.
func gooseCommand(e map[string]any) map[string]any {
	if e["type"] == "streamable_http" {
		return map[string]any{"uri": e["uri"], "headers": e["headers"]}
	}
	return map[string]any{"command": e["cmd"], "args": e["args"], "env": e["envs"], "env_keys": e["env_keys"]}
}

// gooseLaunch works out how Goose starts our server (see hostLaunch): its
// own environment, then each env_keys variable it finds (the environment
// first; its keyring, which doctor does not read, next), then envs.
func gooseLaunch(c *launching) {
	maps.Copy(c.env, c.parent)
	for _, k := range stringList(c.entry["env_keys"]) {
		if _, ok := c.envCfg[k]; ok {
			continue
		}
		if _, ok := c.parent[k]; !ok {
			c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("%s is not set here: Goose then looks in its keyring (or secrets.yaml), which doctor does not read, and does not start the extension when it is not there either", k))
		}
	}
	maps.Copy(c.env, c.envCfg)
}
