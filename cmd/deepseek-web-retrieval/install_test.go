package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

// setup points the installer at a scratch home and a fake plugin.
func setup(t *testing.T) (cfgDir string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	t.Setenv("OPENCODE_CONFIG_DIR", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("PI_CODING_AGENT_DIR", "")
	// No real host on PATH: tests put fake programs in this directory.
	t.Setenv("PATH", filepath.Join(root, "bin"))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "xdg", "opencode"), 0o755))
	old := pluginFiles
	pluginFiles = func() fs.FS {
		return fstest.MapFS{
			"package.json": {Data: []byte(`{"name": "deepseek-web-retrieval"}`)},
			"server.js":    {Data: []byte("export default {}\n")},
			"core.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
		}
	}
	t.Cleanup(func() { pluginFiles = old })
	return filepath.Join(root, "xdg", "opencode")
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string
		stderr  string
		written bool
	}{
		{name: "no args", args: nil, code: exitUsage, stderr: "Commands:"},
		{name: "help", args: []string{"--help"}, code: exitOK, stdout: "Example:"},
		{name: "help init", args: []string{"help", "init"}, code: exitOK, stdout: "deepseek-web-retrieval init --scope global --search preferred --fetch optional"},
		{name: "init -h", args: []string{"init", "-h"}, code: exitOK, stdout: "Usage: deepseek-web-retrieval init"},
		{name: "unknown command", args: []string{"instal"}, code: exitUsage, stderr: `unknown command "instal"`},
		{name: "version", args: []string{"version"}, code: exitOK, stdout: "deepseek-web-retrieval "},
		{name: "plan only", args: []string{"init", "--host", "opencode"}, code: exitOK, stdout: "plan only, nothing has been written"},
		{name: "apply", args: []string{"init", "--host", "opencode", "--yes", "--max-results", "5"}, code: exitOK, stdout: "applied", written: true},
		{name: "bad tier", args: []string{"init", "--search", "always"}, code: exitUsage, stderr: "invalid --search"},
		{name: "bad range", args: []string{"init", "--max-results", "99"}, code: exitUsage, stderr: "invalid --max-results"},
		{name: "bad number", args: []string{"init", "--timeout-ms", "soon"}, code: exitUsage, stderr: "--timeout-ms"},
		{name: "bad localization", args: []string{"init", "--localization", "home"}, code: exitUsage, stderr: "invalid --localization"},
		{name: "bad bool", args: []string{"init", "--allow-unknown-authority=maybe"}, code: exitUsage, stderr: "--allow-unknown-authority"},
		{name: "no literal key", args: []string{"init", "--api-key", "sk-123"}, code: exitUsage, stderr: "never writes an API key"},
		{name: "unknown flag", args: []string{"init", "--nope"}, code: exitUsage, stderr: "--nope"},
		{name: "stray argument", args: []string{"init", "global"}, code: exitUsage, stderr: `unexpected argument "global"`},
		{name: "bad scope", args: []string{"init", "--scope", "system"}, code: exitUsage, stderr: "--scope"},
		{name: "bad host", args: []string{"init", "--host", "opencode3"}, code: exitUsage, stderr: `--host: unknown host "opencode3" (want one of opencode, opencode1, codex, claude, gemini, pi, cursor, amp, cline, continue, copilot, crush, goose, junie, kilo, kiro, qwen, roo, vscode, windsurf, zed, auto)`},
		{name: "bad host uninstall", args: []string{"uninstall", "--host", "vim"}, code: exitUsage, stderr: "want one of opencode, opencode1, codex, claude, gemini, pi, cursor, amp, cline, continue, copilot, crush, goose, junie, kilo, kiro, qwen, roo, vscode, windsurf, zed, auto"},
		{name: "bad tier lists the tiers", args: []string{"init", "--fetch", "sometimes"}, code: exitUsage, stderr: "want off, optional, preferred or forced"},
		{name: "bad scope lists the scopes", args: []string{"uninstall", "--scope", "system"}, code: exitUsage, stderr: "(want global or project)"},
		{name: "auto with nothing to go by", args: []string{"init"}, code: exitFailed, stderr: "pass --host opencode (2.x, \"plugins\") or --host opencode1 (1.x, \"plugin\")"},
		{name: "dir without project", args: []string{"init", "--dir", "/tmp"}, code: exitUsage, stderr: "--dir applies only to --scope project"},
		{name: "uninstall with nothing installed", args: []string{"uninstall", "--yes"}, code: exitOK, stdout: "nothing to uninstall"},
	}
	// No agent at all (not even OpenCode's config directory): init has
	// nothing to install into, says so and how to go on, and writes nothing.
	t.Run("auto finds no agent", func(t *testing.T) {
		cfgDir := setup(t)
		require.NoError(t, os.Remove(cfgDir))
		code, stdout, stderr := runCLI("init", "--yes")
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, "deepseek-web-retrieval init: nothing to install into: --host auto: found no coding agent this installer writes into on this machine (no program on PATH, no config directory).\nInstall one, then run init again, or name one with --host (opencode, opencode1, codex, claude, gemini, pi, cursor, amp, cline, continue, copilot, crush, goose, junie, kilo, kiro, qwen, roo, vscode, windsurf, zed).\n", stdout)
		_, err := os.Stat(cfgDir)
		require.True(t, os.IsNotExist(err), "nothing written")
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfgDir := setup(t)
			code, stdout, stderr := runCLI(tc.args...)
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			require.Contains(t, stdout, tc.stdout)
			require.Contains(t, stderr, tc.stderr)
			_, err := os.Stat(filepath.Join(cfgDir, "opencode.jsonc"))
			require.Equal(t, tc.written, err == nil, "config written")
		})
	}
}

