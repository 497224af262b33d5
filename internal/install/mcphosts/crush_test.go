package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestCrushPaths(t *testing.T) {
	checkPaths(t, Crush, []pathCase{
		// README "Configuration" (0.96.1): ~/.config/crush on Unix-like
		// systems, %USERPROFILE%\.config\crush on Windows, $XDG_CONFIG_HOME
		// respected; $CRUSH_GLOBAL_CONFIG names the directory.
		{goos: "linux", want: "/home/u/.config/crush/crush.json"},
		{goos: "darwin", want: "/home/u/.config/crush/crush.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/xdg/crush/crush.json"},
		{goos: "linux", environ: []string{"CRUSH_GLOBAL_CONFIG=/cfg/crush"}, want: "/cfg/crush/crush.json"},
		{goos: "windows", want: `C:\Users\u\.config\crush\crush.json`},
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/crush.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\crush.json`},
	})
	f := newFixture(t)
	f.write(filepath.Join(f.env.WorkDir, ".crush.json"), "{}\n")
	got, err := mainFile(f.req(Crush, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(f.env.WorkDir, ".crush.json"), got, "the hidden file, where only it exists")
}

func TestCrushRemote(t *testing.T) {
	// README "MCPs": {type: "http", url, headers}, "Bearer $GH_PAT".
	remoteCase(t, Crush, ".config/crush/crush.json", "{\n  \"$schema\": \"https://charm.land/crush.json\"\n}\n",
		"{\n  \"$schema\": \"https://charm.land/crush.json\",\n  \"mcp\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer $TEAM_TOKEN\"\n      }\n    }\n  }\n}\n")
}

// A crushrc naming our server overrides the crush.json entry: the plan
// says so. Forced tiers say how to deny Crush's built-ins.
func TestCrushTraps(t *testing.T) {
	f := newFixture(t)
	rc := filepath.Join(f.env.WorkDir, "crushrc")
	f.write(rc, "mcp add deepseek-web-retrieval --command old\n")
	p, err := planInit(f.req(Crush, install.ScopeProject, install.Options{Search: "forced"}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, rc+" mentions deepseek-web-retrieval: a server of that name added there wins over the crush.json entry; take it out of the crushrc, or init's options do not apply")
	require.Contains(t, p.Warnings, "Crush's built-in fetch, agentic_fetch, web_fetch and web_search stay available with forced tiers: init does not write a crushrc; add `permissions deny fetch agentic_fetch web_fetch web_search` to "+rc+" yourself")
}

func TestCrushLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type": "stdio", "command": "/b", "args": ["$FOO", "${UNSET:-d}", "$(cat x)"], "env": {"DEEPSEEK_API_KEY": "$DEEPSEEK_API_KEY", "U": "${UNSET}", "R": "${UNSET:?set it}"}}`), &entry))
	l, err := hostLaunch(Crush, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"foo", "d", "$(cat x)"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": "", "R": ""}, envMap(l.Env))
	require.Contains(t, l.Notes, "the entry runs $(cat x) when Crush loads it; doctor does not run it and passes the text")
	require.Contains(t, l.Notes, "Crush refuses to load the entry while UNSET is unset or empty (set it)")
}
