package mcphosts

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The VS Code (GitHub Copilot Chat) adapter. Each fact is taken from the
// host's own source or documentation; none was seen running here (no VS
// Code on this machine): the adapter is written, uninstalled and doctored
// only.
//
// Files [doc microsoft/vscode-docs docs/agents/reference/mcp-configuration.md
// @08868fe5]: MCP servers are declared in mcp.json, in the user profile or
// in the workspace's .vscode/mcp.json, as "servers": {name: {...}} beside
// an optional "inputs" array. The default profile's folder is the user
// data directory's User folder [src microsoft/vscode
// src/vs/platform/userDataProfile/common/userDataProfile.ts @b2672bef:
// the default profile's location is userRoamingDataHome; its
// mcpResource = joinPath(location, 'mcp.json') is in later versions, not
// at a pinned commit here]; the user data directory per system and build
// is vscodeUser's (paths.go). Named profiles keep their own mcp.json under
// User/profiles/<id>/: not written (the default profile is the one every
// window without a profile uses).
//
// Several builds (VS Code, Insiders, VSCodium) each have their own user
// data directory and so their own mcp.json. A global install writes the
// entry into the mcp.json of every build found here (its User directory
// exists or its launcher is on PATH), stable first, so that a user with
// Insiders only gets Insiders and one with both gets both; with none
// found, stable VS Code's. The build whose file keys the install record
// stays first (and stays a target) whatever is installed or removed later,
// so that uninstall and doctor find the record; init run again adds the
// entry to a build installed since.
//
// Entry [doc, same page]: stdio {type: "stdio", command, args, env,
// envFile}; HTTP {type: "http" | "sse", url, headers, oauth}. The file is
// JSONC (comments, trailing commas): edited member by member, the rest
// kept byte for byte.
//
// Variables and environment [src microsoft/vscode
// src/vs/workbench/contrib/mcp/common/mcpRegistry.ts (indexed version,
// _replaceVariablesInLaunch): the whole serialized launch, command, args,
// env and an HTTP server's headers included, goes through the
// configuration resolver; src/vs/workbench/services/configurationResolver/
// common/variableResolver.ts: ${env:NAME} is the variable's value, an
// unset one "" ("as a normal shell does"), NAME looked up lowercased on
// Windows]. [src src/vs/workbench/api/node/extHostMcpNode.ts @0334cc07:
// a stdio server gets {...process.env of the extension host, ...envFile,
// ...env}; an env PATH is appended to the inherited one, a null value
// removes the variable]. So the entry passes the key as ${env:KEY}, and a
// gateway token as "Bearer ${env:TOKEN}".
//
// Traps: the first start of a server asks "Trust and run MCP server …?"
// [src mcpRegistry.ts _checkTrust / _promptForTrust; doc "MCP: Reset
// Trust"], and a workspace's servers need a trusted workspace; the
// chat.mcp.access setting ("none" | "registry" | "all", default "all")
// hides every server ("none") or every server not installed from the MCP
// registry ("registry") [src src/vs/platform/mcp/common/mcpManagement.ts
// and mcpRegistry.ts, indexed versions]; "a chat request can have a
// maximum of 128 tools enabled at a time" [doc docs/agents/agent-tools.md
// @08868fe5, FAQ]; the built-in #web/fetch tool [doc
// docs/agents/reference/copilot-vscode-features.md @08868fe5] cannot be
// turned off from mcp.json (the tools picker and custom agents choose the
// tools of a request); the built-in tools have no general web search
// (#githubRepo and #githubTextSearch search GitHub code). Unverified here:
// whether a byte order mark in mcp.json is accepted (init keeps it).

// VSCode is VS Code with GitHub Copilot Chat (MCP servers in mcp.json).
const VSCode Host = "vscode"

func init() {
	register(VSCode, "VS Code (GitHub Copilot Chat)", adapter{label: `VS Code (servers in mcp.json)`, targets: vscodeTargets, traps: vscodeTraps, detect: vscodeDetect, launch: vscodeLaunch, remote: true, signIn: true})
}

// vscodeVar is a ${env:NAME} reference of VS Code's configuration
// resolver.
var vscodeVar = regexp.MustCompile(`\$\{env:([^}]+)\}`)

