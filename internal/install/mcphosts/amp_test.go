package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestAmpPaths(t *testing.T) {
	checkPaths(t, Amp, []pathCase{
		// Seen with Amp 0.0.1790142911 (--help names the default):
		// ~/.config/amp/settings.json, $XDG_CONFIG_HOME/amp/settings.json,
		// $AMP_SETTINGS_FILE first.
		{goos: "linux", want: "/home/u/.config/amp/settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/xdg/amp/settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg", "AMP_SETTINGS_FILE=/etc/amp/team.json"}, want: "/etc/amp/team.json"},
		// A relative AMP_SETTINGS_FILE from the current directory
		// (unverified).
		{goos: "linux", environ: []string{"AMP_SETTINGS_FILE=amp.json"}, want: "/home/u/proj/amp.json"},
		// macOS and Windows: ~/.config/amp/settings.json,
		// %USERPROFILE%\.config\amp\settings.json (third-party summary of
		// ampcode.com's manual).
		{goos: "darwin", want: "/home/u/.config/amp/settings.json"},
		{goos: "windows", want: `C:\Users\u\.config\amp\settings.json`},
		{goos: "windows", environ: []string{`AMP_SETTINGS_FILE=D:\amp.json`}, want: `D:\amp.json`},
		// A workspace's .amp/settings.json (amp mcp add --workspace).
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.amp/settings.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.amp\settings.json`},
	})
}

// Amp reads settings.jsonc when settings.json is absent (seen): init edits
// the file Amp reads.
func TestAmpSettingsJSONC(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{name: "neither", want: "settings.json"},
		{name: "jsonc only", files: []string{"settings.jsonc"}, want: "settings.jsonc"},
		{name: "both", files: []string{"settings.json", "settings.jsonc"}, want: "settings.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
				dir := filepath.Join(f.env.Home, ".config", "amp")
				if scope == install.ScopeProject {
					dir = filepath.Join(f.env.WorkDir, ".amp")
				}
				for _, name := range tc.files {
					f.write(filepath.Join(dir, name), "{}\n")
				}
				got, err := mainFile(f.req(Amp, scope, install.Options{}))
				require.NoError(t, err)
				require.Equal(t, filepath.Join(dir, tc.want), got)
			}
		})
	}
}

func TestAmpRemote(t *testing.T) {
	// Seen: {url, headers} with "Bearer ${T}" reached the server as the token.
	remoteCase(t, Amp, ".config/amp/settings.json", "{\n  // mine\n  \"amp.notifications.enabled\": true,\n}\n",
		"{\n  // mine\n  \"amp.notifications.enabled\": true,\n  \"amp.mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN}\"\n      }\n    }\n  },\n}\n")
}

// The member "amp.mcpServers" is one key with a dot in it, not a nested
// object; forced tiers add the built-in web tools to amp.tools.disable,
// lower tiers take them out again.
func TestAmpEntryAndTiers(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.Home, ".config", "amp", "settings.json")
	f.write(path, "{\n  \"amp\": {\"mcpServers\": {}}\n}\n")
	before := f.tree()
	f.apply(planInit(f.req(Amp, install.ScopeGlobal, install.Options{Search: "forced", Fetch: "forced"})))
	v := readJSON(t, []byte(f.read(path)))
	require.Equal(t, map[string]any{}, lookup(v, "amp", "mcpServers"), "the nested object is not Amp's and stays as it was")
	require.Equal(t, map[string]any{"command": binary, "args": []any{"mcp", "--search", "forced", "--fetch", "forced"}, "env": map[string]any{"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY}"}}, v["amp.mcpServers"].(map[string]any)[install.Name])
	require.Equal(t, []any{"web_search", "read_web_page"}, v["amp.tools.disable"])

	f.apply(planInit(f.req(Amp, install.ScopeGlobal, install.Options{Search: "preferred", Fetch: "preferred"})))
	require.NotContains(t, readJSON(t, []byte(f.read(path))), "amp.tools.disable")
	f.apply(planUninstall(f.req(Amp, install.ScopeGlobal, install.Options{})))
	require.Equal(t, before, f.tree())
}

// A workspace's servers wait for `amp mcp approve`; Amp refuses a file
// with a byte order mark.
func TestAmpTraps(t *testing.T) {
	f := newFixture(t)
	p, err := planInit(f.req(Amp, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "Amp starts a workspace's MCP servers only once you approve them: run `amp mcp approve deepseek-web-retrieval` in "+f.env.WorkDir+" (again after an init that changes the entry: the approval is tied to it); `amp mcp doctor` shows \"awaiting approval\" until then")

	bom := ".config/amp/settings.json starts with a byte order mark, which Amp refuses (\"Invalid JSON in settings file\"): init keeps it, as it keeps every byte it does not own; remove it, or Amp will not start"
	for _, text := range []string{"{}\n", "\ufeff{}\n"} {
		f.write(filepath.Join(f.env.Home, ".config", "amp", "settings.json"), text)
		p, err := planInit(f.req(Amp, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.Equal(t, text != "{}\n", slices.Contains(p.Warnings, bom), "%q", p.Warnings)
		require.NotContains(t, p.Warnings, "Amp starts a workspace's MCP servers only once you approve them: run `amp mcp approve deepseek-web-retrieval` in "+f.env.WorkDir+" (again after an init that changes the entry: the approval is tied to it); `amp mcp doctor` shows \"awaiting approval\" until then")
	}
}

// How Amp 0.0.1790142911 started a server (seen): its environment but
// AMP_API_KEY, ${VAR} expanded in command, args and env, and nothing else.
func TestAmpLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "${BIN}", "args": ["${FOO}", "$FOO", "${FOO:-d}", "${env:FOO}", "${UNSET}"], "env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY}", "U": "${UNSET}"}}`), &entry))
	l, err := hostLaunch(Amp, entry, map[string]string{"PATH": "/usr/bin", "BIN": "/b", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "AMP_API_KEY": "sgamp_x"}, "/work")
	require.NoError(t, err)
	require.Equal(t, "/b", l.Command)
	require.Equal(t, []string{"foo", "$FOO", "${FOO:-d}", "${env:FOO}", "${UNSET}"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "BIN": "/b", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": "${UNSET}"}, envMap(l.Env))
}
