package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestDefaultPluginSource(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("npm_config_cache", "")
	for _, tt := range []struct{ path, want string }{
		{"/usr/lib/node_modules/@deepseek-web-retrieval/cli-linux-x64/bin/deepseek-web-retrieval", "npm"},
		{filepath.Join(home, ".npm", "_npx", "3f2a", "node_modules", "@deepseek-web-retrieval", "cli-linux-x64", "bin", "deepseek-web-retrieval"), "npm"},
		{filepath.Join(home, ".local", "bin", "deepseek-web-retrieval"), "vendor"},
		{"/usr/local/bin/deepseek-web-retrieval", "vendor"},
	} {
		require.Equal(t, tt.want, defaultPluginSource(tt.path), tt.path)
	}
}

func TestWithPluginSource(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("npm_config_cache", "")
	fromNPM := "/usr/lib/node_modules/@deepseek-web-retrieval/cli-linux-x64/bin/deepseek-web-retrieval"
	args, note := withPluginSource([]string{"--host", "opencode1"}, fromNPM)
	require.Equal(t, []string{"--host", "opencode1", "--plugin-source", "npm"}, args)
	require.Equal(t, "this binary came from npm, so OpenCode's config names the npm package @deepseek-web-retrieval/opencode@"+core.Version+
		" (--plugin-source npm; pass --plugin-source vendor to copy the plugin instead)", note)

	// A source given is kept; a binary from elsewhere vendors.
	args, note = withPluginSource([]string{"--plugin-source=vendor"}, fromNPM)
	require.Equal(t, []string{"--plugin-source=vendor"}, args)
	require.Empty(t, note)
	args, note = withPluginSource([]string{"--host", "opencode"}, "/usr/local/bin/deepseek-web-retrieval")
	require.Equal(t, []string{"--host", "opencode"}, args)
	require.Empty(t, note)

	// Only when OpenCode may be installed into.
	for _, host := range [][]string{nil, {"--host", "auto"}, {"--host=opencode"}, {"-host", "opencode1"}} {
		args, note = withPluginSource(host, fromNPM)
		require.Equal(t, append(host, "--plugin-source", "npm"), args)
		require.NotEmpty(t, note)
	}
	args, note = withPluginSource([]string{"--host", "codex"}, fromNPM)
	require.Equal(t, []string{"--host", "codex"}, args)
	require.Empty(t, note)

	// A version that cannot be pinned keeps vendoring.
	oldV := version
	t.Cleanup(func() { version = oldV })
	version = "1.2.3+dirty"
	args, note = withPluginSource(nil, fromNPM)
	require.Nil(t, args)
	require.Empty(t, note)
}

func TestCLIPluginSource(t *testing.T) {
	oldV := version
	t.Cleanup(func() { version = oldV })
	version = "1.2.3"
	for _, host := range []string{"opencode", "opencode1"} {
		t.Run(host, func(t *testing.T) {
			cfgDir := setup(t)
			orig := "{\n  // mine\n  \"theme\": \"dark\"\n}\n"
			cfg := filepath.Join(cfgDir, "opencode.jsonc")
			require.NoError(t, os.WriteFile(cfg, []byte(orig), 0o644))
			want := map[string]string{
				"opencode":  `"plugins": [{"package": "@deepseek-web-retrieval/opencode@1.2.3", "options": {"search": "preferred", "fetch": "optional"}}]`,
				"opencode1": `"plugin": [["@deepseek-web-retrieval/opencode@1.2.3", {"search": "preferred", "fetch": "optional"}]]`,
			}[host]

			code, out, errs := runCLI("init", "--host", host, "--plugin-source", "npm", "--yes")
			require.Equal(t, exitOK, code, errs)
			require.NotContains(t, out, "vendor/deepseek-web-retrieval/")
			b, err := os.ReadFile(cfg)
			require.NoError(t, err)
			got, err := install.Normalize(b)
			require.NoError(t, err)
			var wantCfg map[string]any
			require.NoError(t, json.Unmarshal([]byte(`{"theme": "dark", `+want+`}`), &wantCfg))
			require.Equal(t, wantCfg, got)
			require.NoDirExists(t, filepath.Join(cfgDir, "vendor", "deepseek-web-retrieval"))

			code, out, _ = runCLI("init", "--host", host, "--plugin-source", "npm")
			require.Equal(t, exitOK, code)
			require.Contains(t, out, "nothing to do")

			// Back to vendoring: the entry names the path, the files are there.
			code, _, errs = runCLI("init", "--host", host, "--yes")
			require.Equal(t, exitOK, code, errs)
			require.FileExists(t, filepath.Join(cfgDir, "vendor", "deepseek-web-retrieval", "core.wasm"))
			b, err = os.ReadFile(cfg)
			require.NoError(t, err)
			require.NotContains(t, string(b), "@deepseek-web-retrieval/opencode")

			code, _, errs = runCLI("uninstall", "--yes")
			require.Equal(t, exitOK, code, errs)
			b, err = os.ReadFile(cfg)
			require.NoError(t, err)
			require.Equal(t, orig, string(b))
			require.NoDirExists(t, filepath.Join(cfgDir, "vendor"))
		})
	}
}

func TestCLIPluginSourceErrors(t *testing.T) {
	setup(t)
	code, out, errs := runCLI("init", "--host", "opencode", "--plugin-source", "git")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, errs, `--plugin-source: unknown source "git" (want vendor or npm)`)

	oldV := version
	t.Cleanup(func() { version = oldV })
	version = "1.2.3-dirty+abc"
	code, _, errs = runCLI("init", "--host", "opencode", "--plugin-source", "npm")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errs, `--plugin-source: cannot pin @deepseek-web-retrieval/opencode to version "1.2.3-dirty+abc": not an exact version (x.y.z); a release build has one`)
}