// buildFile is a VS Code build and the file a host keeps in it.
type buildFile struct {
	build vscodeBuild
	path  string
}

// pickBuilds chooses the builds a global install into host r.Host writes:
// those present reports, and those the host's install record names; the
// build whose file keys that record first. fallback is used when there is
// none. file gives each build's file.
func pickBuilds(r *resolved, file func(vscodeBuild) string, present func(vscodeBuild) bool, fallback func() []vscodeBuild) []buildFile {
	var all []buildFile
	for _, b := range vscodeBuilds {
		all = append(all, buildFile{b, file(b)})
	}
	holder := -1
	var recorded []string
	for i, bf := range all {
		if rec, _, err := install.ReadRecord(r.recordPath(bf.path), upgradeV1); err == nil && rec != nil {
			holder = i
			for _, f := range rec.Files {
				recorded = append(recorded, f.Path)
			}
			break
		}
	}
	var out []buildFile
	add := func(bf buildFile) {
		if !slices.ContainsFunc(out, func(o buildFile) bool { return o.path == bf.path }) {
			out = append(out, bf)
		}
	}
	if holder >= 0 {
		add(all[holder])
	}
	for _, bf := range all {
		if present(bf.build) || slices.Contains(recorded, bf.path) {
			add(bf)
		}
	}
	if len(out) == 0 {
		for _, b := range fallback() {
			add(buildFile{b, file(b)})
		}
	}
	return out
}

// vscodePresent reports whether a VS Code build looks installed: its User
// directory exists or its launcher is on PATH.
func vscodePresent(env install.Env, b vscodeBuild) bool {
	_, ok := env.Find(b.Program)
	return ok || exists(vscodeUser(env, b))
}

// vscodeFiles are the user mcp.json files a global install writes.
func vscodeFiles(r *resolved) []buildFile {
	return pickBuilds(r,
		func(b vscodeBuild) string { return r.join(vscodeUser(r.Env, b), "mcp.json") },
		func(b vscodeBuild) bool { return vscodePresent(r.Env, b) },
		func() []vscodeBuild { return vscodeBuilds[:1] })
}

