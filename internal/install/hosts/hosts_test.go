package hosts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// request is a run in a fresh home with no program on PATH.
func request(t *testing.T) install.Request {
	root := t.TempDir()
	env := install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "proj")}
	require.NoError(t, os.MkdirAll(env.Home, 0o755))
	require.NoError(t, os.MkdirAll(env.WorkDir, 0o755))
	return install.Request{Env: env, Scope: install.ScopeGlobal, Binary: "/usr/local/bin/deepseek-web-retrieval", Package: "@deepseek-web-retrieval/opencode@1.2.3", Version: "test"}
}

func names(jobs []Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Host)
	}
	return out
}

func TestNames(t *testing.T) {
	require.Equal(t, []string{"opencode", "opencode1", "codex", "claude", "gemini", "pi", "cursor", "amp", "cline", "continue", "copilot", "crush", "goose", "junie", "kilo", "kiro", "qwen", "roo", "vscode", "windsurf", "zed"}, Names())
	for _, ok := range []string{"auto", "opencode", "opencode2", "opencode1", "codex", "cursor"} {
		require.NoError(t, CheckName(ok), ok)
	}
	require.EqualError(t, CheckName("vim"), `unknown host "vim" (want one of opencode, opencode1, codex, claude, gemini, pi, cursor, amp, cline, continue, copilot, crush, goose, junie, kilo, kiro, qwen, roo, vscode, windsurf, zed, auto)`)
	require.EqualError(t, CheckName("opencode (gateway)"), `unknown host "opencode (gateway)" (want one of opencode, opencode1, codex, claude, gemini, pi, cursor, amp, cline, continue, copilot, crush, goose, junie, kilo, kiro, qwen, roo, vscode, windsurf, zed, auto)`)
}

func TestInit(t *testing.T) {
	remote := &install.Remote{URL: "https://gw.example.com/mcp", TokenEnv: install.DefaultTokenEnv}
	for _, tc := range []struct {
		name string
		dirs []string // made under the home: the hosts found
		// files are written into the project, by name.
		files  map[string]string
		host   string
		remote bool
		// project: --scope project.
		project bool
		jobs    []string
		notes   []string
		err     string
		noHost  bool
	}{
		{name: "auto finds nothing", host: "auto", noHost: true},
		{name: "auto finds codex and pi", dirs: []string{".codex", ".pi/agent"}, host: "auto", jobs: []string{"codex", "pi"}},
		{name: "auto with --remote leaves pi out", dirs: []string{".codex", ".pi/agent"}, host: "auto", remote: true, jobs: []string{"codex"},
			notes: []string{"--host auto: left out pi cannot connect to a team gateway (--remote): it starts MCP servers only as commands"}},
		{name: "auto with --remote and only pi", dirs: []string{".pi/agent"}, host: "auto", remote: true, noHost: true,
			notes: []string{"--host auto: left out pi cannot connect to a team gateway (--remote): it starts MCP servers only as commands"}},
		{name: "named pi with --remote", host: "pi", remote: true, err: "pi cannot connect to a team gateway (--remote): it starts MCP servers only as commands"},
		{name: "auto with --remote leaves zed out, saying why", dirs: []string{".config/zed", ".codeium/windsurf"}, host: "auto", remote: true, jobs: []string{"windsurf"},
			notes: []string{"--host auto: left out zed cannot connect to a team gateway (--remote): Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command"}},
		{name: "named zed with --remote", host: "zed", remote: true, err: "zed cannot connect to a team gateway (--remote): Zed sends a remote server's headers exactly as written (it expands no variable in settings.json), so the gateway token would have to be written into the file; run init without --remote to start the server as a command"},
		{name: "auto in a project leaves windsurf out", dirs: []string{".codeium/windsurf", ".kiro"}, host: "auto", project: true, jobs: []string{"kiro"},
			notes: []string{"--host auto: left out windsurf cannot be installed into a project (--scope project): Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json (it documents no project file); run init without --scope project"}},
		{name: "named windsurf in a project", host: "windsurf", project: true, err: "windsurf cannot be installed into a project (--scope project): Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json (it documents no project file); run init without --scope project"},
		{name: "named windsurf, global", host: "windsurf", jobs: []string{"windsurf"}},
		{name: "auto in a project whose OpenCode loads our plugin leaves kilo out", dirs: []string{".config/kilo", ".kiro"}, files: map[string]string{"opencode.json": `{"plugin": ["deepseek-web-retrieval-opencode"]}`}, host: "auto", project: true, jobs: []string{"opencode1", "kiro"},
			notes: []string{"--host auto: no opencode on PATH; the config already uses the key of --host opencode1, so init keeps it", "--host auto: left out kilo: {proj}/opencode.json lists the deepseek-web-retrieval OpenCode plugin (\"deepseek-web-retrieval-opencode\") under \"plugin\", which Kilo Code loads too: Kilo already has deepseek_search and deepseek_fetch in this project, and the MCP server beside it would offer every tool twice"}},
		{name: "named kilo in that project", files: map[string]string{"opencode.json": `{"plugin": ["deepseek-web-retrieval-opencode"]}`}, host: "kilo", project: true,
			err: "refused: {proj}/opencode.json lists the deepseek-web-retrieval OpenCode plugin (\"deepseek-web-retrieval-opencode\") under \"plugin\", which Kilo Code loads too: Kilo already has deepseek_search and deepseek_fetch in this project, and the MCP server beside it would offer every tool twice\nTo do it by hand:\n  - nothing to do for Kilo Code here; to give it the MCP server instead, run `deepseek-web-retrieval uninstall --host opencode1 --scope project --dir {proj} --yes` (OpenCode loses the plugin), then init again"},
		{name: "named, not on this machine", host: "gemini", jobs: []string{"gemini"}},
		{name: "opencode2 is opencode", host: "opencode2", jobs: []string{"opencode"}},
		{name: "opencode1 with --remote: its gateway entry", host: "opencode1", remote: true, jobs: []string{"opencode1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request(t)
			for _, d := range tc.dirs {
				require.NoError(t, os.MkdirAll(filepath.Join(req.Env.Home, filepath.FromSlash(d)), 0o755))
			}
			for name, text := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(req.Env.WorkDir, name), []byte(text), 0o644))
			}
			if tc.remote {
				req.Remote = remote
			}
			if tc.project {
				req.Scope = install.ScopeProject
			}
			var notes []string
			jobs, err := Init(req, tc.host, func(n string) { notes = append(notes, n) })
			for i := range tc.notes {
				tc.notes[i] = strings.ReplaceAll(tc.notes[i], "{proj}", req.Env.WorkDir)
			}
			tc.err = strings.ReplaceAll(tc.err, "{proj}", req.Env.WorkDir)
			require.Equal(t, tc.notes, notes)
			switch {
			case tc.noHost:
				require.True(t, NoHost(err), "%v", err)
			case tc.err != "":
				require.EqualError(t, err, tc.err)
			default:
				require.NoError(t, err)
				require.Equal(t, tc.jobs, names(jobs))
				for _, j := range jobs {
					p, err := j.Plan()
					require.NoError(t, err)
					require.False(t, p.Empty())
				}
			}
		})
	}
}

