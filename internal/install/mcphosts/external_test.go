package mcphosts_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/mcphosts"
	"github.com/stretchr/testify/require"
)

const bin = "/opt/bin/deepseek-web-retrieval"

func host(t *testing.T, name string) install.Host {
	t.Helper()
	for _, h := range mcphosts.Hosts() {
		if h.Name() == name {
			return h
		}
	}
	t.Fatalf("no host %q", name)
	return nil
}

// machine is a scratch root holding home/ and work/.
type machine struct {
	t    *testing.T
	root string
	req  install.Request
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"home", "work"} {
		require.NoError(t, os.Mkdir(filepath.Join(root, d), 0o755))
	}
	return &machine{t: t, root: root, req: install.Request{
		Env:    install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "work"), GOOS: "linux"},
		Binary: bin, Version: "1.2.3",
	}}
}

func (m *machine) write(rel, content string) {
	m.t.Helper()
	p := filepath.Join(m.root, filepath.FromSlash(rel))
	require.NoError(m.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(m.t, os.WriteFile(p, []byte(content), 0o644))
}

var recordName = regexp.MustCompile(`-[0-9a-f]{16}\.json$`)

// tree lists every file and directory under the root (directories with a
// trailing slash and no content); an install record's hash is HASH.
func (m *machine) tree() map[string]string {
	m.t.Helper()
	out := map[string]string{}
	require.NoError(m.t, filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == m.root {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, m.root+string(filepath.Separator)))
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[recordName.ReplaceAllString(rel, "-HASH.json")] = string(b)
		return err
	}))
	return out
}

func TestHosts(t *testing.T) {
	var names []string
	remote := map[string]bool{}
	for _, h := range mcphosts.Hosts() {
		names = append(names, h.Name())
		remote[h.Name()] = h.Remote()
	}
	require.Equal(t, []string{"codex", "claude", "gemini", "pi", "cursor", "amp", "cline", "continue", "copilot", "crush", "goose",
		"junie", "kilo", "kiro", "qwen", "roo", "vscode", "windsurf", "zed"}, names)
	for _, name := range []string{"pi", "cline", "junie", "zed"} {
		require.False(t, remote[name], name)
		delete(remote, name)
	}
	for name, ok := range remote {
		require.True(t, ok, name)
	}

	g := mcphosts.Gateway()
	require.Equal(t, "opencode (gateway)", g.Name())
	require.True(t, g.Remote())
	require.Equal(t, mcphosts.Host("opencode"), mcphosts.OpenCode)

	// Without --remote OpenCode's entry would be a gateway entry with no
	// URL: refused, and the plugin named.
	m := newMachine(t)
	_, err := g.PlanInit(m.req)
	require.EqualError(t, err, "OpenCode's MCP entry is for a team gateway only (--remote); without --remote init installs the OpenCode plugin")
}

func TestConfigDirs(t *testing.T) {
	m := newMachine(t)
	project := m.req
	project.Scope = install.ScopeProject
	tests := []struct {
		host            string
		global, project string
	}{
		{"codex", "home/.codex", "work/.codex"},
		{"claude", "home", "work"},
		{"cursor", "home/.cursor", "work/.cursor"},
		{"goose", "home/.config/goose", "home/.config/goose"}, // init refuses the project scope
		{"vscode", "home/.config/Code/User", "work/.vscode"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			h := host(t, tt.host)
			dir, err := h.ConfigDir(m.req)
			require.NoError(t, err)
			require.Equal(t, filepath.Join(m.root, filepath.FromSlash(tt.global)), dir)
			dir, err = h.ConfigDir(project)
			if tt.project == "" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, filepath.Join(m.root, filepath.FromSlash(tt.project)), dir)
		})
	}
}

