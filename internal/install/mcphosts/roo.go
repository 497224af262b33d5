package mcphosts

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Roo Code adapter. Each fact is taken from the extension's source at
// the pinned release; no Roo Code runs here (it is a VS Code extension):
// the adapter is written, uninstalled and doctored only.
//
// Pinned: RooCodeInc/Roo-Code tag v3.52.1 (67def721), extension
// RooVeterinaryInc.roo-cline 3.52.1 [src src/package.json].
//
// Files [src src/services/mcp/McpHub.ts, src/utils/storage.ts,
// src/shared/globalFileNames.ts]: the global file is
// <settings dir>/mcp_settings.json, where the settings directory is
// <roo-cline.customStoragePath>/settings when that VS Code setting names a
// usable directory, else <the extension's globalStorage>/settings; VS Code
// puts an extension's globalStorage at <User dir>/globalStorage/<the
// extension id, lowercased> [src microsoft/vscode
// src/vs/workbench/api/common/extHostStoragePaths.ts, indexed version:
// joinPath(globalStorageHome, identifier.toLowerCase());
// userDataProfile.ts @b2672bef: globalStorageHome = <profile>/globalStorage],
// so <User dir>/globalStorage/rooveterinaryinc.roo-cline/settings/
// mcp_settings.json in each VS Code build (vscodeUser, paths.go). The
// project file is <workspace>/.roo/mcp.json; on a name clash the project's
// server wins [doc docs.roocode.com/features/mcp/using-mcp-in-roo]. Other
// editors made from VS Code (Cursor, Windsurf) have globalStorage folders
// too, but Roo Code's documentation names none of them: they are left out.
//
// Which builds: as for VS Code (see pickBuilds), the builds where Roo Code
// has a globalStorage folder (it creates it when it starts); with none,
// the first VS Code build found (else stable VS Code), with a warning.
//
// Both files are read with JSON.parse [src McpHub.ts
// initializeMcpServers]: strict JSON, no comments, no trailing commas, no
// byte order mark; init keeps whatever it does not own and warns about
// those. Roo watches both files and reconnects a changed server without a
// restart [src McpHub.ts watchMcpSettingsFile, watchProjectMcpFile,
// updateServerConnections]; when the user changes a server in Roo's MCP
// view (Always allow, disable, timeout) Roo rewrites the whole file as
// pretty-printed JSON [src McpHub.ts updateServerConfig,
// updateServerToolList: safeWriteJson(…, {prettyPrint: true})].
//
// Entry [src McpHub.ts ServerConfigSchema]: stdio {type?: "stdio",
// command, args, cwd (default: the first workspace folder), env, disabled,
// timeout (1–3600 s, default 60), alwaysAllow, disabledTools, watchPaths};
// remote {type: "streamable-http" | "sse", url, headers}, stdio and URL
// fields never mixed.
//
// Environment [src McpHub.ts connectToServer]: the entry goes through
// injectVariables (src/utils/config.ts) with {env: process.env,
// workspaceFolder}: on the entry's JSON text, ${env:NAME} (NAME \w+) is
// replaced by the variable's value with backslashes made forward slashes
// (String.prototype.toPosix, src/utils/path.ts; a \\?\ path is kept), an
// unset one left as written; ${workspaceFolder} likewise. A stdio server
// gets {...getDefaultEnvironment(), ...env}: only the MCP SDK's default
// list [src modelcontextprotocol/typescript-sdk src/client/stdio.ts at
// 1.12.0, the version Roo pins: HOME, LOGNAME, PATH, SHELL, TERM, USER;
// on Windows APPDATA, HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH,
// PROCESSOR_ARCHITECTURE, SYSTEMDRIVE, SYSTEMROOT, TEMP, USERNAME,
// USERPROFILE; a value starting "()" skipped], so the key must be in the
// entry's env. On Windows the command runs as cmd.exe /c <command> <args>.
//
// Approvals [src src/core/auto-approval/index.ts]: an MCP tool call is
// asked about unless auto-approve for MCP (alwaysAllowMcp) is on and the
// tool is in the entry's alwaysAllow (or "*"). Built-in tools
// [src packages/types/src/tool.ts toolNames]: no web search or fetch.