func TestCLIInitUninstallRoundTrip(t *testing.T) {
	cfgDir := setup(t)
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	orig := "{\n  // mine\n  \"theme\": \"dark\",\n}\n"
	cfg := filepath.Join(cfgDir, "opencode.jsonc")
	require.NoError(t, os.WriteFile(cfg, []byte(orig), 0o644))

	code, out, errs := runCLI("init", "--host", "opencode", "--search", "forced", "--blocked-domains", "a.example, b.example", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, out, "export DEEPSEEK_API_KEY=...")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Contains(t, string(b), `"blockedDomains": [`)

	code, out, _ = runCLI("init", "--search", "forced", "--blocked-domains", "a.example,b.example")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "nothing to do")

	code, out, _ = runCLI("uninstall")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "plan only")
	code, _, errs = runCLI("uninstall", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig, string(b))
	require.NoDirExists(t, filepath.Join(cfgDir, "vendor"))
}

func TestCLIProjectScope(t *testing.T) {
	setup(t)
	proj := t.TempDir()
	code, _, errs := runCLI("init", "--scope", "project", "--dir", proj, "--host", "opencode1", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err := os.ReadFile(filepath.Join(proj, "opencode.jsonc"))
	require.NoError(t, err)
	require.Contains(t, string(b), `"plugin": [`)
	code, _, errs = runCLI("uninstall", "--scope", "project", "--dir", proj, "--yes")
	require.Equal(t, exitOK, code, errs)
	require.NoFileExists(t, filepath.Join(proj, "opencode.jsonc"))
}

func TestCLIRefusesModifiedEntry(t *testing.T) {
	cfgDir := setup(t)
	code, _, _ := runCLI("init", "--host", "opencode", "--yes")
	require.Equal(t, exitOK, code)
	cfg := filepath.Join(cfgDir, "opencode.jsonc")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, bytes.Replace(b, []byte(`"optional"`), []byte(`"off"`), 1), 0o644))
	code, _, errs := runCLI("uninstall", "--yes")
	require.Equal(t, exitFailed, code)
	require.Contains(t, errs, "was changed since init")
}