// TestInitUninstall installs into hosts of each config syntax (JSON,
// TOML, YAML), over a config the user has and over none, and uninstalls:
// every byte on the machine comes back, state directory included.
func TestInitUninstall(t *testing.T) {
	const state = "home/.local/state/deepseek-web-retrieval/installs/"
	tests := []struct {
		name    string
		host    string
		files   map[string]string
		environ []string
		remote  bool
		config  string // its path after init
		want    string
		record  string // the record's path, HASH for the hash
	}{
		{
			name: "cursor, new file", host: "cursor", config: "home/.cursor/mcp.json",
			want:   "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"command\": \"/opt/bin/deepseek-web-retrieval\",\n      \"args\": [\n        \"mcp\",\n        \"--search\",\n        \"preferred\",\n        \"--fetch\",\n        \"optional\"\n      ],\n      \"env\": {\n        \"DEEPSEEK_API_KEY\": \"${env:DEEPSEEK_API_KEY}\"\n      }\n    }\n  }\n}\n",
			record: state + "cursor-global-HASH.json",
		},
		{
			name: "cursor, the user's servers", host: "cursor", config: "home/.cursor/mcp.json",
			files:  map[string]string{"home/.cursor/mcp.json": "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"},
			want:   "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"deepseek-web-retrieval\": {\n      \"command\": \"/opt/bin/deepseek-web-retrieval\",\n      \"args\": [\n        \"mcp\",\n        \"--search\",\n        \"preferred\",\n        \"--fetch\",\n        \"optional\"\n      ],\n      \"env\": {\n        \"DEEPSEEK_API_KEY\": \"${env:DEEPSEEK_API_KEY}\"\n      }\n    }\n  }\n}\n",
			record: state + "cursor-global-HASH.json",
		},
		{
			name: "codex, TOML with a comment", host: "codex", config: "home/.codex/config.toml",
			files:  map[string]string{"home/.codex/config.toml": "# mine\nmodel = \"gpt-5\"\n"},
			want:   "# mine\nmodel = \"gpt-5\"\n\n[mcp_servers.deepseek-web-retrieval]\ncommand = \"/opt/bin/deepseek-web-retrieval\"\nargs = [\"mcp\", \"--search\", \"preferred\", \"--fetch\", \"optional\"]\nenv_vars = [\"DEEPSEEK_API_KEY\"]\n",
			record: state + "codex-global-HASH.json",
		},
		{
			name: "goose, YAML, state directory from XDG_STATE_HOME", host: "goose", config: "home/.config/goose/config.yaml",
			environ: []string{"XDG_STATE_HOME=$ROOT/state"},
			files:   map[string]string{"home/.config/goose/config.yaml": "GOOSE_MODEL: x\n"},
			want:    "GOOSE_MODEL: x\nextensions:\n  deepseek-web-retrieval:\n    enabled: true\n    type: stdio\n    name: deepseek-web-retrieval\n    description: Web search and page fetch through DeepSeek\n    cmd: /opt/bin/deepseek-web-retrieval\n    args:\n      - mcp\n      - --search\n      - preferred\n      - --fetch\n      - optional\n    envs: {}\n    env_keys:\n      - DEEPSEEK_API_KEY\n    timeout: 300\n",
			record:  "state/deepseek-web-retrieval/installs/goose-global-HASH.json",
		},
		{
			name: "OpenCode gateway entry", host: "opencode (gateway)", remote: true, config: "home/.config/opencode/opencode.json",
			files:  map[string]string{"home/.config/opencode/opencode.json": "{\n  \"theme\": \"dark\"\n}\n"},
			want:   "{\n  \"theme\": \"dark\",\n  \"mcp\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"remote\",\n      \"url\": \"https://gw.example/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer {env:TEAM_TOKEN}\"\n      },\n      \"oauth\": false,\n      \"enabled\": true\n    }\n  }\n}\n",
			record: state + "opencode-global-HASH.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			for rel, content := range tt.files {
				m.write(rel, content)
			}
			req := m.req
			for _, kv := range tt.environ {
				req.Env.Environ = append(req.Env.Environ, strings.ReplaceAll(kv, "$ROOT", m.root))
			}
			h := mcphosts.Gateway()
			if !tt.remote {
				h = host(t, tt.host)
			} else {
				r, err := install.ParseRemote("https://gw.example", "TEAM_TOKEN")
				require.NoError(t, err)
				req.Remote = r
			}
			require.Equal(t, tt.host, h.Name())
			before := m.tree()

			p, err := h.PlanInit(req)
			require.NoError(t, err)
			require.Equal(t, before, m.tree(), "planning writes nothing")
			require.NoError(t, p.Apply())
			after := m.tree()
			require.Equal(t, tt.want, after[tt.config])
			require.Contains(t, after, tt.record)
			require.True(t, strings.HasPrefix(after[tt.record], "{\n  \"format\": 2,\n  \"tool\": \"deepseek-web-retrieval\",\n  \"version\": \"1.2.3\",\n"), after[tt.record])
			require.True(t, h.Installed(req))

			again, err := h.PlanInit(req)
			require.NoError(t, err)
			require.True(t, again.Empty())

			u, err := h.PlanUninstall(req)
			require.NoError(t, err)
			require.NoError(t, u.Apply())
			require.Equal(t, before, m.tree(), "uninstall gives back every byte and removes what init made")
			require.False(t, h.Installed(req))
		})
	}
}

