package mcphosts

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Paths per operating system. An adapter works out its files from
// install.Env alone (Home, GOOS and the variables in Environ), never from
// the running system, so a table test on Linux proves the macOS and
// Windows paths too: with GOOS "windows", paths are joined with
// backslashes whatever system the test runs on.

// osJoin joins path elements the way goos does: filepath.Join for the
// system this runs on, backslashes for Windows when this is not Windows.
func osJoin(goos string, elem ...string) string {
	if goos != "windows" || filepath.Separator == '\\' {
		return filepath.Join(elem...)
	}
	var parts []string
	for _, e := range elem {
		if e != "" {
			parts = append(parts, strings.ReplaceAll(e, `\`, "/"))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.ReplaceAll(path.Clean(strings.Join(parts, "/")), "/", `\`)
}

// join is osJoin for the request's system.
func (r *resolved) join(elem ...string) string { return osJoin(r.Env.GOOS, elem...) }

// envDir returns the variable key when it holds an absolute path, else
// the fallback: a relative XDG_CONFIG_HOME is to be ignored (XDG Base
// Directory Specification), and the hosts that read APPDATA do the same.
func envDir(env install.Env, key, fallback string) string {
	if v := env.Getenv(key); v != "" && (filepath.IsAbs(v) || (env.GOOS == "windows" && isWindowsAbs(v))) {
		return v
	}
	return fallback
}

// isWindowsAbs reports whether p is an absolute Windows path (C:\…, \\…).
func isWindowsAbs(p string) bool {
	return strings.HasPrefix(p, `\\`) || (len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config: where hosts that follow
// the XDG layout (or Node's xdg-basedir) keep their config, on every
// system.
func xdgConfig(env install.Env) string {
	return envDir(env, "XDG_CONFIG_HOME", osJoin(env.GOOS, env.Home, ".config"))
}

// settingsOf returns the JSON (or JSONC) settings file at path as plain
// values: nil when it is absent, beyond the installer's bounds or not
// JSON. Adapters read other settings of a host's through it (whether a
// feature is on, a list of approved variables) and treat nil as unset.
func settingsOf(path string) any {
	data, _, ok, err := install.ReadConfig(path)
	if err != nil || !ok {
		return nil
	}
	v, err := install.Normalize(data)
	if err != nil {
		return nil
	}
	return v
}

// appData is the per-user application data directory of an Electron or
// desktop application: %APPDATA% (else ~\AppData\Roaming) on Windows,
// ~/Library/Application Support on macOS, $XDG_CONFIG_HOME (else
// ~/.config) elsewhere: the platform rule of microsoft/vscode
// src/vs/platform/environment/node/userDataPath.ts (doGetUserDataPath,
// step 4), which Electron editors made from VS Code share.
func appData(env install.Env) string {
	switch env.GOOS {
	case "windows":
		return envDir(env, "APPDATA", osJoin(env.GOOS, env.Home, "AppData", "Roaming"))
	case "darwin":
		return osJoin(env.GOOS, env.Home, "Library", "Application Support")
	}
	return xdgConfig(env)
}

// vscodeBuild is one build of VS Code (or of an editor made from it) whose
// user data directory holds the profile's mcp.json and extensions'
// globalStorage.
type vscodeBuild struct {
	Name    string // as messages name it: "VS Code Insiders"
	Dir     string // the product's directory under appData: "Code - Insiders"
	Program string // its command-line launcher: "code-insiders"
}

// vscodeBuilds lists the VS Code builds, stable first. A build's user data
// directory is named after its product.json "nameShort" (microsoft/vscode
// src/main.ts: getUserDataPath(args, product.nameShort)): "Code" and
// "Code - Insiders" for Microsoft's builds (their product.json is not
// public: the names are the ones code.visualstudio.com/docs/configure/
// settings gives for the user settings file, and the standard Insiders
// layout [3p]); "VSCodium" and "VSCodium - Insiders" for VSCodium
// (VSCodium/vscodium prepare_vscode.sh at a6a4322e sets nameShort and
// applicationName "codium" / "codium-insiders").
var vscodeBuilds = []vscodeBuild{
	{"VS Code", "Code", "code"},
	{"VS Code Insiders", "Code - Insiders", "code-insiders"},
	{"VSCodium", "VSCodium", "codium"},
	{"VSCodium Insiders", "VSCodium - Insiders", "codium-insiders"},
}

// vscodeUser returns the User directory of a VS Code build: the profile
// folder of the default profile (mcp.json, settings.json, globalStorage/).
// userDataPath.ts: $VSCODE_APPDATA/<nameShort> when that variable is set
// (on every system), else appData/<nameShort>; the user data directory's
// "User" folder is the default profile (userDataProfile.ts:
// userRoamingDataHome). Not followed: --user-data-dir and portable mode
// (VSCODE_PORTABLE, set by the editor itself), which no shell shows.
func vscodeUser(env install.Env, b vscodeBuild) string {
	return osJoin(env.GOOS, envDir(env, "VSCODE_APPDATA", appData(env)), b.Dir, "User")
}
