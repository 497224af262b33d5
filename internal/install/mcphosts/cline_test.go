package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestClinePaths(t *testing.T) {
	checkPaths(t, Cline, []pathCase{
		// @cline/shared dist/storage/index.js: $CLINE_MCP_SETTINGS_PATH, else
		// $CLINE_DATA_DIR/settings, else $CLINE_DIR/data/settings, else
		// ~/.cline/data/settings (os.homedir() on every system).
		{goos: "linux", want: "/home/u/.cline/data/settings/cline_mcp_settings.json"},
		{goos: "darwin", want: "/home/u/.cline/data/settings/cline_mcp_settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.cline/data/settings/cline_mcp_settings.json"},
		{goos: "linux", environ: []string{"CLINE_DIR=/c"}, want: "/c/data/settings/cline_mcp_settings.json"},
		{goos: "linux", environ: []string{"CLINE_DIR=/c", "CLINE_DATA_DIR=/d"}, want: "/d/settings/cline_mcp_settings.json"},
		{goos: "linux", environ: []string{"CLINE_DATA_DIR=/d", "CLINE_MCP_SETTINGS_PATH=/m.json"}, want: "/m.json"},
		{goos: "windows", want: `C:\Users\u\.cline\data\settings\cline_mcp_settings.json`},
		{goos: "windows", environ: []string{`CLINE_DIR=D:\cline`}, want: `D:\cline\data\settings\cline_mcp_settings.json`},
	})
}

// The entry is the CLI's own nested form with no env (Cline has no
// variable syntax); doctor reads it through the transport. The VS Code
// extension's file is left alone, with a warning naming it.
func TestClineEntryAndTraps(t *testing.T) {
	f := newFixture(t)
	ext := filepath.Join(f.env.Home, ".config", "Code", "User", "globalStorage", clineExtension)
	f.write(filepath.Join(ext, "settings", "cline_mcp_settings.json"), "{\n  \"mcpServers\": {\n    \n  }\n}")
	tree := f.tree()
	p, err := planInit(f.req(Cline, install.ScopeGlobal, install.Options{Fetch: "forced"}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "the Cline VS Code extension reads "+filepath.Join(ext, "settings", "cline_mcp_settings.json")+", which init leaves alone: the extension passes a server only its entry's env and PATH and expands no variable, so the key would have to be written into that file; use the Cline CLI, or another host of the editor (--host vscode)")
	require.Contains(t, p.Warnings, "Cline's built-in fetch_web_content cannot be turned off from cline_mcp_settings.json: with forced tiers it stays available to the model")
	require.NoError(t, p.Apply())
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(f.read(filepath.Join(f.env.Home, ".cline", "data", "settings", "cline_mcp_settings.json"))), &got))
	require.Equal(t, map[string]any{"type": "stdio", "command": "/opt/dwr/bin/deepseek-web-retrieval", "args": []any{"mcp", "--search", "preferred", "--fetch", "forced"}},
		lookup(got, "mcpServers", install.Name, "transport"))
	f.apply(planUninstall(f.req(Cline, install.ScopeGlobal, install.Options{})))
	require.Equal(t, tree, f.tree())

	_, err = planInit(f.remoteReq(Cline, install.ScopeGlobal, install.Options{}))
	require.EqualError(t, err, "Cline (cline_mcp_settings.json) cannot connect to a team gateway (--remote): Cline sends a remote server's headers exactly as written (it expands no variable in cline_mcp_settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command")
}

func TestClineLaunch(t *testing.T) {
	for _, text := range []string{
		`{"transport": {"type": "stdio", "command": "/b", "args": ["${FOO}"], "env": {"L": "${FOO}"}}}`,
		`{"command": "/b", "args": ["${FOO}"], "env": {"L": "${FOO}"}, "disabled": false}`, // the extension's flat form
	} {
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &entry))
		l, err := hostLaunch(Cline, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
		require.NoError(t, err)
		require.Equal(t, "/b", l.Command)
		require.Equal(t, []string{"${FOO}"}, l.Args, "no variable syntax")
		require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "L": "${FOO}"}, envMap(l.Env))
	}
}