// fakeOpencode puts an opencode on PATH that prints version (or sleeps).
func fakeOpencode(t *testing.T, script string) {
	t.Helper()
	bin := filepath.SplitList(os.Getenv("PATH"))[0]
	require.NoError(t, os.WriteFile(filepath.Join(bin, "opencode"), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
}

// --host auto is the default; the opencode on PATH decides the
// key, and an explicit host that does not match it is warned about.
func TestCLIAutoPicksTheKeyOfTheOpenCodeFound(t *testing.T) {
	cfgDir := setup(t)
	fakeOpencode(t, "echo 1.18.33")
	code, out, errs := runCLI("init", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, errs, "is OpenCode 1.18.33; using --host opencode1")
	b, err := os.ReadFile(filepath.Join(cfgDir, "opencode.jsonc"))
	require.NoError(t, err)
	require.Contains(t, string(b), `"plugin": [`)
	require.NotContains(t, out, "! the opencode on PATH")
	code, _, _ = runCLI("uninstall", "--yes")
	require.Equal(t, exitOK, code)

	code, out, _ = runCLI("init", "--host", "opencode")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `! the opencode on PATH is 1.18.33 (1.x), which reads only the "plugin" key; this install writes the 2.x "plugins" key`)
}

// When the version cannot be read (slow or failing
// opencode), the key the config already has decides; with none, the plan
// fails with a clear message and writes nothing.
func TestCLIAutoWithoutAVersion(t *testing.T) {
	old := versionTimeout
	versionTimeout = 300 * time.Millisecond
	t.Cleanup(func() { versionTimeout = old })
	for _, script := range []string{"sleep 5", "exit 3"} {
		cfgDir := setup(t)
		fakeOpencode(t, script)
		code, _, errs := runCLI("init", "--yes")
		require.Equal(t, exitFailed, code)
		require.Contains(t, errs, "could not read the OpenCode version")
		require.Contains(t, errs, "pass --host opencode (2.x")
		require.NoFileExists(t, filepath.Join(cfgDir, "opencode.jsonc"))

		cfg := filepath.Join(cfgDir, "opencode.json")
		require.NoError(t, os.WriteFile(cfg, []byte("{\n  \"plugin\": [\"opencode-wakatime\"]\n}\n"), 0o644))
		code, _, errs = runCLI("init", "--yes")
		require.Equal(t, exitOK, code, errs)
		require.Contains(t, errs, "the config already uses the key of --host opencode1")
		b, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.Contains(t, string(b), `"./vendor/deepseek-web-retrieval"`)
		require.NotContains(t, string(b), `"plugins"`)
	}
}

// A project whose config has the 1.x "plugin" array gets the
// 1.x entry under --host auto, not a "plugins" key beside it.
func TestCLIAutoKeepsTheProjectsKey(t *testing.T) {
	setup(t)
	proj := t.TempDir()
	cfg := filepath.Join(proj, "opencode.json")
	require.NoError(t, os.WriteFile(cfg, []byte("{\"plugin\": []}\n"), 0o644))
	code, _, errs := runCLI("init", "--scope", "project", "--dir", proj, "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Contains(t, string(b), `"plugin": [["./vendor/deepseek-web-retrieval"`)
}

// MCP hosts through the CLI: init writes the entry pointing at --binary,
// auto finds the host by its config directory, uninstall restores the file.
func TestCLIMCPHost(t *testing.T) {
	setup(t)
	home := os.Getenv("HOME")
	cfg := filepath.Join(home, ".codex", "config.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	orig := "# mine\nmodel = \"o3\"\n"
	require.NoError(t, os.WriteFile(cfg, []byte(orig), 0o644))
	code, out, errs := runCLI("init", "--host", "codex", "--binary", "/opt/x/deepseek-web-retrieval", "--search", "forced", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, out, "applied")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Contains(t, string(b), "[mcp_servers.deepseek-web-retrieval]\ncommand = \"/opt/x/deepseek-web-retrieval\"\nargs = [\"mcp\", \"--search\", \"forced\", \"--fetch\", \"optional\"]\nenv_vars = [\"DEEPSEEK_API_KEY\"]\n")
	require.Contains(t, string(b), "web_search = \"disabled\"")

	code, out, errs = runCLI("doctor")
	require.Equal(t, exitFailed, code, "the binary does not exist: %s", out)
	require.Contains(t, out, "x does not connect: command not found: /opt/x/deepseek-web-retrieval (moved or deleted?)")

	code, out, errs = runCLI("uninstall", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, out, "Codex")
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig, string(b))
	code, out, _ = runCLI("uninstall", "--yes")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "nothing to uninstall")
}

// doctor on an OpenCode install: present and complete exits 0; a vendored
// file deleted is a problem (exit 1); the key variable is reported, never
// its value.
func TestCLIDoctorOpenCode(t *testing.T) {
	cfgDir := setup(t)
	t.Setenv("DEEPSEEK_API_KEY", "sk-doctor-test-0123456789")
	code, _, errs := runCLI("init", "--host", "opencode", "--yes")
	require.Equal(t, exitOK, code, errs)
	code, out, _ := runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.Contains(t, out, `opencode.jsonc lists ./vendor/deepseek-web-retrieval under "plugins"`)
	require.Contains(t, out, "DEEPSEEK_API_KEY is set in this shell (value not shown).")
	require.NotContains(t, out, "sk-doctor-test")
	require.NoError(t, os.Remove(filepath.Join(cfgDir, "vendor", "deepseek-web-retrieval", "server.js")))
	code, out, _ = runCLI("doctor")
	require.Equal(t, exitFailed, code, out)
	require.Contains(t, out, "x vendor/deepseek-web-retrieval/server.js is missing: run init again")
}

// init --remote writes a gateway entry; its flags are checked before
// anything is planned, and uninstall gives the file back.
func TestCLIRemote(t *testing.T) {
	setup(t)
	home := os.Getenv("HOME")
	cfg := filepath.Join(home, ".codex", "config.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	orig := "model = \"o3\"\n"
	require.NoError(t, os.WriteFile(cfg, []byte(orig), 0o644))

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--remote", "http://gw.example.com/mcp"}, "plain http would send the token unencrypted to gw.example.com"},
		{[]string{"--token-env", "T"}, "--token-env applies only with --remote"},
		{[]string{"--remote", "https://gw.example.com/mcp", "--binary", "/opt/x"}, "--remote points the hosts at a gateway: --binary and --plugin-source do not apply"},
		{[]string{"--remote", "https://gw.example.com/mcp", "--max-results", "5"}, "--max-results is the gateway's setting"},
	} {
		code, _, errs := runCLI(append([]string{"init", "--host", "codex"}, tc.args...)...)
		require.Equal(t, exitUsage, code, tc.args)
		require.Contains(t, errs, tc.err)
	}
	code, _, errs := runCLI("init", "--host", "pi", "--remote", "https://gw.example.com/mcp")
	require.Equal(t, exitFailed, code)
	require.Contains(t, errs, "pi cannot connect to a team gateway (--remote): it starts MCP servers only as commands")

	code, out, errs := runCLI("init", "--host", "codex", "--remote", "https://gw.example.com", "--token-env", "TEAM_TOKEN", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, out, "export TEAM_TOKEN=...")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig+"\n[mcp_servers.deepseek-web-retrieval]\nurl = \"https://gw.example.com/mcp\"\nbearer_token_env_var = \"TEAM_TOKEN\"\n", string(b))

	code, _, errs = runCLI("uninstall", "--host", "codex", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig, string(b))
}

