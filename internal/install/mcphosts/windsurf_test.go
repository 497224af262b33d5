package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestWindsurfPaths(t *testing.T) {
	checkPaths(t, Windsurf, []pathCase{
		// docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json.
		{goos: "linux", want: "/home/u/.codeium/windsurf/mcp_config.json"},
		{goos: "darwin", want: "/home/u/.codeium/windsurf/mcp_config.json"},
		// Not an XDG path: XDG_CONFIG_HOME changes nothing.
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.codeium/windsurf/mcp_config.json"},
		// %USERPROFILE%\.codeium\windsurf\mcp_config.json (third-party
		// configurators; unverified in Windsurf's own docs).
		{goos: "windows", want: `C:\Users\u\.codeium\windsurf\mcp_config.json`},
		{goos: "windows", environ: []string{`APPDATA=C:\Users\u\AppData\Roaming`}, want: `C:\Users\u\.codeium\windsurf\mcp_config.json`},
	})
}

func TestWindsurfRemote(t *testing.T) {
	// {serverUrl, headers}, the token as ${env:NAME} (docs: interpolation
	// in serverUrl, url and headers).
	remoteCase(t, Windsurf, ".codeium/windsurf/mcp_config.json", "{\n  \"mcpServers\": {}\n}\n",
		"{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"serverUrl\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:TEAM_TOKEN}\"\n      }\n    }\n  }\n}\n")
}

// The 100-tool cap: a warning naming the other enabled servers, a note
// when there are none; the built-in web search with forced tiers.
func TestWindsurfTraps(t *testing.T) {
	capWarn := "Cascade uses at most 100 tools from all MCP servers together, and mcp_config.json has other enabled servers (a-server, b-server): if their tools reach the cap, Cascade leaves some out; turn off the tools you do not need in Windsurf's MCP settings so deepseek_search and deepseek_fetch stay available"
	alone := "Cascade uses at most 100 tools from all MCP servers together; this server adds 2"
	web := "Windsurf's built-in web search and URL reading cannot be turned off from mcp_config.json: with forced tiers, turn Web Search off in Windsurf Settings (bottom right of the editor), or Cascade may still use it"
	for _, tc := range []struct {
		name, file, tier string
		warnings, notes  []string
	}{
		{name: "no file", tier: "preferred", notes: []string{alone}},
		{name: "only disabled servers", file: `{"mcpServers": {"x": {"command": "x", "disabled": true}}}`, tier: "off", notes: []string{alone}},
		{name: "others", file: `{"mcpServers": {"b-server": {"command": "b"}, "a-server": {"serverUrl": "https://a"}, "c": {"command": "c", "disabled": true}}}`, tier: "optional", warnings: []string{capWarn}},
		{name: "forced", tier: "forced", warnings: []string{web}, notes: []string{alone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.file != "" {
				f.write(filepath.Join(f.env.Home, ".codeium", "windsurf", "mcp_config.json"), tc.file)
			}
			p, err := planInit(f.req(Windsurf, install.ScopeGlobal, install.Options{Search: tc.tier, Fetch: tc.tier}))
			require.NoError(t, err)
			for _, w := range []string{capWarn, web} {
				require.Equal(t, slices.Contains(tc.warnings, w), slices.Contains(p.Warnings, w), "%s: %q", w, p.Warnings)
			}
			require.Equal(t, slices.Contains(tc.notes, alone), slices.Contains(p.Notes, alone), "%q", p.Notes)
			require.Contains(t, p.Notes, "press the refresh button in Cascade's MCP panel (or restart Windsurf) to load the new server; on Teams and Enterprise plans an admin must turn MCP on, and may allow only listed servers")
		})
	}
}

func TestWindsurfLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "/b", "args": ["${env:FOO}", "$FOO"], "env": {"DEEPSEEK_API_KEY": "${env:DEEPSEEK_API_KEY}", "U": "${env:UNSET}"}}`), &entry))
	l, err := hostLaunch(Windsurf, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"foo", "$FOO"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": ""}, envMap(l.Env))
}
