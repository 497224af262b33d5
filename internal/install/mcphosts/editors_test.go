package mcphosts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// What the tests of the editor hosts (windsurf.go, zed.go, kiro.go,
// junie.go, amp.go) and of the newer JSON hosts (kilo.go, cline.go,
// crush.go) share: their golden seeds, their shape corpus, and the
// project scope Windsurf does not have.

// editorHosts are those hosts.
var editorHosts = []Host{Windsurf, Zed, Kiro, Junie, Amp, Kilo, Cline, Crush}

// strictJSON marks the hosts that read their file as strict JSON (no
// comments, no trailing commas); Zed, Amp and Kilo read JSON with
// comments.
var strictJSON = map[Host]bool{Windsurf: true, Kiro: true, Junie: true, Cline: true, Crush: true}

// readStrictJSON reads data with encoding/json alone, after its byte order
// mark; a blank file is an empty object.
func readStrictJSON(t testing.TB, data []byte) map[string]any {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "not strict JSON: %q", data)
	return m
}

// editorSeeds are realistic existing configs of the editor hosts (see
// seeds): other servers, comments where the format has them, a
// credential of another tool.
func editorSeeds(f *fixture, h Host, scope install.Scope) {
	home, proj := f.env.Home, f.env.WorkDir
	global := scope == install.ScopeGlobal
	switch {
	case h == Windsurf && global:
		f.write(filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n      \"env\": {\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"ghp_0123456789abcdefghijABCDEFGHIJ012345\"}\n    },\n    \"old-search\": {\"serverUrl\": \"https://example.com/mcp\", \"disabled\": true}\n  }\n}\n")
	case h == Zed && global:
		// The comment block Zed writes into a new settings.json.
		f.write(filepath.Join(home, ".config", "zed", "settings.json"), "// Zed settings\n//\n// For information on how to configure Zed, see the Zed\n// documentation: https://zed.dev/docs/configuring-zed\n{\n  \"theme\": \"One Dark\",\n  \"context_servers\": {\n    \"postgres\": {\"command\": \"postgres-mcp\", \"args\": [], \"env\": {\"PGPASSWORD\": \"hunter2\"}}\n  },\n  \"agent\": {\n    \"profiles\": {\n      \"focused\": {\"name\": \"Focused\", \"enable_all_context_servers\": false, \"tools\": {\"read_file\": true}}\n    }\n  }\n}\n")
	case h == Zed:
		f.write(filepath.Join(proj, ".zed", "settings.json"), "// Folder-specific settings\n{\n  \"tab_size\": 4,\n}\n")
	case h == Kiro && global:
		f.write(filepath.Join(home, ".kiro", "settings", "mcp.json"), "{\n  \"mcpServers\": {\n    \"aws-docs\": {\n      \"command\": \"uvx\",\n      \"args\": [\"awslabs.aws-documentation-mcp-server@latest\"],\n      \"env\": {\"FASTMCP_LOG_LEVEL\": \"ERROR\"},\n      \"disabled\": false,\n      \"autoApprove\": []\n    }\n  }\n}\n")
	case h == Kiro:
		f.write(filepath.Join(proj, ".kiro", "settings", "mcp.json"), "{\n  \"mcpServers\": {}\n}\n")
	case h == Junie && global:
		f.write(filepath.Join(home, ".junie", "mcp", "mcp.json"), "{\n    \"mcpServers\": {\n        \"tavily\": {\n            \"command\": \"npx\",\n            \"args\": [\"-y\", \"tavily-mcp\"],\n            \"env\": {\"TAVILY_API_KEY\": \"tvly-0123456789abcdefABCDEF\"}\n        }\n    }\n}\n")
	case h == Amp && global:
		f.write(filepath.Join(home, ".config", "amp", "settings.json"), "{\n  \"amp.notifications.enabled\": true,\n  // from amp mcp add\n  \"amp.mcpServers\": {\n    \"context7\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@upstash/context7-mcp\"]\n    }\n  },\n  \"amp.tools.disable\": [\"browser_navigate\"],\n}\n")
	case h == Amp:
		f.write(filepath.Join(proj, ".amp", "settings.json"), "{\n  \"amp.permissions\": [\n    {\"tool\": \"shell_command\", \"action\": \"ask\"}\n  ]\n}\n")
	}
}

// editorShapes are the corpus's shapes of h's server file: serverShapes
// with h's member in place of mcpServers (text and refusals), the
// strictly valid JSON ones only for a host that reads strict JSON, and a
// missing file.
func editorShapes(h Host) []shape {
	member := "mcpServers"
	switch h {
	case Zed:
		member = "context_servers"
	case Amp:
		member = "amp.mcpServers"
	case Kilo, Crush:
		member = "mcp"
	}
	out := []shape{{name: "missing file", text: "\x00"}}
	for _, s := range serverShapes {
		if strictJSON[h] {
			text := strings.ReplaceAll(s.text, "{entry}", "{}")
			if strings.TrimSpace(text) != "" && !json.Valid([]byte(text)) {
				continue
			}
		}
		s.text = strings.ReplaceAll(s.text, `"mcpServers"`, `"`+member+`"`)
		s.refuse = strings.ReplaceAll(s.refuse, "mcpServers", member)
		out = append(out, s)
	}
	return out
}