// Roo is the Roo Code extension.
const Roo Host = "roo"

func init() {
	register(Roo, "Roo Code", adapter{label: `Roo Code (mcpServers)`, targets: rooTargets, traps: rooTraps, detect: rooDetect, launch: rooLaunch, remote: true})
}

// rooExtension is Roo Code's extension id as its globalStorage folder
// names it.
const rooExtension = "rooveterinaryinc.roo-cline"

// rooDefaultEnv is the MCP SDK 1.12.0's getDefaultEnvironment list.
var rooDefaultEnv = map[string][]string{
	"windows": {"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"},
	"":        {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"},
}

// rooVar is a variable of Roo Code's injectVariables: ${env:NAME} and
// ${workspaceFolder}.
var rooVar = regexp.MustCompile(`\$\{(?:env:(\w+)|(workspaceFolder))\}`)

// rooCustomStorage is the roo-cline.customStoragePath setting in a build's
// user settings.json, "" when unset or not an absolute path.
func rooCustomStorage(env install.Env, b vscodeBuild) string {
	m, _ := settingsOf(osJoin(env.GOOS, vscodeUser(env, b), "settings.json")).(map[string]any)
	s, _ := m["roo-cline.customStoragePath"].(string)
	if filepath.IsAbs(s) || (env.GOOS == "windows" && isWindowsAbs(s)) {
		return s
	}
	return ""
}

// rooFile is Roo Code's global mcp_settings.json in a build.
func rooFile(env install.Env, b vscodeBuild) string {
	if custom := rooCustomStorage(env, b); custom != "" {
		return osJoin(env.GOOS, custom, "settings", "mcp_settings.json")
	}
	return osJoin(env.GOOS, vscodeUser(env, b), "globalStorage", rooExtension, "settings", "mcp_settings.json")
}

// rooPresent reports whether Roo Code has run in a build: its
// globalStorage folder (or its custom storage directory) exists.
func rooPresent(env install.Env, b vscodeBuild) bool {
	if custom := rooCustomStorage(env, b); custom != "" && exists(custom) {
		return true
	}
	return exists(osJoin(env.GOOS, vscodeUser(env, b), "globalStorage", rooExtension))
}

// rooFiles are the mcp_settings.json files a global install writes.
func rooFiles(r *resolved) []buildFile {
	return pickBuilds(r,
		func(b vscodeBuild) string { return rooFile(r.Env, b) },
		func(b vscodeBuild) bool { return rooPresent(r.Env, b) },
		func() []vscodeBuild {
			for _, b := range vscodeBuilds {
				if vscodePresent(r.Env, b) {
					return []vscodeBuild{b}
				}
			}
			return vscodeBuilds[:1]
		})
}

func rooTargets(r *resolved) []target {
	entry := ordered("type", "stdio", "command", r.Binary, "args", r.args, "env", map[string]string{r.key: "${env:" + r.key + "}"})
	if r.Remote != nil {
		entry = ordered("type", "streamable-http", "url", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${env:" + r.Remote.TokenEnv + "}"})
	}
	at := []string{"mcpServers", install.Name}
	if !r.global() {
		return []target{{path: r.project(".roo", "mcp.json"), server: true, serverPath: at, entry: entry}}
	}
	var ts []target
	for _, bf := range rooFiles(r) {
		ts = append(ts, target{path: bf.path, server: true, serverPath: at, entry: entry})
	}
	return ts
}

func rooTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	ts := rooTargets(r)
	if r.global() {
		bfs := rooFiles(r)
		buildsNote(r, p, "Roo Code", bfs)
		if !rooPresent(r.Env, bfs[0].build) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("Roo Code has not run in any VS Code build here (no globalStorage/%s folder): init writes %s, which Roo Code reads once it is installed in %s", rooExtension, r.rel(bfs[0].path), bfs[0].build.Name))
		}
	}
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${env:"+r.Remote.TokenEnv+"}\", which Roo Code fills in from its own environment when it connects (an unset variable is sent as that literal text)")
	} else {
		few := "HOME, LOGNAME, PATH, SHELL, TERM, USER"
		if r.Env.GOOS == "windows" {
			few = strings.Join(rooDefaultEnv["windows"], ", ")
		}
		p.Notes = append(p.Notes, "Roo Code gives a server only a few variables of its environment ("+few+") plus the entry's env, so the entry passes "+r.key+" as \"${env:"+r.key+"}\": Roo fills it in from its own environment, and an unset variable reaches the server as that literal text; start VS Code from a shell where "+r.key+" is exported")
	}
	p.Notes = append(p.Notes, "Roo Code watches this file and connects to the server without a restart")
	p.Notes = append(p.Notes, "Roo Code asks before each call of an MCP tool unless auto-approve is on for MCP and the tool is ticked \"Always allow\"; ticking it (or changing the server in Roo's MCP view) makes Roo rewrite the whole file and changes the entry, which uninstall then asks you to remove by hand")
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "Roo Code has no built-in web search or fetch tool to turn off; forced tiers need nothing more there")
	}
	for i, c := range cfgs {
		mark, body := install.SplitBOM(c.data)
		switch {
		case len(mark) > 0:
			p.Warnings = append(p.Warnings, r.rel(ts[i].path)+" starts with a byte order mark, which Roo Code's JSON.parse refuses: init keeps it, as it keeps every byte it does not own; remove it, or Roo will not load the file")
		case c.exists && !install.IsBlank(body) && !json.Valid(body):
			p.Warnings = append(p.Warnings, r.rel(ts[i].path)+" has comments or trailing commas, which Roo Code's JSON.parse refuses: init keeps them, as it keeps every byte it does not own; remove them, or Roo will not load the file")
		}
	}
}

