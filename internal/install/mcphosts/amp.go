package mcphosts

import (
	"maps"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Amp adapter. Facts marked [run] were seen with the Amp CLI
// @sourcegraph/amp 0.0.1790142911-g7618fb (@ampcode/cli-linux-x64)
// installed from npm into a scratch directory, with a separate HOME, a
// recording stdio server and a streamable-HTTP stub on 127.0.0.1 started
// by `amp mcp doctor` (AMP_API_KEY set to a fake key; nothing reached
// ampcode.com); [help] is that CLI's --help; [3p] is third-party material
// only (unverified).
//
//   - [help, run] User settings: $AMP_SETTINGS_FILE (or --settings-file),
//     else $XDG_CONFIG_HOME/amp/settings.json, else
//     ~/.config/amp/settings.json; settings.jsonc is read when
//     settings.json is absent, settings.json wins when both exist [run].
//     A workspace's .amp/settings.json (or .jsonc), looked up from the
//     current directory [run]. Windows: %USERPROFILE%\.config\amp\
//     settings.json [3p: a summary of ampcode.com's manual]. A relative
//     XDG_CONFIG_HOME is taken as given by Amp [run]; here it is ignored,
//     as the XDG spec says. A relative AMP_SETTINGS_FILE is taken from the
//     current directory (unverified).
//   - [run] The file is JSON with comments and trailing commas; a byte
//     order mark or an empty file makes Amp stop ("Invalid JSON in
//     settings file"). Servers are under the member "amp.mcpServers" (a
//     key with a dot, not a nested object): {command, args, env} as
//     `amp mcp add --env` writes it, or {url, headers}.
//   - [run] ${VAR} expands in command, args, env and headers; $VAR,
//     ${VAR:-default} and ${env:VAR} do not, and an unset ${VAR} stays as
//     written. The server inherits Amp's whole environment but
//     AMP_API_KEY, and runs in Amp's current directory. A remote entry's
//     "Authorization": "Bearer ${T}" reached the stub as the token.
//   - [run] A workspace's servers wait for `amp mcp approve NAME`, which
//     records the approval with a hash of the entry in the user settings
//     (amp.mcpTrustedServers): an entry changed later waits again.
//   - [run, help] Built-in web tools: web_search and read_web_page; the
//     setting amp.tools.disable lists tools to turn off (its effect was
//     not observed: `amp tools list` ignores it, and a thread needs Amp's
//     service).

// Amp is Sourcegraph's Amp CLI.
const Amp Host = "amp"

func init() {
	register(Amp, "Amp", adapter{label: `Amp (amp.mcpServers in settings.json)`, targets: ampTargets, traps: ampTraps, detect: ampDetect, launch: ampLaunch, remote: true})
}

// ampSettings returns dir's settings.json, or its settings.jsonc when
// only that exists.
func ampSettings(goos, dir string) string {
	json, jsonc := osJoin(goos, dir, "settings.json"), osJoin(goos, dir, "settings.jsonc")
	if !exists(json) && exists(jsonc) {
		return jsonc
	}
	return json
}

// ampUserSettings is the user settings file Amp reads.
func ampUserSettings(env install.Env) string {
	if f := env.Getenv("AMP_SETTINGS_FILE"); f != "" {
		if !filepath.IsAbs(f) && !(env.GOOS == "windows" && isWindowsAbs(f)) {
			f = osJoin(env.GOOS, env.WorkDir, f)
		}
		return f
	}
	return ampSettings(env.GOOS, osJoin(env.GOOS, xdgConfig(env), "amp"))
}

func ampTargets(r *resolved) []target {
	path := ampUserSettings(r.Env)
	if !r.global() {
		path = ampSettings(r.Env.GOOS, r.project(".amp"))
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${" + r.key + "}"})
	if r.Remote != nil {
		entry = ordered("url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"})
	}
	t := target{path: path, server: true, serverPath: []string{"amp.mcpServers", install.Name}, entry: entry}
	var off []string
	if r.searchForced() {
		off = append(off, "web_search")
	}
	if r.fetchForced() {
		off = append(off, "read_web_page")
	}
	if len(off) > 0 {
		t.adds = []addEdit{{Path: []string{"amp.tools.disable"}, Items: off}}
	}
	return []target{t}
}

func ampTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	rel := r.rel(ampTargets(r)[0].path)
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+"}\", which Amp expands when it connects; unset, Amp sends the literal text")
	} else {
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as ${"+r.key+"}, which Amp expands when it starts the server; unset, the server gets the literal text ${"+r.key+"}")
	}
	if !r.global() {
		p.Warnings = append(p.Warnings, "Amp starts a workspace's MCP servers only once you approve them: run `amp mcp approve "+install.Name+"` in "+r.root+" (again after an init that changes the entry: the approval is tied to it); `amp mcp doctor` shows \"awaiting approval\" until then")
	}
	if mark, _ := install.SplitBOM(cfgs[0].data); len(mark) > 0 {
		p.Warnings = append(p.Warnings, rel+" starts with a byte order mark, which Amp refuses (\"Invalid JSON in settings file\"): init keeps it, as it keeps every byte it does not own; remove it, or Amp will not start")
	}
	if r.searchForced() || r.fetchForced() {
		n := "forced tiers add Amp's built-in web_search / read_web_page to amp.tools.disable in " + rel
		if !r.global() {
			n += " (this workspace's list, which may stand in for the one in your user settings)"
		}
		p.Notes = append(p.Notes, n)
	}
}

func ampDetect(env install.Env) bool {
	_, ok := env.Find("amp")
	return ok || exists(filepath.Dir(ampUserSettings(env)))
}

// ampLaunch works out how Amp starts our server (see hostLaunch).
func ampLaunch(c *launching) {
	// Seen with 0.0.1790142911: the whole environment but AMP_API_KEY,
	// and ${VAR} in command, args and env; unset stays as written.
	maps.Copy(c.env, c.parent)
	delete(c.env, "AMP_API_KEY")
	c.command = expandSet(c.command, c.parent)
	for i := range c.args {
		c.args[i] = expandSet(c.args[i], c.parent)
	}
	for k, v := range c.envCfg {
		c.env[k] = expandSet(v, c.parent)
	}
}