func TestInitRefusals(t *testing.T) {
	gateway, err := install.ParseRemote("https://gw.example", "TEAM_TOKEN")
	require.NoError(t, err)
	tests := []struct {
		name  string
		host  string
		files map[string]string
		req   func(r *install.Request)
		want  string // $ROOT for the scratch root; a trailing "…" matches a prefix
	}{
		{name: "relative binary", host: "codex", req: func(r *install.Request) { r.Binary = "bin/deepseek-web-retrieval" },
			want: `the binary's path "bin/deepseek-web-retrieval" is not absolute`},
		{name: "no binary", host: "cursor", req: func(r *install.Request) { r.Binary = "" }, want: `the binary's path "" is not absolute`},
		{name: "pi has no remote servers", host: "pi", req: func(r *install.Request) { r.Remote = gateway },
			want: "Pi (pi-mcp-adapter mcp.json) cannot connect to a team gateway (--remote): it starts MCP servers only as commands"},
		{name: "junie has no remote servers", host: "junie", req: func(r *install.Request) { r.Remote = gateway },
			want: "Junie (mcp.json) cannot connect to a team gateway (--remote): it starts MCP servers only as commands"},
		{name: "zed would need the token written", host: "zed", req: func(r *install.Request) { r.Remote = gateway },
			want: "Zed (context_servers in settings.json) cannot connect to a team gateway (--remote): Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command"},
		{name: "goose has no project file", host: "goose", req: func(r *install.Request) { r.Scope = install.ScopeProject },
			want: "Goose (extensions in config.yaml) cannot be installed into a project (--scope project): Goose reads extensions only from its own config.yaml (a recipe's extensions list can name the server for one project); run init without --scope project"},
		{name: "invalid option", host: "gemini", req: func(r *install.Request) { r.Options.MaxResults = new(int) }, want: "invalid maxResults: …"},
		{name: "JSON that does not parse", host: "cursor", files: map[string]string{"home/.cursor/mcp.json": "{\"mcpServers\": {\n"},
			want: "refused: cannot parse $ROOT/home/.cursor/mcp.json: hujson: line 2, column 1: parsing value: unexpected EOF\nTo do it by hand:\n  - fix the file, then run init again"},
		{name: "TOML that does not parse", host: "codex", files: map[string]string{"home/.codex/config.toml": "model = \n"},
			want: "refused: cannot parse $ROOT/home/.codex/config.toml: toml: line 1 (last key \"model\"): expected value but found '\\n' instead\nTo do it by hand:\n  - fix the file, then run init again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			for rel, content := range tt.files {
				m.write(rel, content)
			}
			req := m.req
			if tt.req != nil {
				tt.req(&req)
			}
			before := m.tree()
			p, err := host(t, tt.host).PlanInit(req)
			require.Nil(t, p)
			require.Error(t, err)
			want := strings.ReplaceAll(tt.want, "$ROOT", m.root)
			if prefix, ok := strings.CutSuffix(want, "…"); ok {
				require.True(t, strings.HasPrefix(err.Error(), prefix), err.Error())
				for rel := range tt.files {
					require.Contains(t, err.Error(), filepath.Join(m.root, filepath.FromSlash(rel)), "the error names the file")
				}
			} else {
				require.EqualError(t, err, want)
			}
			require.Equal(t, before, m.tree())
		})
	}
}
