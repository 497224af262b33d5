package mcphosts

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestQwenPaths(t *testing.T) {
	checkPaths(t, Qwen, []pathCase{
		// packages/core/src/config/storage.ts: os.homedir()/.qwen, or $QWEN_HOME.
		{goos: "linux", want: "/home/u/.qwen/settings.json"},
		{goos: "darwin", want: "/home/u/.qwen/settings.json"},
		{goos: "linux", environ: []string{"XDG_CONFIG_HOME=/xdg"}, want: "/home/u/.qwen/settings.json"},
		{goos: "linux", environ: []string{"QWEN_HOME=/opt/qwen"}, want: "/opt/qwen/settings.json"},
		{goos: "linux", environ: []string{"QWEN_HOME=~/q"}, want: "/home/u/q/settings.json"},
		{goos: "linux", environ: []string{"QWEN_HOME=rel"}, want: "/home/u/proj/rel/settings.json"},
		{goos: "windows", want: `C:\Users\u\.qwen\settings.json`},
		{goos: "windows", environ: []string{`QWEN_HOME=D:\qwen`}, want: `D:\qwen\settings.json`},
		{goos: "linux", scope: install.ScopeProject, want: "/home/u/proj/.qwen/settings.json"},
		{goos: "windows", scope: install.ScopeProject, want: `C:\Users\u\proj\.qwen\settings.json`},
	})
}

func TestQwenRemote(t *testing.T) {
	// docs/features/mcp.md: streamable HTTP is httpUrl (url means SSE).
	remoteCase(t, Qwen, ".qwen/settings.json", "{\n  \"$version\": 4\n}\n",
		"{\n  \"$version\": 4,\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"httpUrl\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN}\"\n      },\n      \"alwaysLoadTools\": true\n    }\n  }\n}\n")
}

// The project entry has no env (Qwen binds its approval to the expanded
// entry) and the plan says how to approve it; forced tiers turn Qwen's
// built-ins off in tools.disabled.
func TestQwenEntryAndTraps(t *testing.T) {
	f := newFixture(t)
	p, err := planInit(f.req(Qwen, install.ScopeProject, install.Options{Search: "forced", Fetch: "forced"}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, "Qwen Code starts a project's MCP servers only once approved: run `qwen mcp approve deepseek-web-retrieval` in "+f.env.WorkDir+", and again after every change to the entry (init with other options included); until then `qwen mcp list` shows it as Pending approval")
	require.Contains(t, p.Notes, "forced tiers add Qwen Code's built-in web_search / web_fetch to tools.disabled")
	require.NoError(t, p.Apply())
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(f.read(filepath.Join(f.env.WorkDir, ".qwen", "settings.json"))), &got))
	require.Nil(t, lookup(got, "mcpServers", install.Name, "env"))
	require.Equal(t, true, lookup(got, "mcpServers", install.Name, "alwaysLoadTools"))
	require.Equal(t, []any{"web_search", "web_fetch"}, lookup(got, "tools", "disabled"))

	// A Claude Code entry in the project's .mcp.json wins over the user
	// entry in that project, unexpanded.
	f = newFixture(t)
	f.write(filepath.Join(f.env.WorkDir, ".mcp.json"), `{"mcpServers": {"deepseek-web-retrieval": {"command": "x", "env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY:-}"}}}}`)
	f.write(filepath.Join(f.env.Home, ".qwen", "settings.json"), "{\n  \"mcpServers\": {},\n}\n")
	p, err = planInit(f.req(Qwen, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err)
	require.Contains(t, p.Warnings, filepath.Join(f.env.WorkDir, ".mcp.json")+" has a deepseek-web-retrieval entry (Claude Code's project file), which Qwen Code uses in that project instead of the user entry, and with its env as written: Qwen expands no variable there, so a \"${DEEPSEEK_API_KEY:-}\" reaches the server as that literal text; run `"+install.InitCommand("qwen", f.env.WorkDir, nil)+"` there to give Qwen its own entry")
	require.Contains(t, p.Warnings, ".qwen/settings.json has trailing commas, which Qwen Code 0.24.4 cannot read (it saves a copy as settings.json.corrupted and does not use the file): init keeps them, as it keeps every byte it does not own; remove them, or Qwen Code will not see the server")
}

func TestQwenLaunch(t *testing.T) {
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"command": "/b", "args": ["$FOO", "${FOO}", "$SESSION_ID"], "env": {"DEEPSEEK_API_KEY": "$DEEPSEEK_API_KEY", "U": "$UNSET"}}`), &entry))
	l, err := hostLaunch(Qwen, entry, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "QWEN_SERVER_TOKEN": "t"}, "/work")
	require.NoError(t, err)
	require.Equal(t, []string{"foo", "foo", "$SESSION_ID"}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "U": "$UNSET"}, envMap(l.Env), "QWEN_SERVER_TOKEN is not passed on")
}

// Qwen Code adds "$version" to a settings file it loads: a file init
// created goes at uninstall when that is all that is left; a file of the
// user's keeps it.
func TestQwenVersionMember(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.WorkDir, ".qwen", "settings.json")
	tree := f.tree()
	f.apply(planInit(f.req(Qwen, install.ScopeProject, install.Options{})))
	f.write(path, strings.Replace(f.read(path), "{\n", "{\n  \"$version\": 4,\n", 1))
	f.apply(planUninstall(f.req(Qwen, install.ScopeProject, install.Options{})))
	require.Equal(t, tree, f.tree())

	f.write(path, "{}\n")
	f.apply(planInit(f.req(Qwen, install.ScopeProject, install.Options{})))
	f.write(path, strings.Replace(f.read(path), "{\n", "{\n  \"$version\": 4,\n", 1))
	f.apply(planUninstall(f.req(Qwen, install.ScopeProject, install.Options{})))
	require.JSONEq(t, `{"$version": 4}`, f.read(path))
}