// OpenCode's plugin and its gateway entry exclude each other: init of one
// is refused while the other is installed, and uninstall --host opencode
// takes out whichever is there.
func TestPluginAgainstGateway(t *testing.T) {
	req := request(t)
	dir := filepath.Join(req.Env.Home, ".config", "opencode")
	gw := req
	gw.Remote = &install.Remote{URL: "https://gw.example.com/mcp", TokenEnv: install.DefaultTokenEnv}
	jobs, err := Init(gw, "opencode", func(string) {})
	require.NoError(t, err)
	require.Equal(t, dir, jobs[0].Dir)
	p, err := jobs[0].Plan()
	require.NoError(t, err)
	require.NoError(t, install.Tx{Command: "init", Plans: []*install.Plan{p}}.Apply())

	jobs, err = Init(req, "opencode", func(string) {})
	require.NoError(t, err)
	_, err = jobs[0].Plan()
	require.EqualError(t, err, "refused: this OpenCode config has a gateway entry (init --remote), and the plugin beside it would offer every tool twice\n"+
		"To do it by hand:\n  - run `deepseek-web-retrieval uninstall --host opencode` first, then init again")

	un := Uninstall(req, "opencode")
	require.Equal(t, []string{"opencode (gateway)"}, names(un))
	p, err = un[0].Plan()
	require.NoError(t, err)
	require.False(t, p.Empty())
	require.Equal(t, []string{"opencode", "opencode (gateway)", "codex", "claude", "gemini", "pi", "cursor", "amp", "cline", "continue", "copilot", "crush", "goose", "junie", "kilo", "kiro", "qwen", "roo", "vscode", "windsurf", "zed"}, names(Uninstall(req, "auto")))
	require.Equal(t, []string{"opencode2"}, names(Uninstall(request(t), "opencode2")))
}