// OpenCode gets a gateway entry under "mcp" with --remote; the plugin and a
// gateway entry are never both in one config; uninstall --host opencode
// removes whichever is there.
func TestCLIRemoteOpenCode(t *testing.T) {
	cfgDir := setup(t)
	cfg := filepath.Join(cfgDir, "opencode.jsonc")
	orig := "{\n  \"theme\": \"opencode\"\n}\n"
	require.NoError(t, os.WriteFile(cfg, []byte(orig), 0o644))

	code, _, errs := runCLI("init", "--host", "opencode", "--remote", "https://gw.example.com/team", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Contains(t, string(b), `"url": "https://gw.example.com/team"`)
	require.Contains(t, string(b), `"Authorization": "Bearer {env:DEEPSEEK_WEB_RETRIEVAL_TOKEN}"`)

	code, _, errs = runCLI("init", "--host", "opencode", "--binary", "/opt/x/deepseek-web-retrieval", "--yes")
	require.Equal(t, exitFailed, code)
	require.Contains(t, errs, "this OpenCode config has a gateway entry (init --remote), and the plugin beside it would offer every tool twice")

	code, _, errs = runCLI("uninstall", "--host", "opencode", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig, string(b))

	code, _, errs = runCLI("init", "--host", "opencode", "--binary", "/opt/x/deepseek-web-retrieval", "--yes")
	require.Equal(t, exitOK, code, errs)
	code, _, errs = runCLI("init", "--host", "opencode", "--remote", "https://gw.example.com/team", "--yes")
	require.Equal(t, exitFailed, code)
	require.Contains(t, errs, "the OpenCode plugin is installed in this config, and a gateway entry beside it would offer every tool twice")
	code, _, errs = runCLI("uninstall", "--yes")
	require.Equal(t, exitOK, code, errs)
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, orig, string(b))
}

// doctor for a member whose entries all point at a gateway speaks of the
// token, not the key, and says when the gateway does not answer.
func TestCLIDoctorGatewayOnly(t *testing.T) {
	setup(t)
	t.Setenv("TEAM_TOKEN", "")
	code, _, errs := runCLI("init", "--host", "codex", "--remote", "http://127.0.0.1:9/mcp", "--token-env", "TEAM_TOKEN", "--yes")
	require.Equal(t, exitOK, code, errs)
	code, out, _ := runCLI("doctor")
	require.Equal(t, exitFailed, code, out)
	require.Contains(t, out, "connects to the gateway http://127.0.0.1:9/mcp")
	require.Contains(t, out, "TEAM_TOKEN (your gateway token) is not set in this shell")
	require.NotContains(t, out, "DEEPSEEK_API_KEY")
	require.Contains(t, out, "does not connect: ")
}
