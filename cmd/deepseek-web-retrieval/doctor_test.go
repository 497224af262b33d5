package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// doctor starts each installed MCP entry as its host would: the built CLI
// connects with two tools (exit 0); the key reaches it and is never shown.
func TestCLIDoctorConnects(t *testing.T) {
	setup(t)
	require.NoError(t, os.MkdirAll(os.Getenv("HOME"), 0o755))
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	for _, h := range []string{"codex", "claude", "gemini"} {
		code, _, errs := runCLI("init", "--host", h, "--binary", cliBin, "--yes")
		require.Equal(t, exitOK, code, errs)
	}
	code, out, _ := runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.Equal(t, 3, strings.Count(out, "\n  - connected, 2 tools (deepseek_fetch, deepseek_search)\n"), out)
	require.Equal(t, 3, strings.Count(out, "\n  - DEEPSEEK_API_KEY reaches the server (value not shown)\n"), out)
	require.True(t, strings.HasPrefix(out, "deepseek-web-retrieval doctor\n\n  "+versionLine()+"\n\n"), out)
	require.Equal(t, 3, strings.Count(out, "\n  - the server's version: "+core.Version), out)
	require.NotContains(t, out, "and this binary is")
	require.NotContains(t, out, cliKey)
	require.NotContains(t, out, "no install record")

	// From the home directory, the project's .codex/config.toml and
	// .gemini/settings.json are the global files: each is shown once.
	t.Chdir(os.Getenv("HOME"))
	code, out, _ = runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.Equal(t, 3, strings.Count(out, "connected, 2 tools"), out)
	require.NotContains(t, out, "(project)")
	require.NotContains(t, out, "no install record")
}

// A server that prints the key and exits: doctor exits 1, says why, and
// masks the key.
func TestCLIDoctorServerFails(t *testing.T) {
	setup(t)
	require.NoError(t, os.MkdirAll(os.Getenv("HOME"), 0o755))
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	srv := filepath.Join(t.TempDir(), "server")
	require.NoError(t, os.WriteFile(srv, []byte("#!/bin/sh\necho \"invalid key $DEEPSEEK_API_KEY\" >&2\nexit 1\n"), 0o755))
	code, _, errs := runCLI("init", "--host", "codex", "--binary", srv, "--yes")
	require.Equal(t, exitOK, code, errs)
	code, out, _ := runCLI("doctor")
	require.Equal(t, exitFailed, code, out)
	require.Contains(t, out, "\n  x does not connect: exited with status 1: invalid key [redacted]\n")
	require.Contains(t, out, "1 problem(s) found.")
	require.NotContains(t, out, cliKey)
}

// An entry with no install record: doctor prints the command that adopts
// it; running that very command records it, and doctor is then clean.
func TestCLIDoctorRepairsAnUnrecordedEntry(t *testing.T) {
	setup(t)
	require.NoError(t, os.MkdirAll(os.Getenv("HOME"), 0o755))
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	code, _, errs := runCLI("init", "--host", "claude", "--binary", cliBin, "--fetch", "preferred", "--max-results", "5", "--yes")
	require.Equal(t, exitOK, code, errs)
	recs, err := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".local", "state", "deepseek-web-retrieval", "installs", "claude-*.json"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NoError(t, os.Remove(recs[0]))

	code, out, _ := runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	m := regexp.MustCompile("! no install record for this entry \\(written by hand, or by an install that was interrupted\\), so uninstall will not remove it: run `([^`]+)` to adopt it, or remove mcpServers.deepseek-web-retrieval from (\\S+)\n").FindStringSubmatch(out)
	require.NotNil(t, m, out)
	require.Equal(t, filepath.Join(os.Getenv("HOME"), ".claude.json"), m[2])
	args := strings.Fields(m[1])
	require.Equal(t, []string{"deepseek-web-retrieval", "init", "--host", "claude", "--binary", cliBin}, args[:6])
	require.Equal(t, []string{"--search", "preferred", "--fetch", "preferred", "--max-results", "5", "--yes"}, args[6:])

	code, _, errs = runCLI(args[1:]...)
	require.Equal(t, exitOK, code, errs)
	code, out, _ = runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.NotContains(t, out, "no install record")
	require.Contains(t, out, "connected, 2 tools (deepseek_fetch, deepseek_search)")
}