// Doctor shows OpenCode's global config, and names the MCP hosts not found.
func TestDoctor(t *testing.T) {
	req := request(t)
	var titles, absent []string
	for _, c := range Doctor(context.Background(), req) {
		if c.Absent {
			absent = append(absent, c.Title)
			continue
		}
		titles = append(titles, c.Title)
	}
	require.Equal(t, []string{"OpenCode (global: " + filepath.Join(req.Env.Home, ".config", "opencode") + ")"}, titles)
	require.Equal(t, []string{"codex", "claude", "gemini", "pi", "cursor", "amp", "cline", "continue", "copilot", "crush", "goose", "junie", "kilo", "kiro", "qwen", "roo", "vscode", "windsurf", "zed"}, absent)
}

// Claude Code and Copilot CLI share a project's .mcp.json: with both in
// one run (--host auto finds both; uninstall --host auto), each plan
// knows the other is in the run, both make the same change to the file,
// and the run applies it once; the last uninstall gives the bytes back.
func TestOneRunSharesMCPJSON(t *testing.T) {
	req := request(t)
	req.Scope = install.ScopeProject
	for _, d := range []string{".claude", ".copilot"} {
		require.NoError(t, os.MkdirAll(filepath.Join(req.Env.Home, d), 0o755))
	}
	path := filepath.Join(req.Env.WorkDir, ".mcp.json")
	seed := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"
	require.NoError(t, os.WriteFile(path, []byte(seed), 0o644))
	run := func(jobs []Job) []*install.Plan {
		t.Helper()
		var plans []*install.Plan
		for _, j := range jobs {
			p, err := j.Plan()
			require.NoError(t, err, j.Host)
			plans = append(plans, p)
		}
		require.NoError(t, install.Tx{Command: "init", Plans: plans}.Apply())
		return plans
	}
	jobs, err := Init(req, "auto", func(string) {})
	require.NoError(t, err)
	require.Equal(t, []string{"claude", "copilot"}, names(jobs))
	plans := run(jobs)
	var written [][]byte
	for _, p := range plans {
		for _, c := range p.Changes {
			if c.Kind == install.KindConfig {
				require.Equal(t, install.OpUpdate, c.Op, p.Host)
				require.Equal(t, path, c.Path, p.Host)
				written = append(written, c.New)
			}
		}
	}
	require.Len(t, written, 2)
	require.Equal(t, written[0], written[1])
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), `"deepseek-web-retrieval":`))
	recs, err := filepath.Glob(filepath.Join(req.Env.Home, ".local", "state", "deepseek-web-retrieval", "installs", "*-project-*.json"))
	require.NoError(t, err)
	require.Len(t, recs, 2)

	run(Uninstall(install.Request{Env: req.Env, Scope: install.ScopeProject}, "auto"))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, seed, string(data))
	require.NoDirExists(t, filepath.Join(req.Env.Home, ".local"))
}

func TestGatewayAgainstPlugin(t *testing.T) {
	req := request(t)
	jobs, err := Init(req, "opencode", func(string) {})
	require.NoError(t, err)
	p, err := jobs[0].Plan()
	require.NoError(t, err)
	require.NoError(t, install.Tx{Command: "init", Plans: []*install.Plan{p}}.Apply())

	gw := req
	gw.Remote = &install.Remote{URL: "https://gw.example.com/mcp", TokenEnv: install.DefaultTokenEnv}
	jobs, err = Init(gw, "opencode", func(string) {})
	require.NoError(t, err)
	_, err = jobs[0].Plan()
	require.EqualError(t, err, "refused: the OpenCode plugin is installed in this config, and a gateway entry beside it would offer every tool twice\n"+
		"To do it by hand:\n  - run `deepseek-web-retrieval uninstall --host opencode` first, then init --remote again")
	require.Equal(t, []string{"opencode"}, names(Uninstall(req, "opencode")))
}

func TestVariables(t *testing.T) {
	for _, tc := range []struct {
		name           string
		checks         []install.Check
		keys, tokenEnv []string
	}{
		{name: "nothing installed", checks: []install.Check{{Title: "x"}}, keys: []string{"DEEPSEEK_API_KEY"}},
		{name: "gateway entries only", checks: []install.Check{{Installed: true, TokenEnv: "T"}, {Installed: true, TokenEnv: "T"}}, tokenEnv: []string{"T"}},
		{name: "keys once each, default for none", checks: []install.Check{{Installed: true}, {Installed: true, KeyEnv: "K"}, {Installed: true, KeyEnv: "DEEPSEEK_API_KEY"}, {KeyEnv: "NOT_INSTALLED"}},
			keys: []string{"DEEPSEEK_API_KEY", "K"}},
		{name: "both", checks: []install.Check{{Installed: true, KeyEnv: "K"}, {Installed: true, TokenEnv: "T"}}, keys: []string{"K"}, tokenEnv: []string{"T"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, tokenEnv := Variables(tc.checks)
			require.Equal(t, tc.keys, keys)
			require.Equal(t, tc.tokenEnv, tokenEnv)
		})
	}
}