// TestEditorShapeCorpus runs the shape corpus (see shapes_test.go) for
// the editor hosts, with each of their files' formats: strict JSON for
// Windsurf, Kiro and Junie, JSON with comments for Zed and Amp. Every
// shape, in every style, goes through init, an independent read (strict
// encoding/json where the host is strict), and an uninstall that gives
// back the original bytes.
func TestEditorShapeCorpus(t *testing.T) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	vs := variants()
	var total, refused atomic.Int64
	t.Cleanup(func() {
		t.Logf("editor shape corpus: %d cases (%d variants each), %d refused as expected", total.Load(), len(vs), refused.Load())
	})
	for _, h := range editorHosts {
		for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
			if scope == install.ScopeProject && adapters[h].noProject != "" {
				continue
			}
			t.Run(string(h)+"/"+string(scope), func(t *testing.T) {
				t.Parallel()
				f := newMemFixture(t)
				shapes := editorShapes(h)
				if strictJSON[h] {
					require.Less(t, len(shapes), len(serverShapes)+1, "the shapes with comments are left out")
				} else {
					require.Len(t, shapes, len(serverShapes)+1)
				}
				for si, s := range shapes {
					for vi, v := range vs {
						c := corpusCase{host: h, scope: scope, tier: tiers[(si+vi)%len(tiers)], v: v, server: s, other: claudeSettingsShapes[0], strict: strictJSON[h]}
						total.Add(1)
						if runCase(t, f, c) {
							refused.Add(1)
						}
					}
				}
			})
		}
	}
}

// Windsurf (and Goose and Cline) have no project file: init refuses --scope project with the
// reason, uninstall has nothing to do there, and doctor checks only the
// global file.
func TestNoProjectScope(t *testing.T) {
	f := newFixture(t)
	_, err := planInit(f.req(Windsurf, install.ScopeProject, install.Options{}))
	require.EqualError(t, err, "Windsurf (mcp_config.json) cannot be installed into a project (--scope project): Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json (it documents no project file); run init without --scope project")
	_, err = planInit(f.req(Goose, install.ScopeProject, install.Options{}))
	require.EqualError(t, err, "Goose (extensions in config.yaml) cannot be installed into a project (--scope project): Goose reads extensions only from its own config.yaml (a recipe's extensions list can name the server for one project); run init without --scope project")

	// Installed globally, the project scope still has nothing of ours.
	f.apply(planInit(f.req(Windsurf, install.ScopeGlobal, install.Options{})))
	u, err := planUninstall(f.req(Windsurf, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.True(t, u.Empty())
	require.Equal(t, "Nothing to uninstall: Windsurf (mcp_config.json) has no project scope.", u.UpToDate)

	h := mcpHost{Windsurf}
	require.Equal(t, "Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json (it documents no project file); run init without --scope project", h.NoProject())
	var titles []string
	for _, c := range h.Doctor(context.Background(), install.Request{Env: f.env}) {
		titles = append(titles, c.Title)
	}
	require.Equal(t, []string{"Windsurf (mcp_config.json) (global)"}, titles)
	for _, o := range editorHosts[1:] {
		if o != Cline {
			require.Empty(t, mcpHost{o}.NoProject(), o)
		}
	}
	_, err = planInit(f.req(Cline, install.ScopeProject, install.Options{}))
	require.EqualError(t, err, "Cline (cline_mcp_settings.json) cannot be installed into a project (--scope project): Cline reads MCP servers only from its own cline_mcp_settings.json, not from a project; run init without --scope project")
}

// pathCase is one row of a per-GOOS path table: the system, the
// variables set, the scope, and the file the host reads.
type pathCase struct {
	goos    string
	environ []string
	scope   install.Scope
	want    string
}

// checkPaths checks h's main file for each row, with a Unix home for
// linux and darwin and a Windows one for windows.
func checkPaths(t *testing.T, h Host, rows []pathCase) {
	t.Helper()
	for i, row := range rows {
		t.Run(fmt.Sprintf("%d/%s", i, row.goos), func(t *testing.T) {
			env := install.Env{GOOS: row.goos, Home: "/home/u", WorkDir: "/home/u/proj", Environ: row.environ}
			if row.goos == "windows" {
				env.Home, env.WorkDir = `C:\Users\u`, `C:\Users\u\proj`
			}
			got, err := mainFile(request{install.Request{Env: env, Scope: row.scope}, h})
			require.NoError(t, err)
			require.Equal(t, row.want, got)
		})
	}
}