// OpenCode: an entry with no record gets the init command that adopts it
// (running it records it); the vendored plugin is checked as OpenCode
// would load it: the files package.json names, core.wasm's header.
func TestCLIDoctorOpenCodeChecks(t *testing.T) {
	cfgDir := setup(t)
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	code, _, errs := runCLI("init", "--host", "opencode", "--fetch", "forced", "--max-results", "5", "--yes")
	require.Equal(t, exitOK, code, errs)
	require.NoError(t, os.Remove(filepath.Join(cfgDir, "vendor", "deepseek-web-retrieval.install.json")))

	code, out, _ := runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	m := regexp.MustCompile("! no install record for this entry \\(written by hand, or by an install that was interrupted\\), so uninstall will refuse: run `([^`]+)` to adopt it, or remove ./vendor/deepseek-web-retrieval from \"plugins\" in (\\S+)\n").FindStringSubmatch(out)
	require.NotNil(t, m, out)
	require.Equal(t, filepath.Join(cfgDir, "opencode.jsonc"), m[2])
	require.Equal(t, "deepseek-web-retrieval init --host opencode --search preferred --fetch forced --max-results 5 --yes", m[1])
	code, _, errs = runCLI(strings.Fields(m[1])[1:]...)
	require.Equal(t, exitOK, code, errs)
	code, out, _ = runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.NotContains(t, out, "no install record")

	plug := filepath.Join(cfgDir, "vendor", "deepseek-web-retrieval")
	require.NoError(t, os.WriteFile(filepath.Join(plug, "core.wasm"), []byte("<html>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plug, "package.json"), []byte(`{"main": "./index.js", "files": ["server.js", "runtime.js"]}`), 0o644))
	code, out, _ = runCLI("doctor")
	require.Equal(t, exitFailed, code, out)
	for _, want := range []string{"x vendor/deepseek-web-retrieval/runtime.js is missing: run init again", "x vendor/deepseek-web-retrieval/index.js is missing: run init again", "x vendor/deepseek-web-retrieval/core.wasm is not a WebAssembly module: run init again"} {
		require.Contains(t, out, want)
	}
}

// An entry that starts a binary of another version: doctor names both
// versions and the command that points the host at this binary. A vendored
// plugin of another version is reported the same way.
func TestCLIDoctorVersionsDiffer(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	goEnv := os.Environ() // the real HOME's module cache, before setup moves HOME
	setup(t)
	require.NoError(t, os.MkdirAll(os.Getenv("HOME"), 0o755))
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	old := filepath.Join(t.TempDir(), "deepseek-web-retrieval")
	build := exec.Command(goBin, "build", "-ldflags", "-X main.version=0.0.9", "-o", old, ".")
	build.Stderr, build.Env = os.Stderr, goEnv
	require.NoError(t, build.Run())
	code, _, errs := runCLI("init", "--host", "codex", "--binary", old, "--yes")
	require.Equal(t, exitOK, code, errs)
	code, out, _ := runCLI("doctor")
	require.Equal(t, exitOK, code, out)
	require.Contains(t, out, "\n  - the server's version: 0.0.9\n")
	require.Contains(t, out, "\n  ! the server Codex starts is version 0.0.9, and this binary is "+versionString()+": run `deepseek-web-retrieval install --yes` from the binary you want Codex to start\n")

	cfg := setup(t)
	code, _, errs = runCLI("init", "--host", "opencode", "--yes")
	require.Equal(t, exitOK, code, errs)
	pkg := filepath.Join(cfg, "vendor", "deepseek-web-retrieval", "package.json")
	data, err := os.ReadFile(pkg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pkg, []byte(strings.Replace(string(data), "{", `{"version": "0.0.9",`, 1)), 0o644))
	_, out, _ = runCLI("doctor")
	require.Contains(t, out, "\n  - the vendored plugin's version: 0.0.9\n")
	require.Contains(t, out, "\n  ! the vendored plugin is version 0.0.9, and this binary is "+core.Version+": run `deepseek-web-retrieval init --yes`")

	// The npm package, pinned to another version.
	cfg = setup(t)
	code, _, errs = runCLI("init", "--host", "opencode", "--plugin-source", "npm", "--yes")
	require.Equal(t, exitOK, code, errs)
	_, out, _ = runCLI("doctor")
	require.Contains(t, out, "lists @deepseek-web-retrieval/opencode@"+core.Version+" under \"plugins\"")
	require.NotContains(t, out, "pins the plugin package")
	conf := filepath.Join(cfg, "opencode.jsonc")
	data, err = os.ReadFile(conf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(conf, []byte(strings.Replace(string(data), "opencode@"+core.Version, "opencode@0.0.9", 1)), 0o644))
	_, out, _ = runCLI("doctor")
	require.Contains(t, out, "lists @deepseek-web-retrieval/opencode@0.0.9 under \"plugins\"")
	require.Contains(t, out, "\n  ! the entry pins the plugin package to version 0.0.9, and this binary is "+core.Version+": run `deepseek-web-retrieval init --yes --plugin-source npm`")
	require.NotContains(t, out, "vendored plugin is version")
}
