package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestJuniePaths(t *testing.T) {
	checkPaths(t, Junie, []pathCase{
		// ~/.junie/mcp/mcp.json and .junie/mcp/mcp.json (third-party
		// configurators and a summary of junie.jetbrains.com's CLI docs;
		// unverified at a pinned version).
		{goos: "linux", want: "/home/u/.junie/mcp/mcp.json"},
		{goos: "darwin", want: "/home/u/.junie/mcp/mcp.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.junie/mcp/mcp.json"},
		{goos: "windows", want: `C:\Users\u\.junie\mcp\mcp.json`},
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.junie/mcp/mcp.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.junie\mcp\mcp.json`},
	})
}

// Junie supports stdio servers only (JetBrains' help): --remote is
// refused with the generic sentence, which is the true one here.
func TestJunieRemoteRefused(t *testing.T) {
	f := newFixture(t)
	_, err := planInit(f.remoteReq(Junie, install.ScopeGlobal, install.Options{}))
	require.EqualError(t, err, "Junie (mcp.json) cannot connect to a team gateway (--remote): it starts MCP servers only as commands")
	require.Equal(t, "it starts MCP servers only as commands", mcpHost{Junie}.NoRemote())
}

// No variable syntax is documented: the entry has no env, the plan says
// the key is inherited, and doctor's launch inherits it.
func TestJunieKeyByInheritance(t *testing.T) {
	f := newFixture(t)
	p, err := planInit(f.req(Junie, install.ScopeProject, install.Options{Search: "forced"}))
	require.NoError(t, err)
	require.Equal(t, []string{
		"Junie documents no variable syntax for an entry's env, so the entry has no env: the server inherits DEEPSEEK_API_KEY from the IDE's environment (or the Junie CLI's shell). Export it in your shell profile, then restart the IDE",
		"Junie asks before each MCP tool call: add an MCP rule to its Action Allowlist to let it call deepseek_search and deepseek_fetch without asking",
		"mcp.json has no setting for Junie's own tools: forced tiers change nothing there",
	}, p.Notes[:3])
	require.NoError(t, p.Apply())
	v := readStrictJSON(t, []byte(f.read(filepath.Join(f.env.WorkDir, ".junie", "mcp", "mcp.json"))))
	require.Equal(t, map[string]any{"command": binary, "args": []any{"mcp", "--search", "forced", "--fetch", "optional"}}, lookup(v, "mcpServers", install.Name))

	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "/b", "args": ["${FOO}"], "env": {"X": "${FOO}"}}`), &entry))
	l, err := hostLaunch(Junie, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"${FOO}"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "X": "${FOO}"}, envMap(l.Env))
}