func vscodeTargets(r *resolved) []target {
	entry := ordered("type", "stdio", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${env:" + r.key + "}"})
	switch {
	case r.signsIn():
		entry = ordered("type", "http", "url", r.Remote.URL)
	case r.Remote != nil:
		entry = ordered("type", "http", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${env:" + r.Remote.TokenEnv + "}"})
	}
	at := []string{"servers", install.Name}
	if !r.global() {
		return []target{{path: r.project(".vscode", "mcp.json"), server: true, serverPath: at, entry: entry}}
	}
	var ts []target
	for _, bf := range vscodeFiles(r) {
		ts = append(ts, target{path: bf.path, server: true, serverPath: at, entry: entry})
	}
	return ts
}

// buildsNote says which builds a global install writes into, when more
// than one.
func buildsNote(r *resolved, p *install.Plan, host string, bfs []buildFile) {
	if len(bfs) < 2 {
		return
	}
	var names, files []string
	for _, bf := range bfs {
		names = append(names, bf.build.Name)
		files = append(files, r.rel(bf.path))
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s is set up in each VS Code build found here (%s): the entry goes into %s; doctor checks the first", host, strings.Join(names, ", "), strings.Join(files, " and ")))
}

func vscodeTraps(r *resolved, p *install.Plan, _ []parsed) {
	settings := []string{r.project(".vscode", "settings.json")}
	if r.global() {
		bfs := vscodeFiles(r)
		buildsNote(r, p, "VS Code", bfs)
		settings = nil
		for _, bf := range bfs {
			settings = append(settings, r.join(vscodeUser(r.Env, bf.build), "settings.json"))
		}
	} else {
		settings = append(settings, r.join(vscodeUser(r.Env, vscodeFiles(r)[0].build), "settings.json"))
	}
	switch {
	case r.signsIn():
		p.Notes = append(p.Notes, "the entry holds no token: VS Code asks you to sign in through your organisation's identity provider when it first starts the server")
	case r.Remote != nil:
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${env:"+r.Remote.TokenEnv+"}\", which VS Code fills in from its own environment when it connects (an unset variable gives an empty token)")
	default:
		p.Notes = append(p.Notes, "the entry passes "+r.key+" as \"${env:"+r.key+"}\", which VS Code fills in from its own environment when it starts the server (an unset variable gives an empty key): start VS Code from a shell where "+r.key+" is exported")
	}
	trust := "the first time the server starts, VS Code asks \"Trust and run MCP server " + install.Name + "?\": answer Trust (\"MCP: Reset Trust\" undoes a refusal)"
	if !r.global() {
		trust += "; VS Code runs a workspace's MCP servers only once you trust the workspace"
	}
	p.Notes = append(p.Notes, trust)
	p.Notes = append(p.Notes, "Copilot Chat asks before each call of an MCP tool unless you allow it for the session, the workspace or always (\"Chat: Manage Tool Approval\")")
	p.Notes = append(p.Notes, "a chat request can have at most 128 tools enabled: if Copilot Chat says \"Cannot have more than 128 tools per request\", deselect tools in the chat's tools picker (Configure Tools) or turn on github.copilot.chat.virtualTools.threshold")
	if r.fetchForced() {
		p.Warnings = append(p.Warnings, "Copilot Chat's built-in #web/fetch tool cannot be turned off from mcp.json: with fetch forced, deselect it in the chat's tools picker (Configure Tools) or leave it out of your custom agent's tools, or the model may still use it")
	}
	if r.searchForced() {
		p.Notes = append(p.Notes, "VS Code's built-in tools have no general web search to turn off (#githubRepo and #githubTextSearch search GitHub code only); a web-search extension or MCP server you added stays available")
	}
	p.Warnings = append(p.Warnings, mcpAccessWarnings(r, settings)...)
}

// mcpAccessWarnings reads chat.mcp.access in VS Code settings files: "none"
// hides every MCP server, "registry" every server not installed from the
// MCP registry, ours included.
func mcpAccessWarnings(r *resolved, files []string) []string {
	var out []string
	for _, f := range files {
		m, _ := settingsOf(f).(map[string]any)
		switch m["chat.mcp.access"] {
		case "none":
			out = append(out, fmt.Sprintf("%s sets chat.mcp.access to \"none\": VS Code starts no MCP server at all; set it to \"all\" (or remove it) to use %s", r.rel(f), install.Name))
		case "registry":
			out = append(out, fmt.Sprintf("%s sets chat.mcp.access to \"registry\": VS Code runs only MCP servers installed from its registry, not %s; set it to \"all\" (or remove it)", r.rel(f), install.Name))
		}
	}
	return out
}

func vscodeDetect(env install.Env) bool {
	return slices.ContainsFunc(vscodeBuilds, func(b vscodeBuild) bool { return vscodePresent(env, b) })
}

// vscodeLaunch works out how VS Code starts our server (see hostLaunch):
// the extension host's environment (doctor's own stands for it), ${env:}
// resolved in command, args and env (unset: ""), an env PATH appended to
// the inherited one, a null env value removing the variable.
func vscodeLaunch(c *launching) {
	maps.Copy(c.env, c.parent)
	c.command = vscodeExpand(c.command, c.parent)
	for i := range c.args {
		c.args[i] = vscodeExpand(c.args[i], c.parent)
	}
	for k, v := range c.envCfg {
		v = vscodeExpand(v, c.parent)
		if strings.EqualFold(k, "PATH") && c.env[k] != "" {
			v = c.env[k] + string(os.PathListSeparator) + v
		}
		c.env[k] = v
	}
	if m, ok := c.entry["env"].(map[string]any); ok {
		for k, v := range m {
			if v == nil {
				delete(c.env, k)
			}
		}
	}
}

func vscodeExpand(s string, env map[string]string) string {
	return expand(vscodeVar, s, func(m []string) string {
		if v, ok := env[m[1]]; ok {
			return v
		}
		if runtime.GOOS == "windows" {
			for k, v := range env {
				if strings.EqualFold(k, m[1]) {
					return v
				}
			}
		}
		return ""
	})
}
