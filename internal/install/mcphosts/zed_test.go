package mcphosts

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestZedPaths(t *testing.T) {
	checkPaths(t, Zed, []pathCase{
		// crates/paths/src/paths.rs config_dir(), Linux and FreeBSD:
		// dirs::config_dir() ($XDG_CONFIG_HOME if absolute, else ~/.config)
		// joined with "zed".
		{goos: "linux", want: "/home/u/.config/zed/settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/xdg/zed/settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=relative"}, want: "/home/u/.config/zed/settings.json"},
		{goos: "freebsd", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/xdg/zed/settings.json"},
		// $FLATPAK_XDG_CONFIG_HOME first, in the Flatpak sandbox.
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg", "FLATPAK_XDG_CONFIG_HOME=/var/app/config"}, want: "/var/app/config/zed/settings.json"},
		// macOS: home_dir()/.config/zed, whatever XDG_CONFIG_HOME says.
		{goos: "darwin", want: "/home/u/.config/zed/settings.json"},
		{goos: "darwin", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.config/zed/settings.json"},
		// Windows: dirs::config_dir() (roaming AppData) joined with "Zed".
		{goos: "windows", want: `C:\Users\u\AppData\Roaming\Zed\settings.json`},
		{goos: "windows", environ: []string{`APPDATA=D:\Roaming`}, want: `D:\Roaming\Zed\settings.json`},
		// local_settings_file_relative_path(): .zed/settings.json.
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.zed/settings.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.zed\settings.json`},
	})
}

// Zed sends headers as written: --remote is refused with the reason.
func TestZedRemoteRefused(t *testing.T) {
	f := newFixture(t)
	_, err := planInit(f.remoteReq(Zed, install.ScopeGlobal, install.Options{}))
	require.EqualError(t, err, "Zed (context_servers in settings.json) cannot connect to a team gateway (--remote): Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command")
	require.Equal(t, "Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command", mcpHost{Zed}.NoRemote())
	require.Empty(t, mcpHost{Windsurf}.NoRemote())
}

// The entry has no env (Zed would pass "${VAR}" as those characters): the
// plan says how the key reaches the server, and doctor's launch gives the
// server Zed's environment, the entry's env as written.
func TestZedKeyByInheritance(t *testing.T) {
	f := newFixture(t)
	req := f.req(Zed, install.ScopeGlobal, install.Options{})
	p, err := planInit(req)
	require.NoError(t, err)
	require.Contains(t, p.Notes, "Zed passes an entry's env values as written (it has no variable syntax), so the entry has no env: the server inherits DEEPSEEK_API_KEY from Zed's own environment. Export it in your shell profile: Zed started from a terminal (`zed`) takes that shell's variables, and started from the Dock or a launcher it loads the variables of your login shell")
	require.NoError(t, p.Apply())
	v := readJSON(t, []byte(f.read(filepath.Join(f.env.Home, ".config", "zed", "settings.json"))))
	require.Equal(t, map[string]any{"command": binary, "args": []any{"mcp", "--search", "preferred", "--fetch", "optional"}}, lookup(v, "context_servers", install.Name))

	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "/b", "args": ["${FOO}"], "env": {"LIT": "${FOO}", "X": "1"}}`), &entry))
	l, err := hostLaunch(Zed, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"${FOO}"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "LIT": "${FOO}", "X": "1"}, envMap(l.Env))

	// doctor: the key reaches the server through the inherited environment.
	g := newFixture(t)
	r := g.req(Zed, install.ScopeGlobal, install.Options{})
	r.Binary = self(t)
	g.apply(planInit(r))
	c := doctor(context.Background(), g.req(Zed, install.ScopeGlobal, install.Options{}), []string{"PATH=/usr/bin:/bin", "DEEPSEEK_API_KEY=" + testKey})
	require.Empty(t, c.Problems)
	require.Contains(t, c.Lines, "DEEPSEEK_API_KEY reaches the server (value not shown)")
	require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
}

// A project's servers wait for a trusted worktree, unless the user trusts
// all; profiles that leave our tools out are named; forced tiers say the
// built-in fetch and web_search stay.
func TestZedTraps(t *testing.T) {
	trust := func(f *fixture) string {
		return "Zed starts a project's MCP servers only in a trusted worktree: trust " + f.env.WorkDir + " when Zed asks (or set \"session\": {\"trust_all_worktrees\": true} in your user settings)"
	}
	profile := func(id string) string {
		return "the Zed agent profile \"" + id + "\" does not enable all MCP servers and does not turn on deepseek_search and deepseek_fetch: in that profile the model does not get them (set \"enable_all_context_servers\": true, or turn the two tools on under its context_servers.deepseek-web-retrieval.tools)"
	}
	web := "Zed's built-in fetch and web_search tools cannot be turned off from context_servers: with forced tiers, set \"fetch\": false and \"web_search\": false in the tools of the agent profile you use (agent.profiles.<profile>.tools), or the model may still use them"
	for _, tc := range []struct {
		name          string
		scope         install.Scope
		user, project string
		tier          string
		want          func(f *fixture) []string
	}{
		{name: "global, no profiles", tier: "preferred", want: func(*fixture) []string { return nil }},
		{name: "project, untrusted", scope: install.ScopeProject, tier: "preferred", want: func(f *fixture) []string { return []string{trust(f)} }},
		{name: "project, all worktrees trusted", scope: install.ScopeProject, tier: "preferred", user: `{"session": {"trust_all_worktrees": true}}`, want: func(*fixture) []string { return nil }},
		{name: "profiles", tier: "optional",
			user: `{"agent": {"profiles": {
				"write": {"enable_all_context_servers": true},
				"z-off": {"enable_all_context_servers": false},
				"listed": {"enable_all_context_servers": false, "context_servers": {"deepseek-web-retrieval": {"tools": {"deepseek_search": true, "deepseek_fetch": true}}}},
				"half": {"enable_all_context_servers": false, "context_servers": {"deepseek-web-retrieval": {"tools": {"deepseek_search": true}}}}}}}`,
			want: func(*fixture) []string { return []string{profile("half"), profile("z-off")} }},
		{name: "a project profile, named once", scope: install.ScopeProject, tier: "off",
			user:    `{"session": {"trust_all_worktrees": true}}`,
			project: `{"agent": {"profiles": {"p": {"enable_all_context_servers": false}}}}`,
			want:    func(*fixture) []string { return []string{profile("p")} }},
		{name: "forced", tier: "forced", want: func(*fixture) []string { return []string{web} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.user != "" {
				f.write(filepath.Join(f.env.Home, ".config", "zed", "settings.json"), tc.user)
			}
			if tc.project != "" {
				f.write(filepath.Join(f.env.WorkDir, ".zed", "settings.json"), tc.project)
			}
			scope := tc.scope
			if scope == "" {
				scope = install.ScopeGlobal
			}
			p, err := planInit(f.req(Zed, scope, install.Options{Search: tc.tier, Fetch: tc.tier}))
			require.NoError(t, err)
			require.Equal(t, tc.want(f), p.Warnings)
		})
	}
}

func TestZedDetect(t *testing.T) {
	f := newFixture(t)
	require.False(t, zedDetect(f.env))
	env := f.env
	env.LookPath = func(name string) (string, error) {
		if name == "zeditor" {
			return "/usr/bin/zeditor", nil
		}
		return "", os.ErrNotExist
	}
	require.True(t, zedDetect(env))
	require.NoError(t, os.MkdirAll(filepath.Join(f.env.Home, ".config", "zed"), 0o755))
	require.True(t, zedDetect(f.env))
}
