package mcphosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Copilot CLI's file per system and environment (sources: copilot.go's
// header).
func TestCopilotPaths(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		home    string
		environ []string
		scope   install.Scope
		want    string
	}{
		// docs cli-config-dir-reference.md: ~/.copilot/mcp-config.json.
		{name: "linux", goos: "linux", home: "/home/ann", want: "/home/ann/.copilot/mcp-config.json"},
		{name: "darwin", goos: "darwin", home: "/Users/ann", want: "/Users/ann/.copilot/mcp-config.json"},
		// os.homedir() is %USERPROFILE%; the docs show C:\Users\<u>\.copilot.
		{name: "windows", goos: "windows", home: `C:\Users\ann`, want: `C:\Users\ann\.copilot\mcp-config.json`},
		// cli-main.js: configDir ?? COPILOT_HOME ?? join(homedir(), ".copilot").
		{name: "COPILOT_HOME", goos: "linux", home: "/home/ann", environ: []string{"COPILOT_HOME=/srv/copilot"}, want: "/srv/copilot/mcp-config.json"},
		{name: "COPILOT_HOME on windows", goos: "windows", home: `C:\Users\ann`, environ: []string{`COPILOT_HOME=D:\cfg\copilot`}, want: `D:\cfg\copilot\mcp-config.json`},
		// [run] a relative COPILOT_HOME is taken from the working directory.
		{name: "relative COPILOT_HOME", goos: "linux", home: "/home/ann", environ: []string{"COPILOT_HOME=cfg"}, want: "/work/app/cfg/mcp-config.json"},
		{name: "empty COPILOT_HOME", goos: "linux", home: "/home/ann", environ: []string{"COPILOT_HOME="}, want: "/home/ann/.copilot/mcp-config.json"},
		// cli-main.js moves $XDG_CONFIG_HOME/.copilot to ~/.copilot ("XDG migration").
		{name: "XDG_CONFIG_HOME is not read", goos: "linux", home: "/home/ann", environ: []string{"XDG_CONFIG_HOME=/x"}, want: "/home/ann/.copilot/mcp-config.json"},
		// docs: a project's .mcp.json (and .github/mcp.json), from the cwd up.
		{name: "project", goos: "linux", home: "/home/ann", scope: install.ScopeProject, environ: []string{"COPILOT_HOME=/srv/copilot"}, want: "/work/app/.mcp.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := install.Env{Home: tc.home, WorkDir: "/work/app", GOOS: tc.goos, Environ: tc.environ}
			rs, err := resolve(request{install.Request{Env: env, Scope: tc.scope, Binary: binary}, Copilot})
			require.NoError(t, err)
			ts := copilotTargets(rs)
			require.Len(t, ts, 1)
			require.Equal(t, tc.want, ts[0].path)
			got, err := mainFile(request{install.Request{Env: env, Scope: tc.scope}, Copilot})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// The entries: the user file's as `copilot mcp add` writes it, the
// project's Claude Code's (shared), and the remote ones.
func TestCopilotEntries(t *testing.T) {
	f := newFixture(t)
	user := filepath.Join(f.env.Home, ".copilot", "mcp-config.json")
	f.write(user, "{\n  \"mcpServers\": {}\n}\n")
	before := f.tree()
	f.apply(planInit(f.req(Copilot, install.ScopeGlobal, install.Options{})))
	require.Equal(t, "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"local\",\n      \"command\": \"/opt/dwr/bin/deepseek-web-retrieval\",\n      \"args\": [\n        \"mcp\",\n        \"--search\",\n        \"preferred\",\n        \"--fetch\",\n        \"optional\"\n      ],\n      \"env\": {\n        \"DEEPSEEK_API_KEY\": \"${DEEPSEEK_API_KEY}\"\n      },\n      \"tools\": [\n        \"*\"\n      ]\n    }\n  }\n}\n", f.read(user))

	p := f.apply(planInit(f.remoteReq(Copilot, install.ScopeGlobal, install.Options{})))
	require.Contains(t, f.render(p, true), "sends your gateway token from the TEAM_TOKEN environment variable")
	require.Contains(t, p.Notes, "the entry sends the token as \"Authorization: Bearer ${TEAM_TOKEN}\", which Copilot CLI expands when it connects")
	require.Equal(t, "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN}\"\n      },\n      \"tools\": [\n        \"*\"\n      ]\n    }\n  }\n}\n", f.read(user))
	again, err := planInit(f.remoteReq(Copilot, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err)
	require.True(t, again.Empty())
	f.apply(planUninstall(f.req(Copilot, install.ScopeGlobal, install.Options{})))
	require.Equal(t, before, f.tree())

	// The project's entry is exactly Claude Code's.
	for _, remote := range []bool{false, true} {
		cr, pr := f.req(Claude, install.ScopeProject, install.Options{}), f.req(Copilot, install.ScopeProject, install.Options{})
		if remote {
			cr, pr = f.remoteReq(Claude, install.ScopeProject, install.Options{}), f.remoteReq(Copilot, install.ScopeProject, install.Options{})
		}
		crs, err := resolve(cr)
		require.NoError(t, err)
		prs, err := resolve(pr)
		require.NoError(t, err)
		crs.args, prs.args = serverArgs(cr.Options), serverArgs(pr.Options)
		c, p := claudeTargets(crs)[0], copilotTargets(prs)[0]
		require.Equal(t, c.path, p.path)
		require.Equal(t, c.serverPath, p.serverPath)
		require.JSONEq(t, string(mustJSON(c.entry)), string(mustJSON(p.entry)))
		require.Equal(t, []Host{Claude}, p.shared)
		require.Equal(t, []Host{Copilot}, c.shared)
	}
}

// The plan's traps per scope and tier.
func TestCopilotTraps(t *testing.T) {
	f := newFixture(t)
	p, err := planInit(f.req(Copilot, install.ScopeProject, install.Options{Search: "forced", Fetch: "forced"}))
	require.NoError(t, err)
	require.Subset(t, p.Warnings, []string{
		"Copilot CLI loads a project's .mcp.json only in a folder you trust: answer yes when it asks to trust " + f.env.WorkDir + " (kept in trustedFolders in ~/.copilot/config.json); a `copilot -p` run needs --trust-folder",
		"Qwen Code also reads a project's .mcp.json and expands no variables there: it would start the server with DEEPSEEK_API_KEY set to the literal text \"${DEEPSEEK_API_KEY:-}\" in place of your key, so every search and fetch fails in Qwen Code; give Qwen Code its own entry in its settings.json instead",
		"Copilot CLI's built-in web_fetch cannot be turned off in its config files: with --fetch forced, start it with --excluded-tools=web_fetch",
		"Copilot CLI's built-in GitHub MCP server offers web_search when you are signed in to GitHub, and no config file turns it off: with --search forced, start Copilot CLI with --disable-builtin-mcps",
	})
	p, err = planInit(f.req(Claude, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "Qwen Code also reads a project's .mcp.json and expands no variables there: it would start the server with DEEPSEEK_API_KEY set to the literal text \"${DEEPSEEK_API_KEY:-}\" in place of your key, so every search and fetch fails in Qwen Code; give Qwen Code its own entry in its settings.json instead")
	p, err = planInit(f.remoteReq(Claude, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "Qwen Code also reads a project's .mcp.json and expands no variables there: it would send the literal text \"Bearer ${TEAM_TOKEN:-}\" as the token, which the gateway refuses; give Qwen Code its own entry in its settings.json instead")
	p, err = planInit(f.req(Copilot, install.ScopeGlobal, install.Options{Search: "preferred", Fetch: "optional"}))
	require.NoError(t, err)
	for _, w := range p.Warnings {
		require.NotContains(t, w, "Qwen")
		require.NotContains(t, w, "web_fetch")
	}
}

// How Copilot CLI 1.0.102 starts the server, as seen in a run (copilot.go).
func TestCopilotLaunch(t *testing.T) {
	parent := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "EMPTY": "", "DEEPSEEK_API_KEY": "k1",
		"COPILOT_PROVIDER_API_KEY": "model-key", "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:1", "COPILOT_OFFLINE": "true", "COPILOT_MODEL": "m"}
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type": "local", "command": "/b", "args": ["$UNSET", "${FOO}", "${UNSET:-d}", "$$FOO"],
		"env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY}", "A": "$UNSET", "B": "${UNSET}", "C": "${UNSET:-dflt}", "D": "pre-$FOO-post", "E": "${EMPTY:-e}"}, "tools": ["*"]}`), &entry))
	l, err := hostLaunch(Copilot, entry, parent, "/work")
	require.NoError(t, err)
	require.Equal(t, "/b", l.Command)
	require.Equal(t, []string{"$UNSET", "foo", "d", "$foo"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "EMPTY": "", "COPILOT_MODEL": "m",
		"DEEPSEEK_API_KEY": "k1", "A": "$UNSET", "B": "${UNSET}", "C": "dflt", "D": "pre-foo-post", "E": ""}, envMap(l.Env))
	require.Equal(t, "/work", l.Dir)
}

// --host auto finds Copilot CLI by its program or its config directory.
func TestCopilotDetect(t *testing.T) {
	f := newFixture(t)
	require.False(t, copilotDetect(f.env))
	env := f.env
	env.LookPath = func(name string) (string, error) {
		if name == "copilot" {
			return "/usr/bin/copilot", nil
		}
		return "", os.ErrNotExist
	}
	require.True(t, copilotDetect(env))
	f.write(filepath.Join(f.env.Home, ".copilot", "config.json"), "{}\n")
	require.True(t, copilotDetect(f.env))
}
