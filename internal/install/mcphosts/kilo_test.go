package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestKiloPaths(t *testing.T) {
	checkPaths(t, Kilo, []pathCase{
		// xdg-basedir: $XDG_CONFIG_HOME/kilo, else ~/.config/kilo, on every
		// system; $KILO_CONFIG_DIR is trusted as the global directory.
		{goos: "linux", want: "/home/u/.config/kilo/kilo.jsonc"},
		{goos: "darwin", want: "/home/u/.config/kilo/kilo.jsonc"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/xdg/kilo/kilo.jsonc"},
		{goos: "linux", environ: []string{"KILO_CONFIG_DIR=/etc/kilo"}, want: "/etc/kilo/kilo.jsonc"},
		{goos: "windows", want: `C:\Users\u\.config\kilo\kilo.jsonc`},
		// A project's file Kilo creates: .kilo/kilo.jsonc.
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.kilo/kilo.jsonc"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.kilo\kilo.jsonc`},
	})
}

// init writes into the file Kilo itself would write into: the first that
// exists in Kilo's order, never the project's opencode.json.
func TestKiloPicksTheFileKiloWrites(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scope  install.Scope
		exists []string
		want   string
	}{
		{name: "global kilo.json", scope: install.ScopeGlobal, exists: []string{"home/.config/kilo/kilo.json"}, want: "home/.config/kilo/kilo.json"},
		{name: "global opencode.json", scope: install.ScopeGlobal, exists: []string{"home/.config/kilo/opencode.json", "home/.config/kilo/config.json"}, want: "home/.config/kilo/opencode.json"},
		{name: "project kilo.jsonc", scope: install.ScopeProject, exists: []string{"proj/kilo.jsonc"}, want: "proj/kilo.jsonc"},
		{name: "project .kilocode", scope: install.ScopeProject, exists: []string{"proj/kilo.jsonc", "proj/.kilocode/kilo.json"}, want: "proj/.kilocode/kilo.json"},
		{name: "project opencode.json is OpenCode's", scope: install.ScopeProject, exists: []string{"proj/opencode.json"}, want: "proj/.kilo/kilo.jsonc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for _, e := range tc.exists {
				f.write(filepath.Join(f.root, filepath.FromSlash(e)), "{}\n")
			}
			got, err := mainFile(f.req(Kilo, tc.scope, install.Options{}))
			require.NoError(t, err)
			require.Equal(t, filepath.Join(f.root, filepath.FromSlash(tc.want)), got)
		})
	}
}

func TestKiloRemote(t *testing.T) {
	remoteCase(t, Kilo, ".config/kilo/kilo.jsonc", "{\n  \"$schema\": \"https://app.kilo.ai/config.json\",\n}\n",
		"{\n  \"$schema\": \"https://app.kilo.ai/config.json\",\n  \"mcp\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"remote\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer {env:TEAM_TOKEN}\"\n      },\n      \"oauth\": false,\n      \"enabled\": true\n    }\n  },\n}\n")
}

// Kilo skips a project file that references the environment: the project
// entry has no environment, and a project gateway entry is refused. A
// project whose opencode.json loads our OpenCode plugin has our tools in
// Kilo already: init refuses, writing nothing.
func TestKiloProject(t *testing.T) {
	f := newFixture(t)
	p, err := planInit(f.req(Kilo, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Notes, "Kilo Code skips a project's config file that references the environment ({env:…}), so the project entry passes none: the server inherits DEEPSEEK_API_KEY from the environment Kilo Code runs in")
	require.NoError(t, p.Apply())
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(f.read(filepath.Join(f.env.WorkDir, ".kilo", "kilo.jsonc"))), &got))
	require.Nil(t, lookup(got, "mcp", install.Name, "environment"))

	f = newFixture(t)
	_, err = planInit(f.remoteReq(Kilo, install.ScopeProject, install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "Kilo Code skips a project's config file that references the environment ({env:…}), so a gateway entry there would have to hold the token itself", re.Reason)

	f = newFixture(t)
	f.write(filepath.Join(f.env.WorkDir, "opencode.json"), `{"plugin": ["deepseek-web-retrieval-opencode@1.2.0"]}`)
	tree := f.tree()
	_, err = planInit(f.req(Kilo, install.ScopeProject, install.Options{}))
	require.ErrorAs(t, err, &re)
	require.Equal(t, filepath.Join(f.env.WorkDir, "opencode.json")+" lists the deepseek-web-retrieval OpenCode plugin (\"deepseek-web-retrieval-opencode@1.2.0\") under \"plugin\", which Kilo Code loads too: Kilo already has deepseek_search and deepseek_fetch in this project, and the MCP server beside it would offer every tool twice", re.Reason)
	require.Equal(t, tree, f.tree())
	require.Equal(t, err, mcpHost{Kilo}.Refusal(f.req(Kilo, install.ScopeProject, install.Options{}).Request))
	_, err = planInit(f.req(Kilo, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err, "the global entry is Kilo's in every project")
}

func TestKiloLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type": "local", "command": ["/b", "mcp", "{env:FOO}", "$FOO"], "environment": {"DEEPSEEK_API_KEY": "{env:DEEPSEEK_API_KEY}", "U": "{env:UNSET}"}}`), &entry))
	l, err := hostLaunch(Kilo, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "KILO_CONFIG_DIR": "/c"}, "/work")
	require.NoError(t, err)
	require.Equal(t, "/b", l.Command)
	require.Equal(t, []string{"mcp", "foo", "$FOO"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": ""}, envMap(l.Env), "KILO_CONFIG_DIR is not passed on")
}