func rooDetect(env install.Env) bool {
	for _, b := range vscodeBuilds {
		if rooPresent(env, b) {
			return true
		}
	}
	return false
}

// rooLaunch works out how Roo Code starts our server (see hostLaunch): the
// SDK's default variables of its environment (doctor's own stands for
// it), then the entry's env, each value with ${env:NAME} and
// ${workspaceFolder} substituted (unset: left as written); on Windows
// through cmd.exe /c.
func rooLaunch(c *launching) {
	keys := rooDefaultEnv[""]
	if runtime.GOOS == "windows" {
		keys = rooDefaultEnv["windows"]
	}
	for _, k := range keys {
		if v, ok := c.parent[k]; ok && !strings.HasPrefix(v, "()") {
			c.env[k] = v
		}
	}
	broken := map[string]bool{}
	inject := func(s string) string {
		return expand(rooVar, s, func(m []string) string {
			v, ok := c.parent[m[1]]
			if m[2] != "" {
				v, ok = c.launch.Dir, true
			}
			if !ok {
				return m[0]
			}
			if !strings.HasPrefix(v, `\\?\`) {
				v = strings.ReplaceAll(v, `\`, "/")
			}
			if strings.ContainsAny(v, "\"\\") || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 }) {
				broken[m[1]+m[2]] = true
			}
			return v
		})
	}
	c.command = inject(c.command)
	for i := range c.args {
		c.args[i] = inject(c.args[i])
	}
	for k, v := range c.envCfg {
		c.env[k] = inject(v)
	}
	for _, name := range slices.Sorted(maps.Keys(broken)) {
		c.launch.Notes = append(c.launch.Notes, fmt.Sprintf("the value of %s holds a quote, a backslash or a control character: Roo Code substitutes it into the entry's JSON text unescaped, and then fails to load the entry", name))
	}
	if runtime.GOOS == "windows" && !strings.EqualFold(c.command, "cmd.exe") && !strings.EqualFold(c.command, "cmd") {
		c.args = append([]string{"/c", c.command}, c.args...)
		c.command = "cmd.exe"
	}
}
