package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// setup points the installer at a scratch home and a fake plugin.
func setup(t *testing.T) (cfgDir string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	t.Setenv("OPENCODE_CONFIG_DIR", "")
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
		{name: "plan only", args: []string{"init"}, code: exitOK, stdout: "plan only, nothing has been written"},
		{name: "apply", args: []string{"init", "--yes", "--max-results", "5"}, code: exitOK, stdout: "applied", written: true},
		{name: "bad tier", args: []string{"init", "--search", "always"}, code: exitUsage, stderr: "invalid --search"},
		{name: "bad range", args: []string{"init", "--max-results", "99"}, code: exitUsage, stderr: "invalid --max-results"},
		{name: "bad number", args: []string{"init", "--timeout-ms", "soon"}, code: exitUsage, stderr: "--timeout-ms"},
		{name: "bad localization", args: []string{"init", "--localization", "home"}, code: exitUsage, stderr: "invalid --localization"},
		{name: "bad bool", args: []string{"init", "--allow-unknown-authority=maybe"}, code: exitUsage, stderr: "--allow-unknown-authority"},
		{name: "no literal key", args: []string{"init", "--api-key", "sk-123"}, code: exitUsage, stderr: "never writes an API key"},
		{name: "unknown flag", args: []string{"init", "--nope"}, code: exitUsage, stderr: "--nope"},
		{name: "stray argument", args: []string{"init", "global"}, code: exitUsage, stderr: `unexpected argument "global"`},
		{name: "bad scope", args: []string{"init", "--scope", "system"}, code: exitUsage, stderr: "--scope"},
		{name: "bad host", args: []string{"init", "--host", "vscode"}, code: exitUsage, stderr: "--host"},
		{name: "dir without project", args: []string{"init", "--dir", "/tmp"}, code: exitUsage, stderr: "--dir applies only to --scope project"},
		{name: "uninstall with nothing installed", args: []string{"uninstall", "--yes"}, code: exitOK, stdout: "nothing to uninstall"},
	}
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

	code, out, errs := runCLI("init", "--search", "forced", "--blocked-domains", "a.example, b.example", "--yes")
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
	code, _, _ := runCLI("init", "--yes")
	require.Equal(t, exitOK, code)
	cfg := filepath.Join(cfgDir, "opencode.jsonc")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, bytes.Replace(b, []byte(`"optional"`), []byte(`"off"`), 1), 0o644))
	code, _, errs := runCLI("uninstall", "--yes")
	require.Equal(t, exitFailed, code)
	require.Contains(t, errs, "was changed since init")
}
