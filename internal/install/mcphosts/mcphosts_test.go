package mcphosts

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const binary = "/opt/dwr/bin/deepseek-web-retrieval"

type fixture struct {
	t    *testing.T
	root string
	env  install.Env
}

func newFixture(t *testing.T) *fixture {
	root := t.TempDir()
	env := install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "proj")}
	require.NoError(t, os.MkdirAll(env.Home, 0o755))
	require.NoError(t, os.MkdirAll(env.WorkDir, 0o755))
	return &fixture{t: t, root: root, env: env}
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	require.NoError(f.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(f.t, os.WriteFile(path, []byte(content), 0o644))
}

func (f *fixture) req(h Host, scope install.Scope, o install.Options) request {
	return request{install.Request{Env: f.env, Scope: scope, Options: o, Binary: binary, Version: "test"}, h}
}

func (f *fixture) render(p *install.Plan, applied bool) string {
	var b strings.Builder
	require.NoError(f.t, p.Render(&b, applied))
	return recordHash.ReplaceAllString(strings.ReplaceAll(b.String(), f.root, "$TMP"), "-HASH.json")
}

var recordHash = regexp.MustCompile(`-[0-9a-f]{16}\.json`)

// tree lists every file under root with its content (the state directory
// included).
func (f *fixture) tree() map[string]string {
	out := map[string]string{}
	require.NoError(f.t, filepath.WalkDir(f.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.root, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./internal/install/mcphosts -update")
	require.Equal(t, string(want), got)
}

// seeds are realistic existing configs per host and scope: other servers,
// comments, a credential of another tool.
func seeds(f *fixture, h Host, scope install.Scope) {
	home, proj := f.env.Home, f.env.WorkDir
	switch h {
	case Codex:
		cfg := "# Codex config\nmodel = \"gpt-5\" # the default\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\nenv = { GITHUB_TOKEN = \"ghp_0123456789abcdefghijABCDEFGHIJ012345\" }\n\n# tools\n[tools]\nweb_search = false\n"
		if scope == install.ScopeProject {
			f.write(filepath.Join(proj, ".codex", "config.toml"), cfg)
		} else {
			f.write(filepath.Join(home, ".codex", "config.toml"), cfg)
		}
	case Copilot:
		if scope == install.ScopeProject {
			seeds(f, Claude, scope) // the same file
		} else {
			// As `copilot mcp add --transport http github …` writes it, with
			// the token pasted in.
			f.write(filepath.Join(home, ".copilot", "mcp-config.json"), "{\n  \"mcpServers\": {\n    \"github\": {\n      \"tools\": [\n        \"*\"\n      ],\n      \"type\": \"http\",\n      \"url\": \"https://api.githubcopilot.com/mcp/\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345\"\n      }\n    }\n  }\n}\n")
		}
	case Claude:
		if scope == install.ScopeProject {
			f.write(filepath.Join(proj, ".mcp.json"), "{\n  \"mcpServers\": {\n    \"brave-search\": {\"command\": \"npx\", \"args\": [\"-y\", \"@brave/brave-search-mcp-server\"], \"env\": {\"BRAVE_API_KEY\": \"${BRAVE_API_KEY}\"}}\n  }\n}\n")
		} else {
			f.write(filepath.Join(home, ".claude.json"), "{\n  \"numStartups\": 12,\n  \"mcpServers\": {},\n  \"projects\": {}\n}\n")
			f.write(filepath.Join(home, ".claude", "settings.json"), "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\"]\n  }\n}\n")
		}
	case Gemini:
		if scope == install.ScopeGlobal {
			f.write(filepath.Join(home, ".gemini", "settings.json"), "{\n  // my settings\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"$GITHUB_TOKEN\"}}\n  }\n}\n")
		}
	case Pi:
		if scope == install.ScopeGlobal {
			f.write(filepath.Join(home, ".pi", "agent", "settings.json"), "{\n  \"packages\": [\"npm:pi-mcp-adapter\"]\n}\n")
		}
	case Cursor:
		if scope == install.ScopeGlobal {
			f.write(filepath.Join(home, ".cursor", "mcp.json"), "{\n\t\"mcpServers\": {\n\t\t\"tavily\": {\"url\": \"https://mcp.tavily.com/mcp\", \"headers\": {\"Authorization\": \"Bearer tvly-0123456789abcdefABCDEF\"}}\n\t}\n}\n")
		}
	case VSCode:
		// Two builds: stable with its mcp.json (JSONC, inputs, another
		// server), Insiders with none yet.
		if scope == install.ScopeProject {
			f.write(filepath.Join(proj, ".vscode", "mcp.json"), "{\n\t\"servers\": {\n\t\t// docs\n\t\t\"context7\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"https://mcp.context7.com/mcp\"\n\t\t},\n\t}\n}\n")
		} else {
			f.write(filepath.Join(home, ".config", "Code", "User", "mcp.json"), "{\n\t\"inputs\": [\n\t\t{\n\t\t\t\"type\": \"promptString\",\n\t\t\t\"id\": \"perplexity-key\",\n\t\t\t\"description\": \"Perplexity API Key\",\n\t\t\t\"password\": true\n\t\t}\n\t],\n\t\"servers\": {\n\t\t\"perplexity\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\"-y\", \"server-perplexity-ask\"],\n\t\t\t\"env\": {\"PERPLEXITY_API_KEY\": \"${input:perplexity-key}\"}\n\t\t}\n\t}\n}\n")
			f.write(filepath.Join(home, ".config", "Code - Insiders", "User", "settings.json"), "{\n\t\"chat.mcp.access\": \"all\"\n}\n")
		}
	case Roo:
		// The file as Roo Code writes it, with another server's literal key.
		if scope == install.ScopeProject {
			f.write(filepath.Join(proj, ".roo", "mcp.json"), "{\n  \"mcpServers\": {\n    \"filesystem\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]\n    }\n  }\n}\n")
		} else {
			f.write(filepath.Join(home, ".config", "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"), "{\n  \"mcpServers\": {\n    \"tavily\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"tavily-mcp\"\n      ],\n      \"env\": {\n        \"TAVILY_API_KEY\": \"tvly-0123456789abcdefABCDEF\"\n      },\n      \"alwaysAllow\": [],\n      \"disabled\": false\n    }\n  }\n}")
		}
	case Goose:
		// As Goose writes it (serde_yaml: keys sorted, sequences at the
		// key's column), plus a comment of the user's.
		f.write(filepath.Join(home, ".config", "goose", "config.yaml"), "# goose\nGOOSE_MODEL: gpt-4o\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    bundled: true\n    display_name: Developer\n    enabled: true\n    name: developer\n    timeout: 300\n    type: builtin\n  github:\n    args:\n    - -y\n    - '@modelcontextprotocol/server-github'\n    cmd: npx\n    enabled: true\n    envs:\n      GITHUB_PERSONAL_ACCESS_TOKEN: ghp_0123456789abcdefghijABCDEFGHIJ012345\n    name: github\n    type: stdio\n")
	case Continue:
		if scope == install.ScopeGlobal {
			f.write(filepath.Join(home, ".continue", "config.yaml"), "name: Local Config\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Claude\n    provider: anthropic\n    model: claude-sonnet-4-5\n    apiKey: ${{ secrets.ANTHROPIC_API_KEY }}\n\n# MCP\nmcpServers:\n  - name: tavily\n    type: streamable-http\n    url: https://mcp.tavily.com/mcp\n    requestOptions:\n      headers:\n        Authorization: Bearer tvly-0123456789abcdefABCDEF\n")
		}
	default:
		editorSeeds(f, h, scope)
	}
}

// TestPlanGolden plans, applies and uninstalls every host × scope × tier
// and compares the plan, the applied plan, the files written and the
// uninstall plan with testdata/<host>.txtar; uninstall must leave every
// file byte-identical.
func TestPlanGolden(t *testing.T) {
	for _, h := range all {
		t.Run(string(h), func(t *testing.T) {
			var out strings.Builder
			for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
				if scope == install.ScopeProject && adapters[h].noProject != "" {
					// No project file: refused (see TestNoProjectScope).
					continue
				}
				for _, tier := range []string{"off", "optional", "preferred", "forced"} {
					f := newFixture(t)
					seeds(f, h, scope)
					before := f.tree()
					req := f.req(h, scope, install.Options{Search: tier, Fetch: tier})
					p, err := planInit(req)
					name := string(scope) + "/" + tier
					require.NoError(t, err)
					out.WriteString("-- " + name + "/plan --\n" + f.render(p, false))
					require.NoError(t, p.Apply())
					again, err := planInit(req)
					require.NoError(t, err)
					require.True(t, again.Empty(), "a second init changes nothing:\n%s", f.render(again, false))
					after := f.tree()
					var files []string
					for k, v := range after {
						if before[k] != v && !strings.HasSuffix(k, "/") && !strings.Contains(k, "/.local/state/") {
							files = append(files, k)
						}
					}
					sort.Strings(files)
					for _, k := range files {
						content := string(install.Mask([]byte(after[k]), install.Secrets(k, []byte(after[k]))))
						out.WriteString("-- " + name + "/" + k + " --\n" + content)
					}
					u, err := planUninstall(f.req(h, scope, install.Options{}))
					require.NoError(t, err)
					out.WriteString("-- " + name + "/uninstall --\n" + f.render(u, false))
					require.NoError(t, u.Apply())
					require.Equal(t, before, f.tree(), "uninstall restores every file byte for byte")
					for _, s := range []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "tvly-0123456789abcdefABCDEF"} {
						require.NotContains(t, out.String(), s)
					}
				}
			}
			golden(t, string(h)+".txtar", out.String())
		})
	}
}
