package mcphosts

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestKiroPaths(t *testing.T) {
	checkPaths(t, Kiro, []pathCase{
		// kiro.dev/docs/mcp/configuration: user level ~/.kiro/settings/mcp.json.
		{goos: "linux", want: "/home/u/.kiro/settings/mcp.json"},
		{goos: "darwin", want: "/home/u/.kiro/settings/mcp.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.kiro/settings/mcp.json"},
		// Windows: %USERPROFILE%\.kiro\settings\mcp.json (unverified).
		{goos: "windows", want: `C:\Users\u\.kiro\settings\mcp.json`},
		// Workspace level: .kiro/settings/mcp.json.
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.kiro/settings/mcp.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.kiro\settings\mcp.json`},
	})
}

func TestKiroRemote(t *testing.T) {
	// kiro.dev/docs/cli/mcp/configuration: {url, headers}, "Bearer ${API_TOKEN}".
	remoteCase(t, Kiro, ".kiro/settings/mcp.json", "{\n  \"mcpServers\": {}\n}\n",
		"{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN}\"\n      }\n    }\n  }\n}\n")
}

// Kiro expands only approved variables: without an approval the plan
// warns; approved in the CLI's or the IDE's settings, it says where.
func TestKiroApproval(t *testing.T) {
	warn := "Kiro expands ${DEEPSEEK_API_KEY} only once you approve DEEPSEEK_API_KEY: approve it when Kiro's security warning lists it (or add it to Mcp Approved Env Vars, kiroAgent.mcpApprovedEnvVars, in Kiro's settings); until then the server gets the literal text ${DEEPSEEK_API_KEY} as its key, and every search and fetch fails"
	for _, tc := range []struct {
		name, file, content string
		approved            bool
	}{
		{name: "no settings"},
		{name: "cli.json without it", file: ".kiro/settings/cli.json", content: `{"kiroAgent.mcpApprovedEnvVars": ["GITHUB_TOKEN"]}`},
		{name: "cli.json", file: ".kiro/settings/cli.json", content: `{"kiroAgent.mcpApprovedEnvVars": ["GITHUB_TOKEN", "DEEPSEEK_API_KEY"]}`, approved: true},
		{name: "the IDE's user settings", file: ".config/Kiro/User/settings.json", content: "{\n  // mine\n  \"kiroAgent.mcpApprovedEnvVars\": [\"DEEPSEEK_API_KEY\"],\n}\n", approved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.file != "" {
				f.write(filepath.Join(f.env.Home, filepath.FromSlash(tc.file)), tc.content)
			}
			p, err := planInit(f.req(Kiro, install.ScopeGlobal, install.Options{}))
			require.NoError(t, err)
			require.Equal(t, !tc.approved, slices.Contains(p.Warnings, warn), "%q", p.Warnings)
			if tc.approved {
				require.Contains(t, p.Notes, "DEEPSEEK_API_KEY is among the variables Kiro expands (kiroAgent.mcpApprovedEnvVars in "+filepath.Join(f.env.Home, filepath.FromSlash(tc.file))+")")
			}
		})
	}
	f := newFixture(t)
	p, err := planInit(f.remoteReq(Kiro, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "Kiro expands ${TEAM_TOKEN} only once you approve TEAM_TOKEN: approve it when Kiro's security warning lists it (or add it to Mcp Approved Env Vars, kiroAgent.mcpApprovedEnvVars, in Kiro's settings); until then Kiro sends the literal text ${TEAM_TOKEN} as the token, and the gateway refuses it")
}

// doctor's launch follows the approval it can read: approved, the key
// reaches the server; listed elsewhere but not approved, the literal text
// does, and doctor says why; with no list anywhere it takes the key as
// approved and says so.
func TestKiroDoctor(t *testing.T) {
	cli := filepath.Join(".kiro", "settings", "cli.json")
	environ := []string{"PATH=/usr/bin:/bin", "DEEPSEEK_API_KEY=" + testKey}
	for _, tc := range []struct {
		name, approved string
		line, trap     string
	}{
		{name: "approved", approved: `["DEEPSEEK_API_KEY"]`, line: "DEEPSEEK_API_KEY reaches the server (value not shown)"},
		{name: "not approved", approved: `["OTHER"]`,
			trap: "DEEPSEEK_API_KEY reaches the server as the literal text \"${DEEPSEEK_API_KEY}\" although it is set in this shell: Kiro does not expand the reference (see above why); every search and fetch fails until it does"},
		{name: "no list", line: "DEEPSEEK_API_KEY reaches the server (value not shown)",
			trap: "doctor found no kiroAgent.mcpApprovedEnvVars in {home}/.kiro/settings/cli.json or {home}/.config/Kiro/User/settings.json, so it takes ${DEEPSEEK_API_KEY} as approved in Kiro's security warning; if you did not approve it there, the server gets the literal text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.approved != "" {
				f.write(filepath.Join(f.env.Home, cli), `{"kiroAgent.mcpApprovedEnvVars": `+tc.approved+`}`)
			}
			req := f.req(Kiro, install.ScopeGlobal, install.Options{})
			req.Binary = self(t)
			f.apply(planInit(req))
			c := doctor(context.Background(), f.req(Kiro, install.ScopeGlobal, install.Options{}), environ)
			require.Empty(t, c.Problems)
			require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
			if tc.line != "" {
				require.Contains(t, c.Lines, tc.line)
			}
			if tc.trap != "" {
				require.Contains(t, c.Traps, strings.ReplaceAll(tc.trap, "{home}", f.env.Home))
			}
			require.NotContains(t, strings.Join(append(c.Lines, c.Traps...), "\n"), testKey)
		})
	}
}

func TestKiroLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "/b", "args": ["${FOO}"], "env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY}", "U": "${UNSET}", "L": "$FOO"}}`), &entry))
	l, err := hostLaunch(Kiro, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"${FOO}"}, l.Args, "the docs name env and headers only")
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": "${UNSET}", "L": "$FOO"}, envMap(l.Env))
}
